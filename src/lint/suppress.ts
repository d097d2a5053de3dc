/**
 * In-file suppressions for lint's own rules, for the deliberate case (a legacy
 * label kept on purpose, an input the agent reads itself):
 *   # recipe-lint-disable-next-line input_unused, contract_no_receipt
 *   # recipe-lint-disable contract_legacy_label          (whole file)
 *   <!-- recipe-lint-disable-next-line anchor_empty -->  (Markdown)
 * The loader's own diagnostics cannot be silenced: the server still acts on them.
 */
import { ruleOf } from "./rules.js";

const DIRECTIVE = /(?:#|<!--)\s*recipe-lint-disable(-next-line)?\s+([A-Za-z0-9_,\s]+?)\s*(?:-->)?\s*$/;

export interface Suppressions {
  /** Codes disabled for the whole file. */
  readonly file: ReadonlySet<string>;
  /** 1-based line → codes disabled on it. */
  readonly lines: ReadonlyMap<number, ReadonlySet<string>>;
}

/** `yaml`: `#` lines are comments to skip over; in Markdown they are headings. */
export function parseSuppressions(text: string, yaml: boolean): Suppressions {
  const file = new Set<string>();
  const lines = new Map<number, Set<string>>();
  const all = text.replace(/\r\n?/g, "\n").split("\n");
  let pending: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    const m = DIRECTIVE.exec(line);
    if (m) {
      const codes = m[2]!.split(/[\s,]+/).filter((c) => ruleOf(c) !== undefined);
      if (m[1] === undefined) codes.forEach((c) => file.add(c));
      else pending.push(...codes);
      continue;
    }
    const t = line.trim();
    if (t === "" || (yaml && t.startsWith("#")) || t.startsWith("<!--")) continue;
    if (pending.length > 0) {
      lines.set(i + 1, new Set([...(lines.get(i + 1) ?? []), ...pending]));
      pending = [];
    }
  }
  return { file, lines };
}

export function isSuppressed(s: Suppressions, code: string, line: number | undefined): boolean {
  if (ruleOf(code) === undefined) return false;
  if (s.file.has(code)) return true;
  return line !== undefined && (s.lines.get(line)?.has(code) ?? false);
}
