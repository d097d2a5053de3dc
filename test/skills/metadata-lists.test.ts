import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSkill } from "../../src/skills/discover.js";
import { mergeDependsText, promptList, stringList } from "../../src/skills/metadata-lists.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

const femDir = path.join(REAL_SKILLS, "dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills/freecad-fem-review");
const hasFem = requireShared(femDir, "the real metadata/depends.md test");

describe("mergeDependsText (core's merge_depends_from_metadata)", () => {
  it("appends list items and bare slugs once, skipping headings, prose and blank lines", () => {
    const text = "# Depends\n\n- freecad-analysis\n* mesh-tools\nfreecad-analysis\nOptional\nsome prose here\n- Not_A_Slug\n- a--b\n";
    expect(mergeDependsText(["freecad-analysis"], text)).toEqual(["freecad-analysis", "mesh-tools"]);
  });

  it("ignores names longer than 64 characters and tolerates CRLF", () => {
    expect(mergeDependsText([], `- ${"a".repeat(65)}\r\n- ok-1\r\n`)).toEqual(["ok-1"]);
  });

  it.skipIf(!hasFem)("freecad-fem-review: depends.md repeats freecad-analysis, which stays listed once", async () => {
    const { skill } = await loadSkill(femDir, path.dirname(femDir), 0);
    expect(skill?.depends).toEqual(["freecad-analysis"]);
  });

  it("loadSkill merges a skill's metadata/depends.md, and a missing or non-UTF-8 one changes nothing", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "depends-"));
    try {
      const skillDir = path.join(dir, "s");
      await mkdir(path.join(skillDir, "metadata"), { recursive: true });
      await writeFile(path.join(skillDir, "SKILL.md"), "---\nname: s\nmetadata:\n  dcc-mcp:\n    depends: [a]\n---\n");
      expect((await loadSkill(skillDir, dir, 0)).skill?.depends).toEqual(["a"]);
      await writeFile(path.join(skillDir, "metadata", "depends.md"), "- b\n- a\n");
      expect((await loadSkill(skillDir, dir, 0)).skill?.depends).toEqual(["a", "b"]);
      await writeFile(path.join(skillDir, "metadata", "depends.md"), Buffer.from([0x2d, 0x20, 0xff, 0xfe]));
      expect((await loadSkill(skillDir, dir, 0)).skill?.depends).toEqual(["a"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("list values", () => {
  it("stringList splits commas; promptList keeps one string as one prompt", () => {
    const warn = (): void => undefined;
    expect(stringList("a, b,,c", "k", warn)).toEqual(["a", "b", "c"]);
    expect(promptList("Make it, bigger", "k", warn)).toEqual(["Make it, bigger"]);
    expect(promptList(["  p  ", ""], "k", warn)).toEqual(["p"]);
  });
});
