/**
 * Each DCC's state files; a library's load leaves its parse cache file
 * behind, even a load with nothing to parse.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RecipeLibrary, stateFiles } from "../../../src/recipes/catalog/library.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";

const isFirstLoad = (stateDir: string): boolean => !existsSync(stateFiles(stateDir).parseCache);

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "state-files-")));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function loadOnce(skillRoot: string, stateDir: string): Promise<void> {
  const library = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots: [skillRoot], privateDir: path.join(tmp, "private"), stateDir },
    search: createSearchEngine({ provider: null }),
    logger: pino({ level: "silent" }),
  });
  await library.load();
  await library.flush();
}

describe("state files", () => {
  it("names each file inside its DCC's state directory", () => {
    const files = stateFiles(path.join(tmp, "maya"));
    expect(Object.values(files).map((f) => path.dirname(f))).toEqual([path.join(tmp, "maya"), path.join(tmp, "maya"), path.join(tmp, "maya")]);
    expect(new Set(Object.values(files)).size).toBe(3);
  });

  it("a state directory is a first load until a load has finished in it", async () => {
    const stateDir = path.join(tmp, "state");
    await fs.mkdir(path.join(tmp, "skills", "fx"), { recursive: true });
    await fs.writeFile(path.join(tmp, "skills", "fx", "SKILL.md"), "---\nname: fx\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: RECIPES.yaml\n---\n");
    await fs.writeFile(path.join(tmp, "skills", "fx", "RECIPES.yaml"), "recipes:\n  - name: smoke\n    steps: [{ tool: smoke }]\n");
    expect(isFirstLoad(stateDir)).toBe(true);
    await loadOnce(path.join(tmp, "skills"), stateDir);
    expect(isFirstLoad(stateDir)).toBe(false);
  });

  it("regression: a DCC with no packs (an empty or missing skill root) is not a first load again at every restart", async () => {
    for (const root of ["empty-root", "missing-root"]) {
      const stateDir = path.join(tmp, `state-${root}`);
      if (root === "empty-root") await fs.mkdir(path.join(tmp, root));
      await loadOnce(path.join(tmp, root), stateDir);
      expect(isFirstLoad(stateDir)).toBe(false);
    }
  });
});
