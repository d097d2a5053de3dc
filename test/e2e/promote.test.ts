/**
 * Promotion end to end: an agent creates a playbook through the real daemon's
 * `recipe` tool (SDK client), the TD promotes it with the real command line
 * (a child process, as a TD runs it) into a skill root the daemon watches,
 * and the daemon serves the new public recipe after its hot reload, with the
 * provenance in the recipe; `recipe-server lint` on the skill is clean.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecipeServer } from "../../src/compose/app.js";
import { call, connect, EXPOSURE_PLAYBOOK, until, makeTempDir, REPO_ROOT, skillMd, startDaemonIn, writeTree } from "./harness.js";

const CLI = path.join(REPO_ROOT, "src/cli.ts");

function runCli(args: string[], tmp: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_DATA_HOME: path.join(tmp, "data"), DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

let tmp = "";
let skills = "";
let server: RecipeServer;
let client: Client;

beforeAll(async () => {
  tmp = await makeTempDir("promote-e2e-");
  skills = path.join(tmp, "skills");
  await writeTree(skills, {
    "lookdev/SKILL.md": skillMd("lookdev", "maya", "recipes/*.md"),
    "lookdev/recipes/turntable.md": "## Turntable render\n\nRender a turntable of the asset.\n",
  });
  const daemon = await startDaemonIn(tmp, ["--dcc", "maya", "--skills-path", skills]);
  server = daemon.server;
  client = await connect(daemon.url, "/mcp/maya");
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("recipe-server promote, end to end", () => {
  it("a playbook made through the recipe tool becomes a public recipe the daemon finds after its reload, lint clean", async () => {
    const created = await call(client, "recipe", EXPOSURE_PLAYBOOK);
    expect(created.success, created.message).toBe(true);
    const id = created.context.recipeId as string;
    expect(id).toBe("private/calibrate-hero-shader-exposure");

    const promoted = await runCli(
      ["promote", id, "--to", path.join(skills, "lookdev"), "--dcc", "maya", "--skills-path", skills, "--private-dir", path.join(tmp, "private")],
      tmp,
    );
    expect(promoted.stderr).toBe("");
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toMatch(/^promoted private\/calibrate-hero-shader-exposure revision 1 to lookdev\/Calibrate hero shader exposure \(markdown, /);

    const publicId = "lookdev/Calibrate hero shader exposure";
    let hits: Array<{ recipeId: string; skill: string; format: string; description: string }> = [];
    await until(async () => {
      hits = (await call(client, "recipes__search", { query: "calibrate hero shader exposure grey card", limit: 10 })).context.recipes;
      return hits.some((h) => h.recipeId === publicId);
    }, { timeoutMs: 20_000, stepMs: 50 });
    const hit = hits.find((h) => h.recipeId === publicId)!;
    expect({ skill: hit.skill, format: hit.format, description: hit.description }).toEqual({
      skill: "lookdev",
      format: "markdown",
      description: "Match the hero shader exposure to the studio grey card before lookdev sign-off.",
    });
    // The playbook stays as it was: promotion copies, it does not move.
    const still = await call(client, "recipe", { action: "get", recipeId: id });
    expect(still.success, still.message).toBe(true);

    const got = await call(client, "recipes__get", { skill: "lookdev", anchor: "Calibrate hero shader exposure" });
    expect(got.success, got.message).toBe(true);
    expect(JSON.stringify(got.context)).toContain("<!-- promoted from private/calibrate-hero-shader-exposure revision 1 -->");

    const lint = await runCli(["lint", "--format", "json", path.join(skills, "lookdev")], tmp);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const findings = JSON.parse(lint.stdout) as Array<{ severity: string }>;
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);

    // A second promotion of the same playbook is refused, and the served recipe is unchanged.
    const again = await runCli(
      ["promote", id, "--to", path.join(skills, "lookdev"), "--dcc", "maya", "--skills-path", skills, "--private-dir", path.join(tmp, "private")],
      tmp,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has a recipe "Calibrate hero shader exposure"/);
  });
});
