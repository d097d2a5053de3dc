/** Machine output: a JSON array, one finding object per line (valid JSON and grep-able). */
import type { LintFinding } from "./types.js";

export function formatJson(findings: readonly LintFinding[]): string {
  if (findings.length === 0) return "[]\n";
  return `[\n${findings.map((f) => JSON.stringify(f)).join(",\n")}\n]\n`;
}
