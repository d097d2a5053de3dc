/**
 * SKILL.md frontmatter (docs/skill-packs.md): Agent Skills top-level keys only, dcc-mcp
 * extensions under `metadata.dcc-mcp` (nested) or `metadata["dcc-mcp.<key>"]` (flat).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { parsePlainFast } from "./yaml-fast.js";
import { diagnostic, type Diagnostic, type DiagnosticCode } from "../util/diagnostics.js";
import type { SkillInfo } from "./types.js";
import { firstKey, mergeDependsText, promptList, stringList } from "./metadata-lists.js";
import { decodeUtf8 } from "../util/read-bounded.js";
import { readInside } from "../util/read-inside.js";
import { isPlainObject as isRecord } from "../jsonschema/json.js";

export const ALLOWED_TOP_LEVEL_KEYS: readonly string[] = Object.freeze([
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
  // dcc-mcp-core's loader accepts the underscore spelling too (AGENTSKILLS_SPEC_KEYS).
  "allowed_tools",
]);

/** Every SkillInfo field that SKILL.md itself decides (discovery adds dir/root/rootIndex). */
type SkillFields = Omit<SkillInfo, "dir" | "root" | "rootIndex">;

type ParseSkillResult =
  | { readonly ok: true; readonly skill: SkillFields; readonly diagnostics: Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: Diagnostic[] };

const FILE = "SKILL.md";
const DEFAULT_DCC = "python";

/** Splits `---\n<yaml>\n---\n<body>`; null when the text does not open with a frontmatter block. */
function splitFrontmatter(text: string): { yaml: string; body: string } | null {
  const lines = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  if (lines[0]?.trimEnd() !== "---") return null;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trimEnd() === "---") {
      return { yaml: lines.slice(1, i).join("\n"), body: lines.slice(i + 1).join("\n") };
    }
  }
  return null;
}

