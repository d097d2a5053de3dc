import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveRecipePaths } from "../../src/skills/recipe-paths.js";

let tmp = "";
let skill = "";

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "recipe-paths-"));
  skill = path.join(tmp, "skill");
  await mkdir(path.join(skill, "refs", "deep"), { recursive: true });
  await mkdir(path.join(skill, ".hidden"), { recursive: true });
  await writeFile(path.join(skill, "SKILL.md"), "---\nname: s\n---\n");
  await writeFile(path.join(skill, "R.yaml"), "recipes: []\n");
  await writeFile(path.join(skill, "refs", "a.md"), "## a\n");
  await writeFile(path.join(skill, "refs", "b.md"), "## b\n");
  await writeFile(path.join(skill, "refs", "deep", "c.md"), "## c\n");
  await writeFile(path.join(skill, ".hidden", "h.md"), "## h\n");
  await writeFile(path.join(tmp, "outside.md"), "## secret\n");
  await mkdir(path.join(tmp, "outdir"));
  await writeFile(path.join(tmp, "outdir", "x.md"), "## x\n");
  await symlink(path.join(tmp, "outside.md"), path.join(skill, "escape.md"));
  await symlink(path.join(tmp, "outdir"), path.join(skill, "linkdir"));
  await symlink(path.join(skill, "refs", "a.md"), path.join(skill, "alias.md"));
  await symlink(path.join(skill, "nowhere.md"), path.join(skill, "dangling.md"));
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

const rel = (files: string[]) => files.map((f) => path.relative(skill, f));
const noAbs = (r: { diagnostics: readonly { message: string }[] }) => {
  for (const d of r.diagnostics) expect(d.message).not.toContain(tmp);
};

describe("resolveRecipePaths", () => {
  it("resolves names and globs, sorted and de-duplicated", async () => {
    const r = await resolveRecipePaths(skill, ["refs/b.md", "refs/*.md", "R.yaml", "refs/a.md"], "s");
    expect(rel(r.files)).toEqual(["R.yaml", "refs/a.md", "refs/b.md"]);
    expect(r.diagnostics).toEqual([]);
  });

  it("** reaches nested files; dot-dirs only when the pattern names them; SKILL.md is never a glob match", async () => {
    const r = await resolveRecipePaths(skill, ["**/*.md"], "s");
    expect(rel(r.files)).not.toContain(".hidden/h.md");
    expect(rel(r.files)).not.toContain("SKILL.md");
    expect(rel(r.files)).toContain("refs/deep/c.md");
    const h = await resolveRecipePaths(skill, [".hidden/*.md"], "s");
    expect(rel(h.files)).toEqual([".hidden/h.md"]);
  });

  it("a symlink to the same in-skill file is one file", async () => {
    const r = await resolveRecipePaths(skill, ["alias.md", "refs/a.md"], "s");
    expect(r.files).toHaveLength(1);
  });

  it("refuses a symlink escaping the skill, by name and through a glob", async () => {
    const r = await resolveRecipePaths(skill, ["escape.md", "linkdir/*.md", "*.md"], "s");
    expect(rel(r.files)).toEqual(["alias.md"]);
    const codes = r.diagnostics.map((d) => d.code);
    expect(codes.filter((c) => c === "recipe_path_escapes").length).toBeGreaterThanOrEqual(3);
    noAbs(r);
  });

  it("refuses ../ and absolute patterns without touching the file system", async () => {
    const r = await resolveRecipePaths(skill, ["../outside.md", "refs/../../outside.md", path.join(tmp, "outside.md"), "../*.md"], "s");
    expect(r.files).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(Array(4).fill("recipe_path_escapes"));
    noAbs(r);
  });

  it("a missing file, a dangling link and a directory are diagnostics", async () => {
    const r = await resolveRecipePaths(skill, ["nope.md", "dangling.md", "refs"], "s");
    expect(r.files).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["recipe_path_missing", "recipe_path_missing", "recipe_path_missing"]);
    expect(r.diagnostics.every((d) => d.skill === "s" && d.severity === "error")).toBe(true);
    noAbs(r);
  });

  it("a glob matching nothing is a warning", async () => {
    const r = await resolveRecipePaths(skill, ["*.toml"], "s");
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([["recipe_glob_empty", "warning"]]);
  });

  it("a missing skill directory is a diagnostic, not a throw", async () => {
    const r = await resolveRecipePaths(path.join(tmp, "gone"), ["R.yaml"], "gone");
    expect(r.files).toEqual([]);
    expect(r.diagnostics[0]!.code).toBe("file_unreadable");
    noAbs(r);
  });

  it("a skill dir reached through a symlink still contains its own files", async () => {
    const link = path.join(tmp, "skill-link");
    await symlink(skill, link);
    const r = await resolveRecipePaths(link, ["R.yaml", "escape.md"], "s");
    expect(r.files).toEqual([path.join(link, "R.yaml")]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["recipe_path_escapes"]);
  });
});

describe("regression: a symlink loop under a **/*.md glob", () => {
  it("is reported once, a link out once, and SKILL.md is never a recipe file of its own skill", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "recipe-loops-"));
    try {
      const dir = path.join(root, "loopy-skill");
      await mkdir(path.join(dir, "sub"), { recursive: true });
      await writeFile(path.join(dir, "SKILL.md"), "---\nname: s\n---\n");
      await writeFile(path.join(dir, "a.md"), "## a\n");
      await writeFile(path.join(dir, "sub", "r.md"), "## r\n");
      // Back to the skill itself (self/self/…/SKILL.md), and out to the root holding every skill (loopy/loopy-skill/loopy/…).
      await symlink(".", path.join(dir, "self"));
      await symlink("..", path.join(dir, "loopy"));
      const r = await resolveRecipePaths(dir, ["**/*.md"], "s");
      expect(r.files.map((f) => path.relative(dir, f))).toEqual(["a.md", path.join("sub", "r.md")]);
      expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([
        ["recipe_path_escapes", 'recipe path loopy/ (from "**/*.md") resolves outside the skill directory'],
        ["recipe_path_loop", 'recipe glob "**/*.md" runs into a symbolic link loop at self/; it is not followed'],
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("regression: an unreadable subdirectory under a glob", () => {
  // Root reads a mode-000 directory as any other: nothing to refuse there.
  it.skipIf(process.getuid?.() === 0)("says the directory is unreadable, not that the glob matches no file", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "recipe-unreadable-"));
    try {
      await mkdir(path.join(root, "locked"), { recursive: true });
      await writeFile(path.join(root, "locked", "r.md"), "## r\n");
      await chmod(path.join(root, "locked"), 0o000);
      const r = await resolveRecipePaths(root, ["**/*.md"], "s");
      expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([["file_unreadable", 'recipe glob "**/*.md": directory locked/ cannot be read']]);
    } finally {
      await chmod(path.join(root, "locked"), 0o755);
      await rm(root, { recursive: true, force: true });
    }
  });
});
