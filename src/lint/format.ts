/**
 * The linter's output formats: text for a terminal (findings grouped by
 * file, a fix under each, a summary line), JSON for machines, and GitHub
 * Actions workflow commands. Author text reaches terminals and CI logs
 * without control characters (`printable`).
 */
import type { LintFinding, LintStats } from "./types.js";

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Author text (recipe names, keys) made safe for a terminal or a CI log: control characters escaped, newlines as spaces. */
export function printable(s: string): string {
  return s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(/\n/g, " ");
}

const ANSI = { red: "\u001b[31m", yellow: "\u001b[33m", dim: "\u001b[2m", bold: "\u001b[1m", underline: "\u001b[4m", green: "\u001b[32m", reset: "\u001b[0m" };

/** Human output: findings grouped by file, a fix under each, a summary line. */
export function formatText(findings: readonly LintFinding[], stats: LintStats, color: boolean): string {
  const c = (style: keyof typeof ANSI, s: string): string => (color ? `${ANSI[style]}${s}${ANSI.reset}` : s);
  const byPath = new Map<string, LintFinding[]>();
  for (const f of findings) {
    const list = byPath.get(f.path);
    if (list) list.push(f);
    else byPath.set(f.path, [f]);
  }
  const out: string[] = [];
  for (const [file, list] of byPath) {
    out.push(c("underline", printable(file)));
    const width = Math.max(...list.map((f) => place(f).length));
    for (const f of list) {
      const sev = f.severity === "error" ? c("red", "error  ") : c("yellow", "warning");
      out.push(`  ${c("dim", place(f).padEnd(width))}  ${sev}  ${printable(f.message)}  ${c("dim", f.code)}`);
      if (f.fix !== "") out.push(`  ${" ".repeat(width)}  ${c("dim", `fix: ${printable(f.fix)}`)}`);
    }
    out.push("");
  }
  out.push(summary(findings, stats, c));
  if (stats.suppressed > 0) {
    out.push(
      c(
        "dim",
        `${plural(stats.suppressed, "finding")} suppressed: silenced by recipe-lint-disable comments in the pack files ` +
          "(loader diagnostics cannot be); list those comments with: grep -rn recipe-lint-disable <skill dirs>",
      ),
    );
  }
  return `${out.join("\n")}\n`;
}

function place(f: LintFinding): string {
  if (f.line === undefined) return "-";
  return f.column === undefined ? `${f.line}` : `${f.line}:${f.column}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function summary(findings: readonly LintFinding[], stats: LintStats, c: (style: keyof typeof ANSI, s: string) => string): string {
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.length - errors;
  const quiet = stats.suppressed > 0 ? `, ${stats.suppressed} suppressed` : "";
  const scope = `${plural(stats.skills, "skill")}, ${plural(stats.recipes, "recipe")}${quiet}, ${Math.round(stats.ms)} ms`;
  if (findings.length === 0) return c("green", `✔ no problems (${scope})`);
  const line = `✖ ${plural(findings.length, "problem")} (${plural(errors, "error")}, ${plural(warnings, "warning")}) in ${scope}`;
  return c(errors > 0 ? "red" : "yellow", c("bold", line));
}

/** Machine output: a JSON array, one finding object per line (valid JSON and grep-able). */
export function formatJson(findings: readonly LintFinding[]): string {
  if (findings.length === 0) return "[]\n";
  return `[\n${findings.map((f) => JSON.stringify(f)).join(",\n")}\n]\n`;
}

/** Escaping as the runner's toolkit does it for the message part. */
function data(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** …and for property values, where `:` and `,` separate fields. */
function prop(s: string): string {
  return data(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** GitHub Actions workflow commands: one `::error`/`::warning` annotation per finding. */
export function formatGithub(findings: readonly LintFinding[]): string {
  const lines = findings.map((f) => {
    const props = [`file=${prop(f.path)}`];
    if (f.line !== undefined) props.push(`line=${f.line}`);
    if (f.column !== undefined) props.push(`col=${f.column}`);
    props.push(`title=${prop(`recipe-lint ${f.code}`)}`);
    const kind = f.severity === "error" ? "error" : "warning";
    const text = f.fix === "" ? f.message : `${f.message}\nFix: ${f.fix}`;
    return `::${kind} ${props.join(",")}::${data(text)}`;
  });
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