export function parseSkillMarkdown(text: string, dirName: string): ParseSkillResult {
  const where = { skill: dirName, file: FILE };
  const refuse = (code: DiagnosticCode, message: string, at: { line?: number } = {}): ParseSkillResult => ({
    ok: false,
    diagnostics: [diagnostic("error", code, message, { ...where, ...at })],
  });
  const split = splitFrontmatter(text);
  if (split === null) return refuse("frontmatter_missing", `${FILE} must start with YAML frontmatter between --- lines`);

  // The fast parser answers clean frontmatter; anything it would report on
  // (errors, refused keys) is re-read exactly below for messages with lines.
  const fast = parsePlainFast(split.yaml);
  const fastData = fast === null ? null : (fast.data ?? {});
  if (isRecord(fastData) && Object.keys(fastData).every((k) => ALLOWED_TOP_LEVEL_KEYS.includes(k))) {
    return interpret(fastData, dirName, split.body);
  }

  const lineCounter = new LineCounter();
  const doc = parseDocument(split.yaml, { uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      diagnostics: doc.errors.map((e) => {
        const line = e.linePos?.[0]?.line;
        const msg = `${FILE} frontmatter: ${(e.message.split("\n")[0] ?? "").replace(/:$/, "")}`;
        // +1: the YAML starts on the line after the opening ---.
        return diagnostic("error", "frontmatter_invalid", msg, line !== undefined ? { ...where, line: line + 1 } : where);
      }),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return refuse("frontmatter_invalid", `${FILE} frontmatter: ${err instanceof Error ? err.message : String(err)}`);
  }
  // An empty block is an empty mapping: the name falls back to the directory.
  if (data === null || data === undefined) data = {};
  if (!isRecord(data)) return refuse("frontmatter_invalid", `${FILE} frontmatter must be a mapping`);

  const extra = Object.keys(data).filter((k) => !ALLOWED_TOP_LEVEL_KEYS.includes(k));
  if (extra.length > 0) {
    const keyLine = (k: string): number | undefined => {
      const pair = (doc.contents as { items?: Array<{ key?: { value?: unknown; range?: number[] } }> } | null)?.items?.find(
        (p) => p.key?.value === k,
      );
      const off = pair?.key?.range?.[0];
      return off === undefined ? undefined : lineCounter.linePos(off).line + 1;
    };
    const line = keyLine(extra[0]!);
    return refuse(
      "non_spec_top_level_keys",
      `${FILE} has top-level keys outside the Agent Skills format: ${extra.join(", ")}; ` +
        `move under metadata.dcc-mcp (allowed top-level keys: ${ALLOWED_TOP_LEVEL_KEYS.join(", ")})`,
      line !== undefined ? { line } : {},
    );
  }

  return interpret(data, dirName, split.body);
}

/** The skill a well-formed frontmatter mapping describes, with its warnings. */
function interpret(data: Record<string, unknown>, dirName: string, body: string): ParseSkillResult {
  const where = { skill: dirName, file: FILE };
  const diagnostics: Diagnostic[] = [];
  const rawName = data["name"];
  let name = dirName;
  if (typeof rawName === "string" && rawName.trim() !== "") name = rawName.trim();
  else if (rawName !== undefined && rawName !== null && rawName !== "") {
    return {
      ok: false,
      diagnostics: [diagnostic("error", "frontmatter_invalid", `${FILE} name must be a string`, where)],
    };
  }
  const at = { skill: name, file: FILE };
  const warn = (message: string): void => {
    diagnostics.push(diagnostic("warning", "invalid_metadata", message, at));
  };

  const optString = (key: string): string | undefined => {
    const v = data[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    warn(`${key} must be a string; ignored`);
    return undefined;
  };

  const metadataRaw = data["metadata"];
  let metadata: Record<string, unknown> = {};
  if (isRecord(metadataRaw)) metadata = metadataRaw;
  else if (metadataRaw !== undefined && metadataRaw !== null) warn("metadata must be a mapping; ignored");

  const dccMetadata = mergeDccMetadata(metadata, warn);
  const skill: SkillFields = {
    name,
    description: optString("description") ?? "",
    license: optString("license"),
    compatibility: optString("compatibility"),
    allowedTools: allowedTools(data["allowed-tools"] ?? data["allowed_tools"], warn),
    dcc: dccValue(dccMetadata["dcc"], warn),
    version: scalarString(dccMetadata["version"], "metadata.dcc-mcp.version", warn),
    tags: stringList(dccMetadata["tags"], "metadata.dcc-mcp.tags", warn),
    searchHint: scalarString(dccMetadata["search-hint"], "metadata.dcc-mcp.search-hint", warn),
    ...newerMetadata(dccMetadata, warn),
    recipePatterns: recipePatterns(dccMetadata["recipes"], (m) =>
      diagnostics.push(diagnostic("error", "invalid_metadata", m, at)),
    ),
    dccMetadata,
    metadata,
    body,
  };
  // Drop undefined optionals so the object reads the same as one built by hand.
  for (const k of Object.keys(skill) as Array<keyof SkillFields>) {
    if (skill[k] === undefined) delete (skill as Partial<Record<keyof SkillFields, unknown>>)[k];
  }
  return { ok: true, skill, diagnostics };
}

/** Flat `metadata["dcc-mcp.<key>"]` first, then nested `metadata.dcc-mcp` over it. */
function mergeDccMetadata(metadata: Record<string, unknown>, warn: (m: string) => void): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (k.startsWith("dcc-mcp.") && k.length > "dcc-mcp.".length) merged[k.slice("dcc-mcp.".length)] = v;
  }
  const nested = metadata["dcc-mcp"];
  if (isRecord(nested)) Object.assign(merged, nested);
  else if (nested !== undefined && nested !== null) warn("metadata.dcc-mcp must be a mapping; ignored");
  return merged;
}

