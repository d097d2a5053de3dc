import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { reportRoots, rootState } from "../../src/cli/roots-report.js";
import type { CatalogSnapshot, SkillEntry } from "../../src/recipes/catalog/catalog.js";
import { makeTempDir } from "../e2e/harness.js";

function skill(rootIndex: number, recipes: number): SkillEntry {
  return { info: { rootIndex }, recipeIds: Array.from({ length: recipes }, (_, i) => `r${i}`), files: [], diagnostics: [] } as unknown as SkillEntry;
}

describe("reportRoots", () => {
  it("says which roots exist and counts skills and recipes under the root each came from", async () => {
    const tmp = await makeTempDir();
    const a = path.join(tmp, "a");
    await fs.mkdir(a);
    const file = path.join(tmp, "file");
    await fs.writeFile(file, "x");
    const roots = [a, path.join(tmp, "missing"), file];
    expect(reportRoots(roots, null).map((r) => [r.state, r.skills])).toEqual([["found", null], ["missing", null], ["not-a-directory", null]]);
    const snapshot = { skills: new Map([["s1", skill(0, 3)], ["s2", skill(0, 2)], ["odd", skill(7, 1)]]) } as unknown as CatalogSnapshot;
    expect(reportRoots(roots, snapshot).map((r) => [r.index, r.skills, r.recipes])).toEqual([[0, 2, 5], [1, 0, 0], [2, 0, 0]]);
    expect(rootState(a)).toBe("found");
  });
});
