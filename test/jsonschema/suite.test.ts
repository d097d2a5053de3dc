/**
 * The official JSON-Schema-Test-Suite (draft 2020-12, read in place from ../shared).
 * In-scope groups must answer every case correctly; groups using a feature SPEC §7 refuses
 * must be refused at compile with a matching reason, never answered.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import type { SchemaErrorCode } from "../../src/jsonschema/index.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const suiteDir = path.resolve(repoRoot, "../shared/data/json-schema-test-suite/tests/draft2020-12");
const exists = fs.existsSync(suiteDir);
if (!exists) console.warn(`JSON-Schema-Test-Suite not found at ../shared (${suiteDir}); suite tests skipped`);

interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}
interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: SuiteCase[];
}

/** Not refused, just not part of §7: format assertion and the draft-7 `dependencies` keyword. */
const OUT_OF_SCOPE_FILES = new Set(["optional/dependencies-compatibility.json"]);
const OUT_OF_SCOPE_DIRS = ["optional/format/"];

/** A refusal is legitimate only when the schema text shows the refused feature. */
const REFUSAL_EVIDENCE: Partial<Record<SchemaErrorCode, (text: string) => boolean>> = {
  id_unsupported: (t) => t.includes('"$id"'),
  dynamic_ref_unsupported: (t) => t.includes('"$dynamicRef"') || t.includes('"$dynamicAnchor"'),
  external_ref: (t) => /"\$ref":\s*"[^#]/.test(t),
  unsupported_dialect: (t) => t.includes('"$schema"'),
  invalid_pattern: (t) => t.includes("pattern"),
  unsafe_pattern: (t) => t.includes("pattern"),
};

function suiteFiles(): string[] {
  if (!exists) return [];
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel + entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), `${r}/`);
      else if (entry.name.endsWith(".json")) out.push(r);
    }
  };
  walk(suiteDir, "");
  return out.sort().filter((f) => !OUT_OF_SCOPE_FILES.has(f) && !OUT_OF_SCOPE_DIRS.some((d) => f.startsWith(d)));
}

describe.skipIf(!exists)("JSON-Schema-Test-Suite draft2020-12", () => {
  const totals = { inScopeCases: 0, passedCases: 0, refusedGroups: 0, refusedCases: 0, groups: 0, cases: 0 };
  const failures: string[] = [];
  const badRefusals: string[] = [];
  const answeredButRefusable: string[] = [];

  for (const file of suiteFiles()) {
    const groups = JSON.parse(fs.readFileSync(path.join(suiteDir, file), "utf8")) as SuiteGroup[];
    for (const group of groups) {
      const label = `${file} / ${group.description}`;
      const text = JSON.stringify(group.schema);
      totals.groups++;
      totals.cases += group.tests.length;
      const compiled = compileSchema(group.schema);
      if (!compiled.ok) {
        totals.refusedGroups++;
        totals.refusedCases += group.tests.length;
        const evidence = REFUSAL_EVIDENCE[compiled.error.code];
        if (evidence === undefined || !evidence(text)) badRefusals.push(`${label}: ${compiled.error.code} ${compiled.error.message}`);
        continue;
      }
      if (text.includes('"$dynamicRef"') || /"\$ref":\s*"https?:/.test(text)) answeredButRefusable.push(label);
      for (const t of group.tests) {
        totals.inScopeCases++;
        const result = compiled.validator.validate(t.data);
        if (result.valid === t.valid) totals.passedCases++;
        else failures.push(`${label} / ${t.description}: expected ${t.valid ? "valid" : "invalid"}`);
      }
    }
  }

  it("answers every in-scope case correctly", () => {
    console.log(
      `JSON-Schema-Test-Suite draft2020-12: in-scope passed ${totals.passedCases} / ${totals.inScopeCases} cases; ` +
        `refused ${totals.refusedGroups} / ${totals.groups} groups (${totals.refusedCases} / ${totals.cases} cases)`,
    );
    expect(failures).toEqual([]);
    expect(totals.inScopeCases).toBeGreaterThan(1000);
  });

  it("refuses only for a reason the schema actually shows", () => {
    expect(badRefusals).toEqual([]);
  });

  it("never answers a group that uses a refused feature", () => {
    expect(answeredButRefusable).toEqual([]);
  });
});
