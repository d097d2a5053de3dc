import { symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverForLint, lintRoots } from "../../src/lint/engine.js";
import { discoverSkills } from "../../src/skills/discover.js";
import { goodRecipe, lintTree, makeTree, pack, repoRoot, skillMd, withCode } from "./helpers.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

const realDir = REAL_SKILLS;
const hasReal = requireShared(realDir, "real-skills lint tests");

const REAL_ROOTS = [
  "dcc-mcp-core/skills",
  "dcc-mcp-freecad/src/dcc_mcp_freecad/skills",
  "dcc-mcp-maya/src/dcc_mcp_maya/skills",
  "dcc-mcp-maya@legacy-version/src/dcc_mcp_maya/skills",
  "dcc-pipeline-publish/skill",
];

describe.skipIf(!hasReal)("real skill packs", () => {
  it("finds what the server finds", async () => {
    const roots = REAL_ROOTS.map((r) => path.join(realDir, r));
    const mine = await discoverForLint(roots);
    const server = await discoverSkills(roots);
    expect(mine.skills.map((s) => s.name)).toEqual(server.skills.map((s) => s.name));
    expect(mine.diagnostics.flatMap((d) => d.diagnostics)).toEqual(server.diagnostics);
  });

  it("reports exactly the findings judged right, and no false alarms", async () => {
    const { findings, stats } = await lintRoots(REAL_ROOTS, { cwd: realDir, requireSkills: true });
    expect(stats).toMatchObject({ skills: 6, recipes: 43 });
    const fem = "dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review/RECIPES.yaml";
    // The older fem-review names fem_result.document_path without declaring it: its authors added the
    // declaration in e9a1209a, so that one stays an error. The legacy SKILL.md is core's own negative example.
    expect(findings.map((f) => [f.path, f.line, f.code])).toEqual([
      [fem, 188, "placeholder_undeclared"],
      ["dcc-mcp-maya@legacy-version/src/dcc_mcp_maya/skills/maya-mesh-ops/SKILL.md", 4, "non_spec_top_level_keys"],
    ]);
  });

  it.each([
    "dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills",
    "dcc-mcp-maya@aa6ca922/src/dcc_mcp_maya/skills",
  ])("no false alarms on the newer pack %s (optional placeholders, final report step, *_uuid receipts)", async (root) => {
    const { findings, stats } = await lintRoots([root], { cwd: realDir, requireSkills: true });
    expect(stats.recipes).toBeGreaterThan(0);
    expect(findings).toEqual([]);
  });

  it("flags the legacy SKILL.md with the block to write instead", async () => {
    const { findings } = await lintRoots([REAL_ROOTS[3]!], { cwd: realDir, requireSkills: true });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.fix).toBe(
      "move dcc, version, tags under metadata.dcc-mcp: metadata: {dcc-mcp: {dcc: maya, version: 1.0.0, tags: [maya, mesh, polygon, geometry, topology]}}",
    );
  });
});

describe("discovery parity", () => {
  it("reports a shadowed skill in the server's words", async () => {
    const { dir, cleanup } = await makeTree({ "A/x/SKILL.md": skillMd("same", []), "B/y/SKILL.md": skillMd("same", []), "B/z/SKILL.md": "nope" });
    try {
      const roots = [path.join(dir, "A"), path.join(dir, "B")];
      const mine = await discoverForLint(roots);
      const server = await discoverSkills(roots);
      expect(mine.diagnostics.flatMap((d) => d.diagnostics)).toEqual(server.diagnostics);
      expect(mine.skills.map((s) => s.dir)).toEqual(server.skills.map((s) => s.dir));
    } finally {
      await cleanup();
    }
  });
});

describe("skills-example", () => {
  it("has no errors; its one warning is the legacy label kept on purpose", async () => {
    const { findings, stats } = await lintRoots(["skills-example"], { cwd: repoRoot, requireSkills: true });
    expect(stats.skills).toBe(4);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    for (const f of findings) expect([f.path, f.code]).toEqual(["skills-example/scene-qa/qa.yaml", "contract_legacy_label"]);
  });
});