function dccValue(v: unknown, warn: (m: string) => void): string {
  if (v === undefined || v === null || v === "") return DEFAULT_DCC;
  if (typeof v === "string") return v.trim().toLowerCase();
  warn(`metadata.dcc-mcp.dcc must be a string; using ${DEFAULT_DCC}`);
  return DEFAULT_DCC;
}

function scalarString(v: unknown, key: string, warn: (m: string) => void): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  warn(`${key} must be a string; ignored`);
  return undefined;
}

function allowedTools(v: unknown, warn: (m: string) => void): string | string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (Array.isArray(v) && v.every((t) => typeof t === "string")) return v as string[];
  warn("allowed-tools must be a string or a list of strings; ignored");
  return undefined;
}

/** A file name, a glob, or a list of them; anything else is refused (the skill keeps no recipes). */
function recipePatterns(v: unknown, error: (m: string) => void): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") return v.trim() === "" ? [] : [v.trim()];
  if (Array.isArray(v) && v.every((p) => typeof p === "string")) {
    return v.map((p: string) => p.trim()).filter((p) => p !== "");
  }
  error(`metadata.dcc-mcp.recipes must be a file name, a glob, or a list of them (got ${describe(v)})`);
  return [];
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "a list with non-string items";
  return typeof v === "object" ? "a mapping" : `a ${typeof v}`;
}

/**
 * Keys dcc-mcp-core's loader acts on beyond docs/skill-packs.md (apply_dcc_mcp_metadata_overrides):
 * `layer`, `search-aliases` (or `search_aliases`, `aliases`), `example-prompts`
 * (or `example_prompts`, and `examplePrompts` as packs write it), `depends`, `products`.
 */
function newerMetadata(
  m: Readonly<Record<string, unknown>>,
  warn: (message: string) => void,
): Pick<SkillFields, "layer" | "searchAliases" | "examplePrompts" | "depends" | "products"> {
  const layer = scalarString(m["layer"], "metadata.dcc-mcp.layer", warn)?.trim().toLowerCase();
  const aliasKey = firstKey(m, ["search-aliases", "search_aliases", "aliases"]);
  const promptKey = firstKey(m, ["example-prompts", "example_prompts", "examplePrompts"]);
  const out: { -readonly [K in "layer" | "searchAliases" | "examplePrompts" | "depends" | "products"]?: SkillFields[K] } = {};
  if (layer !== undefined && layer !== "") out.layer = layer;
  const aliases = aliasKey === undefined ? [] : stringList(m[aliasKey], `metadata.dcc-mcp.${aliasKey}`, warn);
  if (aliases.length > 0) out.searchAliases = aliases;
  const prompts = promptKey === undefined ? [] : promptList(m[promptKey], `metadata.dcc-mcp.${promptKey}`, warn);
  if (prompts.length > 0) out.examplePrompts = prompts;
  const depends = stringList(m["depends"], "metadata.dcc-mcp.depends", warn);
  if (depends.length > 0) out.depends = depends;
  const products = stringList(m["products"], "metadata.dcc-mcp.products", warn);
  if (products.length > 0) out.products = products;
  return out;
}

/** Core merges `metadata/depends.md` into `depends`; bounded like SKILL.md, and silent when absent or unreadable (as core). */
const MAX_DEPENDS_BYTES = 64 * 1024;

/** `realDir`: the skill directory's real path (see util/read-inside.ts). */
export function withDependsFile(skill: SkillFields, realDir: string): SkillFields {
  // Most skills have none: asked first without an exception (a failed open
  // throws an Error with a stack, ~0.1 ms apiece over a thousand skills).
  // Present, it is opened as any skill file is (readInside).
  if (!existsSync(path.join(realDir, "metadata", "depends.md"))) return skill;
  const read = readInside(realDir, path.join("metadata", "depends.md"), MAX_DEPENDS_BYTES);
  if (!read.ok) return skill;
  const text = decodeUtf8(read.bytes);
  if (text === null) return skill;
  const depends = mergeDependsText(skill.depends ?? [], text);
  return depends.length > 0 ? { ...skill, depends } : skill;
}
