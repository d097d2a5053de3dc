import fs from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runPaths, type DccPathsReport } from "../../src/cli/paths-command.js";
import { makeTempDir } from "../e2e/harness.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const EXAMPLE = path.join(ROOT, "skills-example");

async function run(argv: string[], env: Record<string, string> = {}) {
  const tmp = await makeTempDir();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await runPaths(argv, { stdout, stderr, env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: tmp, ...env }, cwd: tmp });
  return { code, out, err, tmp };
}

async function brokenRoot(): Promise<string> {
  const root = await makeTempDir();
  await fs.mkdir(path.join(root, "legacy"));
  await fs.writeFile(path.join(root, "legacy/SKILL.md"), "---\nname: legacy\ndcc: maya\n---\n");
  await fs.mkdir(path.join(root, "bad-yaml"));
  await fs.writeFile(path.join(root, "bad-yaml/SKILL.md"), "---\nname: bad-yaml\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: r.yaml\n---\n");
  await fs.writeFile(path.join(root, "bad-yaml/r.yaml"), "recipes: [ {name: x\n");
  return root;
}

describe("recipe-server paths", () => {
  it("lists roots in priority order with what each gives, and the top diagnostics, errors first", async () => {
    const broken = await brokenRoot();
    const { code, out, tmp } = await run(["--dcc", "maya", "--skills-path", EXAMPLE, "--skills-path", "typo", "--skills-path", broken]);
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toBe("maya: skill roots, searched in this order (a skill name found earlier wins)");
    expect(lines[1]).toBe(`  1. ${EXAMPLE}  [found]  2 skills, 13 recipes`);
    expect(lines[2]).toBe(`  2. ${path.join(tmp, "typo")}  [missing]`);
    expect(lines[3]).toMatch(new RegExp(`^  3\\. ${broken}  \\[found\\]  \\d+ skills, 0 recipes$`));
    expect(out).toContain("non_spec_top_level_keys  legacy SKILL.md:");
    expect(out).toContain("yaml_parse_error");
    const severities = lines.filter((l) => /^ {4}(error|warning)/.test(l)).map((l) => l.trim().split(" ")[0]);
    expect(severities).toEqual([...severities].sort());
  });

  it("answers JSON with --format json and cuts diagnostics at --top", async () => {
    const broken = await brokenRoot();
    const { code, out } = await run(["--dcc", "maya", "--dcc", "houdini", "--skills-path", broken, "--format", "json", "--top", "1"]);
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { dccs: DccPathsReport[] };
    expect(parsed.dccs.map((d) => d.dcc)).toEqual(["maya", "houdini"]);
    const maya = parsed.dccs[0]!;
    expect(maya.roots).toEqual([{ index: 0, path: broken, state: "found", skills: expect.any(Number), recipes: 0 }]);
    expect(maya.diagnostics.top).toHaveLength(1);
    expect(maya.diagnostics.errors + maya.diagnostics.warnings).toBeGreaterThan(1);
    expect(maya.diagnostics.top[0]?.severity).toBe("error");
  });

  it("takes its roots from a config file like the server", async () => {
    const dir = await makeTempDir();
    const file = path.join(dir, "rs.yaml");
    await fs.writeFile(file, `dcc: houdini\nskills-path: [${JSON.stringify(EXAMPLE)}]\n`);
    const { code, out } = await run(["--config", file]);
    expect(code).toBe(0);
    expect(out).toContain(`houdini: skill roots`);
    expect(out).toContain(`1. ${EXAMPLE}  [found]  2 skills, 12 recipes`);
  });

  it.each([
    [["--dcc", "maya", "--format", "xml"], /--format must be text or json/],
    [["--dcc", "maya", "--top"], /--top needs a value/],
    [["--dcc", "maya", "--top", "-3"], /--top must be an integer/],
    [[], /--dcc is required/],
    [["--dcc", "maya", "--bogus"], /bogus/],
  ])("exits 2 with one line for %j", async (argv, pattern) => {
    const { code, err, out } = await run(argv as string[]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toMatch(/^recipe-server paths: /);
    expect(err).toMatch(pattern);
    expect(err.trim().split("\n")).toHaveLength(1);
  });

  it("keeps terminal escapes in pack files out of the text report", async () => {
    const root = await makeTempDir();
    await fs.mkdir(path.join(root, "esc"));
    await fs.writeFile(path.join(root, "esc/SKILL.md"), "---\nname: \"esc\\u001b[2Jape\"\ndcc: maya\n---\n");
    const { out } = await run(["--dcc", "maya", "--skills-path", root]);
    expect(out).not.toContain("\u001b");
  });
});