describe("suppressions", () => {
  it("silences a lint rule on the next line or file-wide, never a loader diagnostic", async () => {
    const text = pack(
      { ...goodRecipe(), name: "a", output_contract: "label a" },
      { ...goodRecipe(), name: "b", output_contract: "label b" },
      { ...goodRecipe(), name: "a" },
    );
    const lines = text.split("\n");
    const labelA = lines.findIndex((l) => l.includes("label a"));
    lines.splice(labelA, 0, "    # recipe-lint-disable-next-line contract_legacy_label", "    # (kept from v1)");
    const suppressed = lines.join("\n") + "# recipe-lint-disable duplicate_recipe, input_unused\n";
    const { findings, stats } = await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": suppressed });
    expect(findings.map((f) => [f.code, f.message.includes('"b"')])).toEqual([
      ["contract_legacy_label", true],
      ["duplicate_recipe", false],
    ]);
    expect(stats.suppressed).toBe(1);
  });

  it("works in Markdown with an HTML comment", async () => {
    const { findings } = await lintTree({
      "s/SKILL.md": skillMd("s", "R.md"),
      "s/R.md": "## A\n\n<!-- recipe-lint-disable-next-line anchor_empty -->\n## Placeholder\n\n## B\n",
    });
    expect(findings.map((f) => [f.code, f.line])).toEqual([["anchor_empty", 6]]);
  });
});

describe("hostile and malformed input", () => {
  it("reports an oversized pack and a non-UTF-8 pack instead of reading them", async () => {
    const { findings } = await lintTree({
      "s/SKILL.md": skillMd("s", ["big.yaml", "bin.yaml"]),
      "s/big.yaml": `recipes: []\n#${"x".repeat(1024 * 1024)}\n`,
      "s/bin.yaml": Buffer.from([0x72, 0x3a, 0xff, 0xfe, 0x0a]),
    });
    expect(findings.map((f) => [f.file, f.code])).toEqual([
      ["big.yaml", "file_too_large"],
      ["bin.yaml", "not_utf8"],
    ]);
  });

  it("refuses a recipe path that escapes through a symlink, naming no host path", async () => {
    const { dir, cleanup } = await makeTree({ "outside.yaml": pack(goodRecipe()), "root/s/SKILL.md": skillMd("s", "link.yaml") });
    try {
      await symlink(path.join(dir, "outside.yaml"), path.join(dir, "root/s/link.yaml"));
      const { findings } = await lintRoots(["root"], { cwd: dir, requireSkills: true });
      expect(findings.map((f) => f.code)).toEqual(["recipe_path_escapes"]);
      expect(JSON.stringify(findings)).not.toContain(dir);
    } finally {
      await cleanup();
    }
  });

  it("survives a billion-laughs pack and a deeply nested schema", async () => {
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`);
    let deep: unknown = { type: "string" };
    // 400 levels: far past the schema limit (128), within a pack's own (MAX_YAML_DEPTH).
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { n: deep } };
    const { findings } = await lintTree({
      "s/SKILL.md": skillMd("s", ["laughs.yaml", "deep.yaml"]),
      "s/laughs.yaml": `${laughs.join("\n")}\nrecipes: []\n`,
      "s/deep.yaml": pack({ ...goodRecipe(), inputs_schema: deep, steps: [] }),
    });
    expect(withCode(findings, "yaml_alias_limit")).toHaveLength(1);
    expect(withCode(findings, "schema_fails_closed")).toHaveLength(1);
  });

  it("lints many skills concurrently with stable, sorted output", async () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 60; i++) {
      tree[`s${i}/SKILL.md`] = skillMd(`s${i}`);
      tree[`s${i}/RECIPES.yaml`] = pack({ ...goodRecipe(), name: `r${i}`, output_contract: "label" });
    }
    const a = await lintTree(tree);
    expect(a.findings).toHaveLength(60);
    const paths = a.findings.map((f) => f.path);
    expect(paths).toEqual([...paths].sort());
  });
});
