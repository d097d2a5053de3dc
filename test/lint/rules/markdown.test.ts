import { describe, expect, it } from "vitest";
import { codes, lintTree, skillMd, withCode } from "../helpers.js";

const lintMd = async (...files: string[]) => {
  const tree: Record<string, string> = { "s/SKILL.md": skillMd("s", files.map((_, i) => `R${i}.md`)) };
  files.forEach((t, i) => (tree[`s/R${i}.md`] = t));
  return (await lintTree(tree)).findings;
};

describe("Markdown anchors", () => {
  it("passes distinct anchors with content", async () => {
    expect(await lintMd("# Recipes\n\n## Freeze\n\nFreeze transforms.\n\n## Centre pivot\n\nText.\n")).toEqual([]);
  });

  it("warns about a heading with nothing under it, at the heading line", async () => {
    const found = await lintMd("## Full\n\ntext\n\n## Empty\n\n---\n\n## Next\ntext\n");
    const hit = withCode(found, "anchor_empty");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.message).toContain('"Empty"');
    expect(hit[0]!.line).toBe(5);
    expect(hit[0]!.file).toBe("R0.md");
  });

  it("keeps the loader's duplicate_anchor (same file and across files)", async () => {
    const found = await lintMd("## A\nx\n## A\ny\n", "## B\nz\n## A\nw\n");
    expect(withCode(found, "duplicate_anchor").map((f) => [f.file, f.line])).toEqual([
      ["R0.md", 3],
      ["R1.md", 3],
    ]);
  });

  it("warns about anchors that differ only in case, across files", async () => {
    const found = await lintMd("## Rig notes\nx\n", "## Rig Notes\ny\n");
    const hit = withCode(found, "anchor_case_collision");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.file).toBe("R1.md");
    expect(hit[0]!.message).toContain("R0.md:1");
  });

  it("ignores headings inside fences", async () => {
    expect(codes(await lintMd("## A\n```\n## a\n```\n"))).toEqual([]);
  });
});
