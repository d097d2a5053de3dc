import { PassThrough } from "node:stream";
import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runPaths, type DccPathsReport } from "../../src/cli/paths-command.js";
import { makeTempDir } from "../e2e/harness.js";
import { startDccDouble, startSilentEndpoint } from "../e2e/dcc-double.js";

async function paths(argv: string[]): Promise<{ code: number; out: string }> {
  const tmp = await makeTempDir();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  try {
    const code = await runPaths(argv, { stdout, stderr: new PassThrough(), env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: tmp }, cwd: tmp });
    return { code, out };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

describe("recipe-server paths: which DCCs can run recipes", () => {
  it("says per DCC whether it runs recipes and whether its endpoint answers now", async () => {
    const dcc = await startDccDouble({ era: "2025" });
    const hung = await startSilentEndpoint();
    try {
      const argv = ["--dcc", "blender", "--dcc", "maya", "--dcc", "houdini", "--dcc-endpoint", `blender=${dcc.url}`, "--dcc-endpoint", `maya=${hung.url}`];
      const text = await paths(argv);
      expect(text.code).toBe(0);
      expect(text.out).toContain(`runs recipes: yes, on ${dcc.url} (answers; ${dcc.listedTools().length} tools)`);
      expect(text.out).toMatch(new RegExp(`runs recipes: on ${hung.url.replace(/[.]/g, "\\.")}, which does not answer now`));
      expect(text.out).toContain("runs recipes: no (no --dcc-endpoint");
      const json = JSON.parse((await paths([...argv, "--format", "json"])).out) as { dccs: DccPathsReport[] };
      expect(json.dccs.map((d) => d.run?.answers ?? null)).toEqual([true, false, null]);
    } finally {
      await dcc.stop();
      await hung.stop();
    }
  });
});
