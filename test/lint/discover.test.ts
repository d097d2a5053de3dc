/**
 * One walk, three readers (docs/pipeline.md): `recipe-server lint`,
 * the library's `scanSkills` and the daemon's full load see the same skills,
 * in the same order, with the same discovery diagnostics — shadowed names,
 * broken and reserved SKILL.md files, an empty root and a missing one.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverForLint } from "../../src/lint/engine.js";
import { openPrivateStore } from "../../src/recipes/store/store.js";
import { IncrementalCatalog } from "../../src/recipes/catalog/reload.js";
import { scanSkills } from "../../src/recipes/api/scan-skills.js";

let tmp = "";
let roots: string[] = [];

const skillMd = (name: string, dcc = "maya"): string =>
  `---\nname: ${name}\ndescription: ${name} skill\nmetadata:\n  dcc-mcp:\n    dcc: ${dcc}\n---\n# ${name}\n`;

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), "one-walk-")));
  const [a, b, empty, missing, single] = ["a", "b", "empty", "missing", "single"].map((n) => path.join(tmp, n)) as [string, string, string, string, string];
  await put(path.join(a, "rig", "SKILL.md"), skillMd("rig"));
  await put(path.join(a, "fx", "SKILL.md"), skillMd("fx"));
  await put(path.join(a, "broken", "SKILL.md"), "---\nname: [unclosed\n---\n");
  await put(path.join(a, "private", "SKILL.md"), skillMd("private"));
  await put(path.join(b, "rig-copy", "SKILL.md"), skillMd("rig"));
  await put(path.join(b, "anim", "SKILL.md"), skillMd("anim"));
  await mkdir(path.join(empty, "not-a-skill"), { recursive: true });
  await put(path.join(single, "SKILL.md"), skillMd("single"));
  roots = [a, b, empty, missing, single];
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("lint, scanSkills and the daemon's load", () => {
  it("see the same skills and the same discovery diagnostics", async () => {
    const catalog = new IncrementalCatalog({ dcc: "maya", roots, store: openPrivateStore({ dir: path.join(tmp, "private-dir") }) });
    await catalog.loadAll();
    const daemon = catalog.parts();
    const lint = await discoverForLint(roots);
    const scanned = await scanSkills({ dccName: "maya", extraPaths: roots, env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, homeDir: tmp });

    const daemonNames = daemon.skills.map((s) => s.info.name);
    expect(daemonNames).toEqual(["fx", "rig", "anim", "single"]);
    expect(lint.skills.map((s) => s.name)).toEqual(daemonNames);
    expect(scanned.skills.map((s) => s.name)).toEqual(daemonNames);
    expect(lint.skills.map((s) => s.dir)).toEqual(daemon.skills.map((s) => s.info.dir));

    const codes = daemon.discoveryDiagnostics.map((d) => d.code);
    expect(codes).toContain("duplicate_skill");
    expect(codes).toContain("reserved_skill_name");
    expect(codes.length).toBeGreaterThanOrEqual(3);
    expect(lint.diagnostics.flatMap((d) => d.diagnostics)).toEqual(daemon.discoveryDiagnostics);
    expect(scanned.diagnostics).toEqual(daemon.discoveryDiagnostics);
    // Each finding is placed at its own directory, the shadowed copy included.
    expect(lint.diagnostics.find((d) => d.diagnostics.some((x) => x.code === "duplicate_skill"))?.dir).toBe(path.join(roots[1]!, "rig-copy"));
    expect(lint.emptyRoots).toEqual([roots[2]]);
  });
});
