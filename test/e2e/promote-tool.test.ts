/**
 * The `recipe` tool's action=promote against the real daemon (SDK clients,
 * real files, real chokidar): off unless the daemon runs with
 * --allow-promote; with it, an agent's playbook becomes a public recipe that
 * recipes__search finds after the hot reload, lint clean; concurrent
 * promotes of one playbook leave one file; hostile targets are refused
 * without a host path in the answer.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecipeServer } from "../../src/compose/app.js";
import { lintRoots } from "../../src/lint/engine.js";
import { call, connect, EXPOSURE_PLAYBOOK, makeTempDir, skillMd, startDaemonIn, until, writeTree, type ToolAnswer } from "./harness.js";

const PLAYBOOK = EXPOSURE_PLAYBOOK;

function expectNoHostPaths(answer: ToolAnswer, tmp: string): void {
  const text = JSON.stringify(answer.raw);
  expect(text).not.toContain(tmp);
  expect(text).not.toContain(os.tmpdir());
}

describe("recipe action=promote, end to end", () => {
  let tmp = "";
  let skills = "";
  let server: RecipeServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    tmp = await makeTempDir("promote-tool-e2e-");
    skills = path.join(tmp, "skills");
    await writeTree(skills, {
      "lookdev/SKILL.md": skillMd("lookdev", "maya", "recipes/*.md"),
      "lookdev/recipes/turntable.md": "## Turntable render\n\nRender a turntable of the asset.\n",
    });
    const daemon = await startDaemonIn(tmp, ["--dcc", "maya", "--skills-path", skills, "--allow-promote"]);
    server = daemon.server;
    for (let i = 0; i < 2; i++) clients.push(await connect(daemon.url, "/mcp/maya"));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("lists the action, and a promoted playbook is found by recipes__search after the reload, lint clean", async () => {
    const [client] = clients as [Client];
    const { tools } = await client.listTools();
    const recipe = tools.find((t) => t.name === "recipe")!;
    expect((recipe.inputSchema.properties as { action: { enum: string[] } }).action.enum).toContain("promote");

    const created = await call(client, "recipe", PLAYBOOK);
    expect(created.success, created.message).toBe(true);
    const id = created.context.recipeId as string;
    const promoted = await call(client, "recipe", { action: "promote", recipeId: id, skill: "lookdev" });
    expect(promoted.success, promoted.message).toBe(true);
    expect(promoted.context).toMatchObject({ promotedTo: "lookdev/Calibrate hero shader exposure", file: "lookdev/recipes/calibrate-hero-shader-exposure.md", revision: 1 });
    expectNoHostPaths(promoted, tmp);

    const publicId = "lookdev/Calibrate hero shader exposure";
    await until(async () => {
      const hits = (await call(client, "recipes__search", { query: "calibrate hero shader exposure grey card", limit: 10 })).context.recipes as Array<{ recipeId: string }>;
      return hits.some((h) => h.recipeId === publicId);
    }, { timeoutMs: 20_000, stepMs: 50 });
    const got = await call(client, "recipes__get", { skill: "lookdev", anchor: "Calibrate hero shader exposure" });
    expect(got.success, got.message).toBe(true);
    expect(JSON.stringify(got.context)).toContain(`<!-- promoted from ${id} revision 1 -->`);
    const lint = await lintRoots([skills], { cwd: skills, requireSkills: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("concurrent promotes of one playbook from two clients: one wins, the others are conflicts, the file is the winner's", async () => {
    const created = await call(clients[0]!, "recipe", { ...PLAYBOOK, title: "Bake turntable lights", summary: "Bake the turntable light rig for quick previews." });
    expect(created.success, created.message).toBe(true);
    const id = created.context.recipeId as string;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(clients[i % 2]!, "recipe", { action: "promote", recipeId: id, skill: "lookdev" })),
    );
    expect(answers.filter((a) => a.success)).toHaveLength(1);
    for (const loser of answers.filter((a) => !a.success)) {
      expect(loser.error, loser.message).toBe("conflict");
      expectNoHostPaths(loser, tmp);
    }
    const text = await fs.readFile(path.join(skills, "lookdev", "recipes", `${id.slice("private/".length)}.md`), "utf8");
    expect(text).toMatch(/^## Bake turntable lights\n/);
    expect((await fs.readdir(path.join(skills, "lookdev", "recipes"))).filter((f) => f.startsWith("."))).toEqual([]);
  });

  it("hostile targets are refused and name no host path", async () => {
    const created = await call(clients[0]!, "recipe", { ...PLAYBOOK, title: "Hostile target probe" });
    const id = created.context.recipeId as string;
    const outside = path.join(tmp, "outside");
    await writeTree(outside, { "evil/SKILL.md": skillMd("evil", "maya", "recipes/*.md") });
    for (const skill of [path.join(skills, "lookdev"), path.join(outside, "evil"), "../lookdev", "lookdev/../../outside/evil"]) {
      const answer = await call(clients[0]!, "recipe", { action: "promote", recipeId: id, skill });
      expect(answer.error, skill).toBe("invalid_input");
      expectNoHostPaths(answer, tmp);
    }
    for (const skill of ["..", "evil"]) {
      const answer = await call(clients[0]!, "recipe", { action: "promote", recipeId: id, skill });
      expect(answer.error, skill).toBe("not_found");
      expectNoHostPaths(answer, tmp);
    }
    await expect(fs.readdir(path.join(outside, "evil"))).resolves.toEqual(["SKILL.md"]);
  });
});

describe("recipe action=promote is off by default", () => {
  it("neither listed nor accepted, and nothing is written", async () => {
    const tmp = await makeTempDir("promote-off-e2e-");
    const skills = path.join(tmp, "skills");
    await writeTree(skills, { "lookdev/SKILL.md": skillMd("lookdev", "maya", "recipes/*.md") });
    const daemon = await startDaemonIn(tmp, ["--dcc", "maya", "--skills-path", skills, "--no-watch"]);
    const client = await connect(daemon.url, "/mcp/maya");
    try {
      const { tools } = await client.listTools();
      const recipe = tools.find((t) => t.name === "recipe")!;
      expect((recipe.inputSchema.properties as { action: { enum: string[] } }).action.enum).not.toContain("promote");
      expect(recipe.description).not.toContain("promote");
      const created = await call(client, "recipe", PLAYBOOK);
      const answer = await call(client, "recipe", { action: "promote", recipeId: created.context.recipeId, skill: "lookdev" });
      expect(answer.error).toBe("invalid_input");
      expect(answer.message).toContain("$.action");
      await expect(fs.readdir(path.join(skills, "lookdev"))).resolves.toEqual(["SKILL.md"]);
    } finally {
      await client.close();
      await daemon.server.stop();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });
});
