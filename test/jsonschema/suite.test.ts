/**
 * The official JSON-Schema-Test-Suite (draft 2020-12, read in place from ../shared).
 * In-scope groups must answer every case correctly; groups using a feature docs/jsonschema.md refuses
 * must be refused at compile with a matching reason, never answered.
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import type { SchemaErrorCode } from "../../src/jsonschema/index.js";
import { FAST_PATHS } from "./helpers.js";
import { readGroups, suiteDir, suiteFiles } from "./suite-files.js";
import { requireShared } from "../helpers/shared.js";

const exists = requireShared(suiteDir, "the JSON-Schema-Test-Suite tests");

/** A refusal is legitimate only when the schema text shows the refused feature. */
const REFUSAL_EVIDENCE: Partial<Record<SchemaErrorCode, (text: string) => boolean>> = {
  id_unsupported: (t) => t.includes('"$id"'),
  dynamic_ref_unsupported: (t) => t.includes('"$dynamicRef"') || t.includes('"$dynamicAnchor"'),
  external_ref: (t) => /"\$ref":\s*"[^#]/.test(t),
  unsupported_dialect: (t) => t.includes('"$schema"'),
  invalid_pattern: (t) => t.includes("pattern"),
  unsupported_pattern: (t) => t.includes("pattern"),
};

describe.skipIf(!exists).each(FAST_PATHS)("JSON-Schema-Test-Suite draft2020-12 ($mode)", ({ mode, generateAfter }) => {
  const totals = { inScopeCases: 0, passedCases: 0, refusedGroups: 0, refusedCases: 0, groups: 0, cases: 0 };
  const failures: string[] = [];
  const badRefusals: string[] = [];
  const answeredButRefusable: string[] = [];

  for (const file of suiteFiles()) {
    const groups = readGroups(file);
    for (const group of groups) {
      const label = `${file} / ${group.description}`;
      const text = JSON.stringify(group.schema);
      totals.groups++;
      totals.cases += group.tests.length;
      const compiled = compileSchema(group.schema, { generateAfter });
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
      `JSON-Schema-Test-Suite draft2020-12 (${mode}): in-scope passed ${totals.passedCases} / ${totals.inScopeCases} cases; ` +
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
