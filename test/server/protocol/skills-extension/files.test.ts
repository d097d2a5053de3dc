/** Which files of a skill directory are served: real directories, links, limits. */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DEPTH, SKILL_FILE_LIMIT, walkSkill } from "../../../../src/server/protocol/skills-extension/files.js";

let tmp = "";

beforeAll(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "skill-files-")));
});
afterAll(async () => fs.rm(tmp, { recursive: true, force: true }));

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(tmp, name);
  for (const [relative, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await fs.writeFile(path.join(dir, relative), content);
  }
  return dir;
}

describe("walkSkill", () => {
  it("follows directories to MAX_DEPTH levels and says what it skipped", async () => {
    const deep = Array.from({ length: MAX_DEPTH + 2 }, (_, i) => `d${i}`).join("/");
    const dir = await tree("deep", { "SKILL.md": "x", [`${deep}/far.txt`]: "far", "d0/near.txt": "near" });
    const walked = await walkSkill(dir, new Set());
    expect(walked.files.map((f) => f.path)).toEqual(["d0/near.txt"]);
    expect(walked.skipped.some((s) => s.reason.startsWith("deeper than"))).toBe(true);
    expect(walked.dirs).toHaveLength(MAX_DEPTH + 1);
  });

  it("ends a link cycle, and serves a directory that two paths reach once", async () => {
    const dir = await tree("cycle", { "SKILL.md": "x", "a/file.txt": "f" });
    await fs.symlink(dir, path.join(dir, "a", "up"));
    await fs.symlink(path.join(dir, "a"), path.join(dir, "b"));
    const walked = await walkSkill(dir, new Set());
    expect(walked.files.map((f) => f.path).sort()).toEqual(["a/file.txt"]);
    expect(walked.skipped.map((s) => s.reason)).toEqual(["a directory already served (link cycle)", "a directory already served (link cycle)"]);
  });

  it("stops once a skill has more files than the extension allows", async () => {
    const dir = await tree("many", Object.fromEntries([["SKILL.md", "x"], ...Array.from({ length: SKILL_FILE_LIMIT + 50 }, (_, i) => [`f/${i}.txt`, "1"])]));
    const walked = await walkSkill(dir, new Set());
    expect(walked.overLimit).toBe(true);
    expect(walked.files.length).toBe(SKILL_FILE_LIMIT);
  });

  it("keeps only a bounded sample of skipped files", async () => {
    const dir = await tree("refused", Object.fromEntries([["SKILL.md", "x"], ...Array.from({ length: 300 }, (_, i) => [`r${i}.md`, "1"])]));
    const walked = await walkSkill(dir, new Set(Array.from({ length: 300 }, (_, i) => `r${i}.md`)));
    expect(walked.files).toEqual([]);
    expect(walked.skipped).toHaveLength(100);
  });

  it("serves nothing of a directory that is gone", async () => {
    expect(await walkSkill(path.join(tmp, "missing"), new Set())).toEqual({ root: path.join(tmp, "missing"), files: [], dirs: [""], skipped: [], overLimit: false });
  });
});
