import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLint } from "../../src/lint/command.js";
import { goodRecipe, makeTree, pack, skillMd } from "./helpers.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

async function run(argv: string[], cwd: string, opts: { env?: Record<string, string>; isTTY?: boolean } = {}) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runLint(argv, { stdout, stderr, env: opts.env ?? {}, cwd, isTTY: opts.isTTY ?? false });
  return { code, out: stdout.text, err: stderr.text };
}

let dir = "";
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  const warnOnly = { ...goodRecipe(), output_contract: "label" };
  const broken = { ...goodRecipe(), name: "broken", steps: [{ tool: "t", arguments: { x: "${nope}" } }] };
  ({ dir, cleanup } = await makeTree({
    "clean/ok/SKILL.md": skillMd("ok"),
    "clean/ok/RECIPES.yaml": pack(goodRecipe()),
    "warn/w/SKILL.md": skillMd("w"),
    "warn/w/RECIPES.yaml": pack(warnOnly, { ...warnOnly, name: "second" }),
    "bad/b/SKILL.md": skillMd("b"),
    "bad/b/RECIPES.yaml": pack(broken),
    "odd,dir:x/o/SKILL.md": skillMd("o"),
    "odd,dir:x/o/RECIPES.yaml": pack({ ...broken, name: "evil\u001b[31mname" }),
    "nothing/readme.txt": "x",
  }));
});
afterAll(() => cleanup());

describe("runLint usage", () => {
  it("prints help and exits 0", async () => {
    const r = await run(["--help"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain("recipe-server lint [PATH ...]");
  });

  it.each([
    [["--bogus"]],
    [["--format", "xml", "clean"]],
    [["--max-warnings", "-1", "clean"]],
    [["--max-warnings", "lots", "clean"]],
    [["--dcc", "Not A Name"]],
    [["does-not-exist"]],
    [["clean/ok/SKILL.md"]],
    [[]],
  ])("%j is a usage error: one line on stderr, exit 2", async (argv) => {
    const r = await run(argv, dir);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(/^recipe-server lint: /);
  });
});

describe("runLint exit codes and formats", () => {
  it("exits 0 on a clean tree, whether PATH is a root or a skill dir", async () => {
    for (const p of ["clean", "clean/ok"]) {
      const r = await run([p], dir);
      expect(r.code).toBe(0);
      expect(r.out).toContain("✔ no problems (1 skill, 1 recipe");
    }
  });

  it("exits 1 on errors and groups text by file with fixes", async () => {
    const r = await run(["bad"], dir);
    expect(r.code).toBe(1);
    expect(r.out.startsWith("bad/b/RECIPES.yaml\n")).toBe(true);
    expect(r.out).toMatch(/\n {2}\d+:\d+ +error {2}.*placeholder_undeclared\n {4,}fix: /);
    expect(r.out).toContain("✖ 3 problems (1 error, 2 warnings)");
  });

  it("exits 0 on warnings unless --max-warnings is exceeded", async () => {
    expect((await run(["warn"], dir)).code).toBe(0);
    expect((await run(["warn", "--max-warnings", "2"], dir)).code).toBe(0);
    const over = await run(["warn", "--max-warnings", "1"], dir);
    expect(over.code).toBe(1);
    expect(over.err).toContain("2 warnings exceed --max-warnings 1");
  });

  it("--format json prints one object per finding", async () => {
    const r = await run(["bad", "warn", "--format", "json"], dir);
    const parsed = JSON.parse(r.out) as Array<Record<string, unknown>>;
    expect(parsed.map((f) => f["code"]).sort()).toEqual(
      ["contract_legacy_label", "contract_legacy_label", "input_unused", "input_unused", "placeholder_undeclared"].sort(),
    );
    expect(r.out.trim().split("\n")).toHaveLength(parsed.length + 2);
    expect(parsed[0]).toMatchObject({ skill: "b", file: "RECIPES.yaml", path: "bad/b/RECIPES.yaml" });
    expect(Object.keys(parsed[0]!)).toEqual(expect.arrayContaining(["code", "severity", "line", "column", "message", "fix"]));
    expect((await run(["clean", "--format", "json"], dir)).out).toBe("[]\n");
  });

  it("--format github prints escaped workflow annotations", async () => {
    const r = await run(["odd,dir:x", "--format", "github"], dir);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split("\n");
    expect(lines.length).toBe(3);
    const err = lines.find((l) => l.startsWith("::error "))!;
    expect(err).toMatch(/^::error file=odd%2Cdir%3Ax\/o\/RECIPES\.yaml,line=\d+,col=\d+,title=recipe-lint placeholder_undeclared::/);
    expect(err).toContain("%0AFix: ");
  });

  it("colours only on a TTY, and never with --no-color or NO_COLOR", async () => {
    expect((await run(["bad"], dir, { isTTY: true })).out).toContain("\u001b[31m");
    expect((await run(["bad", "--no-color"], dir, { isTTY: true })).out).not.toContain("\u001b[");
    expect((await run(["bad"], dir, { isTTY: true, env: { NO_COLOR: "1" } })).out).not.toContain("\u001b[");
    expect((await run(["bad"], dir)).out).not.toContain("\u001b[");
  });

  it("escapes control characters from pack text instead of writing them to the terminal", async () => {
    const r = await run(["odd,dir:x"], dir);
    expect(r.out).not.toContain("\u001b");
    expect(r.out).toContain("evil\\u001b[31mname");
  });

  it("reports a PATH without skills as an error", async () => {
    const r = await run(["nothing"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("no_skills_found");
  });
});

describe("runLint --dcc", () => {
  it("lints the configured skill roots of the DCC", async () => {
    const env = { DCC_MCP_MAYA_SKILL_PATHS: `${dir}/bad`, DCC_MCP_SKILL_PATHS: `${dir}/clean`, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" };
    const r = await run(["--dcc", "maya", "--format", "json"], dir, { env });
    expect(r.code).toBe(1);
    const paths = (JSON.parse(r.out) as Array<{ path: string }>).map((f) => f.path);
    expect(new Set(paths)).toEqual(new Set(["bad/b/RECIPES.yaml"]));
    // RECIPE_SERVER_DCC stands in for --dcc.
    expect((await run([], dir, { env: { ...env, RECIPE_SERVER_DCC: "maya" } })).code).toBe(1);
  });

  it("exits 1 with a note when the configured roots hold no skills", async () => {
    const r = await run(["--dcc", "houdini"], dir, { env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", HOME: dir } });
    expect(r.code).toBe(1);
    expect(r.err).toContain("no skills found in the skill roots of --dcc houdini");
  });
});

describe("runLint concurrency", () => {
  it("gives identical output for concurrent runs over one tree", async () => {
    const runs = await Promise.all(Array.from({ length: 8 }, () => run(["bad", "warn", "clean", "--format", "json"], dir)));
    for (const r of runs) expect(r.out).toBe(runs[0]!.out);
  });
});

const realSkills = REAL_SKILLS;
const NEWER = ["dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills", "dcc-mcp-maya@aa6ca922/src/dcc_mcp_maya/skills"];
const hasNewer = NEWER.every((r) => requireShared(path.join(realSkills, r), "the real-pack lint exit-code test"));

describe.skipIf(!hasNewer)("recipe-server lint on the packs dcc-mcp-core serves and their authors consider correct", () => {
  it.each(NEWER)("exits 0 with no problem on %s, even with --max-warnings 0", async (root) => {
    const r = await run([root, "--max-warnings", "0"], realSkills);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("no problems");
  });
});
