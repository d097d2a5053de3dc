import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fixFor, LINT_RULES, LOADER_FIXES } from "../../src/lint/rules.js";
import { DIAGNOSTIC_CODES } from "../../src/util/diagnostics.js";
import { repoRoot } from "./helpers.js";

describe("rule table", () => {
  it("has a fix line for every loader diagnostic and every lint code, and no clash between the two", () => {
    for (const code of Object.keys(DIAGNOSTIC_CODES)) expect(fixFor(code), code).not.toBe("");
    for (const code of Object.keys(LINT_RULES)) {
      expect(fixFor(code), code).not.toBe("");
      expect(Object.keys(DIAGNOSTIC_CODES)).not.toContain(code);
    }
  });

  it("docs/lint.md documents every code a pack author can meet", () => {
    const doc = readFileSync(path.join(repoRoot, "docs/lint.md"), "utf8");
    const authorFacing = Object.keys(LOADER_FIXES).filter((c) => c !== "private_playbook_invalid" && c !== "reload_kept_last_good");
    for (const code of [...Object.keys(LINT_RULES), ...authorFacing]) expect(doc, code).toContain(`\`${code}\``);
  });
});
