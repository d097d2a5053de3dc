/**
 * File-reading regressions, one test each (named after the
 * row), on real files in a temp directory through the loaders and the
 * library the daemon runs.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkillRecipes } from "../../../src/recipes/packs/loader.js";
import { RecipeLibrary } from "../../../src/recipes/catalog/library.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";
import { MAX_DIAGNOSTICS_PER_FILE_AND_CODE } from "../../../src/util/diagnostics.js";
import { loadSkill } from "../../../src/skills/discover.js";
import { makeTempDir, skillMd, writeTree } from "../../e2e/harness.js";
import { until } from "../../helpers/until.js";

let tmp: string;
let opened: RecipeLibrary[] = [];
beforeEach(async () => {
  tmp = await makeTempDir("file-reading-");
});
afterEach(async () => {
  // A load writes its parse cache after publishing: let it finish before the directory goes.
  await Promise.all(opened.map((lib) => lib.whenIdle()));
  opened = [];
  await fs.chmod(tmp, 0o755).catch(() => undefined);
  await fs.rm(tmp, { recursive: true, force: true });
});

function library(logLines?: string[]): RecipeLibrary {
  const lib = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots: [path.join(tmp, "skills")], privateDir: path.join(tmp, "private"), stateDir: path.join(tmp, "state") },
    search: createSearchEngine({ provider: null }),
    logger: pino({ level: "info" }, { write: (line: string) => void logLines?.push(line) }),
    parseWorkers: 0,
  });
  opened.push(lib);
  return lib;
}

describe("a 2,000-recipe pack rewritten in place in 4 writes 30 ms apart", () => {
  // The quiet window keeps a file that is still being written from being read,
  // but a part left alone longer than QUIET_MS is a stable file and rightly
  // served, and on a loaded machine a 30 ms timer can fire 100 ms late. What
  // holds whatever the load: every snapshot holds a state the file really had
  // between two writes (a whole number of parts, all of one revision), never
  // a read torn by a write, and the whole new version is served once written.
  it("no snapshot ever serves a torn read of it, and the whole new version is served after", async () => {
    const PART = 500;
    const packOf = (revision: number, from: number, to: number): string =>
      Array.from({ length: to - from }, (_, i) => `  - name: r${from + i}\n    description: revision ${revision} of r${from + i}\n    steps: [{ tool: t }]\n`).join("");
    const pack = path.join(tmp, "skills/big/RECIPES.yaml");
    const whole = (revision: number): string => `recipes:\n${packOf(revision, 0, 4 * PART)}`;
    await writeTree(tmp, { "skills/big/SKILL.md": skillMd("big", "maya", "RECIPES.yaml"), "skills/big/RECIPES.yaml": whole(0) });
    const lib = library();
    await lib.load();
    type Snapshot = NonNullable<ReturnType<typeof lib.current>>;
    // Why a snapshot is not a state the file had, or null when it is one.
    const torn = (snapshot: Snapshot): string | null => {
      const n = snapshot.recipes.size;
      if (n % PART !== 0) return `${n} recipes, not a whole number of parts`;
      const revision = /^revision (\d+) of r0$/.exec(snapshot.recipes.get("big/r0")?.description ?? "")?.[1];
      for (let i = 0; i < n; i++) {
        const description = snapshot.recipes.get(`big/r${i}`)?.description;
        if (description !== `revision ${revision} of r${i}`) return `r${i} is ${JSON.stringify(description)} beside revision ${revision} of r0`;
      }
      return null;
    };
    // A debounce shorter than the gaps between the writes: a batch is read in the middle of the rewrite.
    await lib.watch({ debounceMs: 10 });
    const servedIn = async (revision: number): Promise<Snapshot[]> => {
      const seen: Snapshot[] = [];
      let polling = true;
      const poll = (async () => {
        while (polling) {
          const now = lib.current()!;
          if (seen.at(-1) !== now) seen.push(now);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      try {
        // Each write leaves a valid YAML pack of the recipes written so far (a truncated file).
        const handle = await fs.open(pack, "w");
        for (let part = 0; part < 4; part++) {
          await handle.write(`${part === 0 ? "recipes:\n" : ""}${packOf(revision, part * PART, (part + 1) * PART)}`);
          if (part < 3) await new Promise((resolve) => setTimeout(resolve, 30));
        }
        await handle.close();
        await until(() => lib.current()!.recipes.get("big/r1999")?.description === `revision ${revision} of r1999`);
      } finally {
        polling = false;
        await poll;
      }
      seen.push(lib.current()!);
      return seen;
    };
    try {
      for (let revision = 1; revision <= 3; revision++) {
        const seen = await servedIn(revision);
        expect(seen.map(torn).filter((why) => why !== null)).toEqual([]);
        expect(seen.at(-1)!.recipes.size).toBe(4 * PART);
      }
    } finally {
      await lib.stopWatching();
    }
    expect(lib.current()!.recipes.size).toBe(2000);
    expect(lib.current()!.diagnostics).toEqual([]);
  });
});

describe("one pack with 100,000 `- name: a`", () => {
  it("gives the first diagnostics of each code and one 'and N more', in the loader, the snapshot and the log", async () => {
    const entries = "- name: a\n".repeat(100_000);
    await writeTree(tmp, { "skills/big/SKILL.md": skillMd("big", "maya", "RECIPES.yaml"), "skills/big/RECIPES.yaml": `recipes:\n${entries}` });
    const skill = (await loadSkill(path.join(tmp, "skills/big"), path.join(tmp, "skills"), 0)).skill!;
    const loaded = await loadSkillRecipes(skill);
    expect(loaded.recipes.map((r) => r.name)).toEqual(["a"]);
    const duplicates = loaded.diagnostics.filter((d) => d.code === "duplicate_recipe");
    expect(duplicates).toHaveLength(MAX_DIAGNOSTICS_PER_FILE_AND_CODE + 1);
    expect(duplicates.at(-1)!.message).toBe(`and ${99_999 - MAX_DIAGNOSTICS_PER_FILE_AND_CODE} more "duplicate_recipe" diagnostics in RECIPES.yaml (the first ${MAX_DIAGNOSTICS_PER_FILE_AND_CODE} are listed)`);
    expect(duplicates.at(-1)).toMatchObject({ severity: "warning", skill: "big", file: "RECIPES.yaml" });

    const lines: string[] = [];
    const lib = library(lines);
    const snapshot = await lib.load();
    expect(snapshot.diagnostics.filter((d) => d.code === "duplicate_recipe")).toHaveLength(MAX_DIAGNOSTICS_PER_FILE_AND_CODE + 1);
    expect(lines.filter((l) => l.includes('"skill diagnostic"'))).toHaveLength(MAX_DIAGNOSTICS_PER_FILE_AND_CODE + 1);
  });
});

describe("SKILL.md that is a FIFO, a symlink to /dev/zero, or a skill directory with mode 000", () => {
  it("gives a diagnostic naming the skill and the reason; a FIFO or device is never opened", async () => {
    await writeTree(tmp, { "skills/ok/SKILL.md": skillMd("ok", "maya", "RECIPES.yaml"), "skills/ok/RECIPES.yaml": "recipes:\n  - name: a\n    steps: [{ tool: t }]\n" });
    await fs.mkdir(path.join(tmp, "skills/fifo"));
    execFileSync("mkfifo", [path.join(tmp, "skills/fifo/SKILL.md")]);
    await fs.mkdir(path.join(tmp, "skills/zero"));
    await fs.symlink("/dev/zero", path.join(tmp, "skills/zero/SKILL.md"));
    // Opening the FIFO for reading would block this test (no writer ever comes): loading at all shows it was not opened.
    const snapshot = await library().load();
    expect([...snapshot.skills.keys()]).toEqual(["ok"]);
    const unreadable = snapshot.diagnostics.filter((d) => d.code === "file_unreadable").map((d) => [d.skill, d.file, d.message]);
    expect(unreadable).toEqual([
      ["fifo", "SKILL.md", "SKILL.md is a FIFO, not a regular file"],
      ["zero", "SKILL.md", "SKILL.md is a character device, not a regular file"],
    ]);
  });

  // Root reads a mode-000 directory as any other: nothing to refuse there.
  it.skipIf(process.getuid?.() === 0)("a skill directory with mode 000 is named as unreadable", async () => {
    await writeTree(tmp, { "skills/locked/SKILL.md": skillMd("locked", "maya", "RECIPES.yaml") });
    await fs.chmod(path.join(tmp, "skills/locked"), 0o000);
    try {
      const snapshot = await library().load();
      expect(snapshot.diagnostics.map((d) => [d.code, d.skill, d.file])).toEqual([["file_unreadable", "locked", "SKILL.md"]]);
      expect(snapshot.diagnostics[0]!.message).toMatch(/^the skill directory cannot be read \(EACCES\)$/);
    } finally {
      await fs.chmod(path.join(tmp, "skills/locked"), 0o755);
    }
  });
});
