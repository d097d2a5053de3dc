/** GitHub Actions workflow commands: one `::error`/`::warning` annotation per finding. */
import type { LintFinding } from "./types.js";

/** Escaping as the runner's toolkit does it for the message part. */
function data(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** …and for property values, where `:` and `,` separate fields. */
function prop(s: string): string {
  return data(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

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
