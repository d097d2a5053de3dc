/**
 * `recipe-server promote --store postgres://…`: the playbook is read from the
 * PostgreSQL store the server uses, revisions included.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { runPromote } from "../../src/cli/promote-command.js";
import { openStores } from "../../src/recipes/store/open-store.js";
import { sharedPostgres } from "../postgres.js";
import { makeTempDir, skillMd, writeTree } from "../e2e/harness.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`promote from the PostgreSQL store skipped: ${cluster}`);

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => fs.rm(t, { recursive: true, force: true })));
});

describe.skipIf(typeof cluster === "string")("recipe-server promote --store (PostgreSQL)", () => {
  it("promotes the latest revision and, with --revision, an older one", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const tmp = await makeTempDir("promote-pg-");
    temps.push(tmp);
    const root = path.join(tmp, "skills");
    await writeTree(root, { "rig/SKILL.md": skillMd("rig", "maya", "recipes/*.md") });
    const stores = openStores({ dcc: "maya", privateDir: path.join(tmp, "private"), usageFile: path.join(tmp, "usage.json"), storeUrl: url });
    expect(await stores.store.startupProblem()).toBeNull();
    const created = await stores.store.create({ title: "Retarget mocap", summary: "first", whenToUse: "", steps: [], acceptanceCriteria: [], document: "v1" });
    expect(created.ok, created.ok ? "" : created.message).toBe(true);
    expect((await stores.store.update("retarget-mocap", { title: "Retarget mocap clips", document: "v2" })).ok).toBe(true);
    await stores.close();

    const run = async (args: string[]): Promise<{ code: number; out: string; err: string }> => {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = "";
      let err = "";
      stdout.on("data", (d: Buffer) => (out += d.toString()));
      stderr.on("data", (d: Buffer) => (err += d.toString()));
      const code = await runPromote([...args, "--to", path.join(root, "rig"), "--dcc", "maya", "--store", url, "--skills-path", root], {
        stdout,
        stderr,
        env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data"), HOME: tmp },
        cwd: tmp,
      });
      return { code, out, err };
    };
    const latest = await run(["private/retarget-mocap"]);
    expect(latest.err).toBe("");
    expect(latest.out).toContain("revision 2 to rig/Retarget mocap clips");
    const text = await fs.readFile(path.join(root, "rig/recipes/retarget-mocap.md"), "utf8");
    expect(text).toContain("v2");
    expect(text).toContain("<!-- promoted from private/retarget-mocap revision 2 -->");
    // Revision 1 has the same slug, so the same file name: refused, the promoted file kept.
    const older = await run(["private/retarget-mocap", "--revision", "1"]);
    expect(older.code).toBe(1);
    expect(older.err).toMatch(/exists; promote never overwrites a file/);
    expect(await run(["private/no-such"])).toMatchObject({ code: 1 });
  });
});
