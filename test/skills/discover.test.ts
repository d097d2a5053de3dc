import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverSkills, loadSkill } from "../../src/skills/discover.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

let tmp = "";
const skillMd = (name: string, extra = "") => `---\nname: ${name}\ndescription: d\n${extra}---\nbody\n`;

async function skill(dir: string, text: string | Buffer): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "SKILL.md"), text);
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "discover-"));
  // root A: two skills, one duplicate name across roots, one reserved, one invalid
  await skill(path.join(tmp, "A", "zeta"), skillMd("zeta"));
  await skill(path.join(tmp, "A", "alpha"), skillMd("alpha"));
  await skill(path.join(tmp, "A", "priv"), skillMd("private"));
  await skill(path.join(tmp, "A", "legacy"), "---\nname: legacy\ndcc: maya\n---\n");
  await skill(path.join(tmp, "A", "nofm"), "# no frontmatter\n");
  await skill(path.join(tmp, "A", "latin1"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]));
  await skill(path.join(tmp, "A", "huge"), skillMd("huge") + "x".repeat(1024 * 1024));
  await skill(path.join(tmp, "A", "empty"), "");
  await skill(path.join(tmp, "A", "crlf"), "\uFEFF---\r\nname: ''\r\n---\r\n");
  await mkdir(path.join(tmp, "A", "not-a-skill", "nested"), { recursive: true });
  await skill(path.join(tmp, "A", "not-a-skill", "nested", "deep"), skillMd("deep"));
  await writeFile(path.join(tmp, "A", "loose-file.md"), "x");
  // root B: a duplicate of alpha, and its own skill
  await skill(path.join(tmp, "B", "alpha-copy"), skillMd("alpha"));
  await skill(path.join(tmp, "B", "beta"), skillMd("beta"));
  // root C is itself a skill
  await skill(path.join(tmp, "C"), skillMd("root-skill"));
  await skill(path.join(tmp, "C", "child"), skillMd("child-ignored"));
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

describe("discoverSkills", () => {
  it("finds skills one level deep in root order, first root wins, bad ones reported", async () => {
    const debug: string[] = [];
    const logger = { debug: (_o: Record<string, unknown>, msg: string) => void debug.push(msg) };
    const roots = ["A", "missing", "B", "C"].map((r) => path.join(tmp, r));
    const { skills, diagnostics } = await discoverSkills(roots, { logger });

    expect(skills.map((s) => [s.name, s.rootIndex])).toEqual([
      ["alpha", 0],
      ["crlf", 0],
      ["zeta", 0],
      ["beta", 2],
      ["root-skill", 3],
    ]);
    expect(skills[0]!.dir).toBe(path.join(tmp, "A", "alpha"));
    expect(skills[0]!.root).toBe(path.join(tmp, "A"));
    expect(debug).toHaveLength(1);

    const byCode = Object.fromEntries(diagnostics.map((d) => [d.skill ?? "", d.code]));
    expect(byCode).toMatchObject({
      private: "reserved_skill_name",
      legacy: "non_spec_top_level_keys",
      nofm: "frontmatter_missing",
      latin1: "not_utf8",
      huge: "file_too_large",
      empty: "frontmatter_missing",
      alpha: "duplicate_skill",
    });
    const dup = diagnostics.find((d) => d.code === "duplicate_skill")!;
    expect(dup.severity).toBe("warning");
    expect(dup.message).toMatch(/root #2.*root #0/);
    for (const d of diagnostics) expect(d.message).not.toContain(tmp);
  });

  it("is deterministic", async () => {
    const roots = ["A", "B"].map((r) => path.join(tmp, r));
    const a = await discoverSkills(roots);
    const b = await discoverSkills(roots);
    expect(b.skills.map((s) => s.dir)).toEqual(a.skills.map((s) => s.dir));
    expect(b.diagnostics).toEqual(a.diagnostics);
  });

  it("returns frozen skills", async () => {
    const { skills } = await discoverSkills([path.join(tmp, "B")]);
    expect(Object.isFrozen(skills[0])).toBe(true);
    expect(Object.isFrozen(skills[0]!.tags)).toBe(true);
    expect(Object.isFrozen(skills[0]!.metadata)).toBe(true);
  });

  it("loadSkill reads one directory, and a vanished one is a diagnostic", async () => {
    const one = await loadSkill(path.join(tmp, "B", "beta"), path.join(tmp, "B"), 1);
    expect(one.skill?.name).toBe("beta");
    expect(one.skill?.rootIndex).toBe(1);
    const gone = await loadSkill(path.join(tmp, "B", "gone"), path.join(tmp, "B"), 1);
    expect(gone.skill).toBeNull();
    expect(gone.diagnostics[0]!.code).toBe("file_unreadable");
    expect(gone.diagnostics[0]!.message).not.toContain(tmp);
  });

  it("no roots, or only missing ones, is an empty result", async () => {
    expect(await discoverSkills([])).toEqual({ skills: [], diagnostics: [] });
    expect(await discoverSkills([path.join(tmp, "nope"), path.join(tmp, "A", "loose-file.md")])).toEqual({ skills: [], diagnostics: [] });
  });
});

const realRoot = REAL_SKILLS;
const hasReal = requireShared(realRoot, "real discovery tests");

describe.skipIf(!hasReal)("discover the real skill trees", () => {
  it("current maya skills win over the legacy copy; the legacy one is refused", async () => {
    const roots = [
      path.join(realRoot, "dcc-mcp-maya@legacy-version/src/dcc_mcp_maya/skills"),
      path.join(realRoot, "dcc-mcp-maya/src/dcc_mcp_maya/skills"),
      path.join(realRoot, "dcc-mcp-core/skills"),
      path.join(realRoot, "dcc-pipeline-publish/skill"),
      path.join(realRoot, "dcc-mcp-freecad/src/dcc_mcp_freecad/skills"),
    ];
    const { skills, diagnostics } = await discoverSkills(roots);
    expect(skills.map((s) => s.name)).toEqual([
      "maya-geometry",
      "maya-mesh-ops",
      "maya-scripting",
      "mesh-ops",
      "pipeline-publish",
      "freecad-fem-review",
    ]);
    expect(diagnostics.map((d) => [d.code, d.skill])).toEqual([["non_spec_top_level_keys", "maya-mesh-ops"]]);
    expect(diagnostics[0]!.message).toMatch(/dcc, version, tags/);
  });
});

describe("regression: skill names that would break recipe ids", () => {
  it.each([["g/../x"], ["a/b"], ["back\\\\slash"], [".."], ["tab\there"]])("refuses %j with invalid_skill_name", async (name) => {
    const { mkdtemp, mkdir, writeFile, rm } = await import("node:fs/promises");
    const os = await import("node:os");
    const path = await import("node:path");
    const root = await mkdtemp(path.join(os.tmpdir(), "skill-names-"));
    try {
      await mkdir(path.join(root, "bad"));
      await writeFile(path.join(root, "bad", "SKILL.md"), `---\nname: ${JSON.stringify(name)}\ndescription: x\n---\n`);
      await mkdir(path.join(root, "good"));
      await writeFile(path.join(root, "good", "SKILL.md"), "---\nname: good\ndescription: x\n---\n");
      const { discoverSkills } = await import("../../src/skills/discover.js");
      const found = await discoverSkills([root]);
      expect(found.skills.map((s) => s.name)).toEqual(["good"]);
      expect(found.diagnostics.map((d) => d.code)).toContain("invalid_skill_name");
      expect(JSON.stringify(found.diagnostics)).not.toContain(root);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
