/**
 * recipes__run end to end: the real daemon on a loopback port, the SDK's
 * real clients of both eras, and a DCC double built with the SDK's own
 * server standing in for the adapter's MCP endpoint.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import { call, connect, until, makeTempDir, skillMd, startServer, writeTree, type RunningServer } from "./harness.js";
import { resetDouble, startDccDouble, startSilentEndpoint, type DccDouble } from "./dcc-double.js";
import { RUN_PACK } from "../recipes/run/fixtures.js";

async function skillsDir(): Promise<string> {
  const dir = await makeTempDir("run-skills-");
  await writeTree(dir, {
    "run-pack/SKILL.md": skillMd("run-pack", "any", "RECIPES.yaml"),
    "run-pack/RECIPES.yaml": RUN_PACK,
    "notes/SKILL.md": skillMd("notes", "blender", "RECIPES.md"),
    "notes/RECIPES.md": "# Notes\n\n## Tidy the scene\nDelete what you do not need.\n",
  });
  return dir;
}

async function modern(url: string, endpoint: string): Promise<ModernClient> {
  const client = new ModernClient({ name: "e2e-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernTransport(new URL(`${url}${endpoint}`)));
  return client;
}

const toolNames = async (client: { listTools(): Promise<{ tools: Array<{ name: string }> }> }): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);

describe("recipes__run against a DCC double", () => {
  let dcc: DccDouble;
  let running: RunningServer;
  let client: Client;
  let skills: string;

  beforeAll(async () => {
    dcc = await startDccDouble({ era: "2025" });
    skills = await skillsDir();
    running = await startServer({ dccs: ["blender", "maya"], skillsPaths: [skills], args: ["--dcc-endpoint", `blender=${dcc.url}`] });
    client = await connect(running.url, "/mcp/blender");
  });
  afterEach(() => resetDouble(dcc));
  afterAll(async () => {
    await client?.close();
    await running?.stop();
    await dcc?.stop();
    await fs.rm(skills, { recursive: true, force: true });
  });

  it("is listed only on the endpoint of a DCC with a --dcc-endpoint, in both eras", async () => {
    expect(await toolNames(client)).toContain("recipes__run");
    const maya = await connect(running.url, "/mcp/maya");
    const modernBlender = await modern(running.url, "/mcp/blender");
    const modernMaya = await modern(running.url, "/mcp/maya");
    try {
      expect(await toolNames(maya)).not.toContain("recipes__run");
      expect(await toolNames(modernBlender)).toContain("recipes__run");
      expect(await toolNames(modernMaya)).not.toContain("recipes__run");
    } finally {
      await Promise.all([maya.close(), modernBlender.close(), modernMaya.close()]);
    }
  });

  it("runs a recipe and answers the run report; progress reaches a client that asked for it", async () => {
    const progress: string[] = [];
    const result = (await client.callTool({ name: "recipes__run", arguments: { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "Box" } } }, undefined, {
      onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`),
    })) as { content: Array<{ text: string }>; isError?: boolean };
    const answer = JSON.parse(result.content[0]!.text);
    expect(answer.success).toBe(true);
    expect(answer.context).toMatchObject({ status: "succeeded", output_valid: true, output_errors: [], receipt: { object_name: "Box", face_count: 10 } });
    expect(answer.context.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.context.steps.map((s: { tool: string; resolved_tool: string; status: string }) => [s.tool, s.resolved_tool, s.status])).toEqual([
      ["mesh_ops__create_primitive", "blender_mesh_ops__create_primitive", "ok"],
      ["mesh_ops__bevel_edges", "blender_mesh_ops__bevel_edges", "ok"],
      ["mesh_ops__get_poly_count", "blender_mesh_ops__get_poly_count", "ok"],
    ]);
    expect(answer.context.steps[1].arguments).toEqual({ object_name: "Box", edge_indices: [0, 1], width: 0.1, segments: 2 });
    expect(progress).toEqual(["1/3 step 0 blender_mesh_ops__create_primitive: ok", "2/3 step 1 blender_mesh_ops__bevel_edges: ok", "3/3 step 2 blender_mesh_ops__get_poly_count: ok"]);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/recipe_server_recipe_runs_total\{dcc="blender",status="succeeded",error=""\} [1-9]/);
    expect(metrics).toMatch(/recipe_server_recipe_run_step_duration_seconds_count\{dcc="blender",status="ok"\} [1-9]/);
  });

  it("refuses invalid inputs naming the field, Markdown anchors, private playbooks and undo: none without confirm; nothing reaches the DCC", async () => {
    const bad = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "", segments: "two" } });
    expect(bad.error).toBe("invalid_input");
    expect(bad.context.errors.join(" ")).toMatch(/segments/);
    const notes = await call(client, "recipes__list", { skill: "notes" });
    const anchorName = notes.context.anchors[0] as string;
    const anchor = await call(client, "recipes__run", { skill: "notes", recipe: anchorName, inputs: {} });
    expect(anchor.error).toBe("invalid_input");
    expect(anchor.message).toMatch(/Markdown anchor/);
    const playbook = await call(client, "recipes__run", { skill: "private", recipe: "my-playbook", inputs: {} });
    expect(playbook.error).toBe("invalid_input");
    const unconfirmed = await call(client, "recipes__run", { skill: "run-pack", recipe: "destroy", inputs: { name: "X" } });
    expect(unconfirmed.error).toBe("invalid_input");
    expect(unconfirmed.message).toMatch(/undo: none.*confirm: true/);
    expect(dcc.calls).toEqual([]);
    const confirmed = await call(client, "recipes__run", { skill: "run-pack", recipe: "destroy", inputs: { name: "X" }, confirm: true });
    expect(confirmed.success).toBe(true);
    expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__delete_object"]);
  });

  it("dry run returns the resolved plan (both eras) and runs nothing", async () => {
    const dry = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "D" }, dryRun: true });
    expect(dry.success).toBe(true);
    expect(dry.context.status).toBe("dry_run");
    expect(dry.context.steps.map((s: { status: string }) => s.status)).toEqual(["not_run", "not_run", "not_run"]);
    expect(dry.context.undo_steps[0]).toMatchObject({ resolved_tool: "blender_mesh_ops__delete_object", arguments: { object_name: "D" } });
    const v2 = await modern(running.url, "/mcp/blender");
    try {
      const result = (await v2.callTool({ name: "recipes__run", arguments: { skill: "run-pack", recipe: "frozen", inputs: {}, dryRun: true } })) as { content: Array<{ text: string }> };
      const answer = JSON.parse(result.content[0]!.text);
      expect(answer.context.steps[0]).toMatchObject({ resolved_tool: "blender_scripting__execute_python", route: "scripting_fallback" });
    } finally {
      await v2.close();
    }
    expect(dcc.calls).toEqual([]);
  });

  it("preflight: a tool the DCC does not list is named with its step; nothing runs", async () => {
    dcc.hooks.missing.add("blender_mesh_ops__get_poly_count");
    // The daemon caches tools/list per connection: a DCC whose list changes says so (list_changed), or restarts.
    await running.server.runners.get("blender")!.close();
    const answer = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "P" } });
    expect(answer.error).toBe("preflight_failed");
    expect(answer.message).toMatch(/steps\[2\] \(mesh_ops__get_poly_count\).*not offered/);
    expect(answer.context.problems[0]).toMatchObject({ step: 2, resolved_tool: "blender_mesh_ops__get_poly_count", problem: "missing_tool" });
    expect(dcc.calls).toEqual([]);
    const noRoute = await call(client, "recipes__run", { skill: "run-pack", recipe: "frozen_no_script", inputs: {} });
    expect(noRoute.error).toBe("preflight_failed");
    expect(noRoute.message).toMatch(/"freeze".*blender_scripting__execute_python/);
    dcc.hooks.missing.clear();
    await running.server.runners.get("blender")!.close();
  });

  it("a contract failure is a failed run though every tool said success", async () => {
    await call(client, "recipes__run", { skill: "run-pack", recipe: "bevel_receipt", inputs: { name: "T" } });
    dcc.hooks.unchanged.add("bevel_edges");
    const answer = await call(client, "recipes__run", { skill: "run-pack", recipe: "bevel_receipt", inputs: { name: "T2" } });
    expect(answer.success).toBe(false);
    expect(answer.error).toBe("contract_failed");
    expect(answer.context.output_valid).toBe(false);
    expect(answer.context.output_errors.join(" ")).toMatch(/changed/);
    expect(answer.context.steps.every((s: { status: string }) => s.status === "ok")).toBe(true);
  });

  it("a failing step stops the run and the undo steps run (recovered)", async () => {
    dcc.hooks.fail.add("blender_mesh_ops__bevel_edges");
    const answer = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "F" } });
    expect(answer.error).toBe("run_failed");
    expect(answer.context.status).toBe("recovered");
    expect(answer.context.recovery.steps[0]).toMatchObject({ resolved_tool: "blender_mesh_ops__delete_object", status: "ok" });
    expect(dcc.scene.has("F")).toBe(false);
  });

  it("cancellation by the client stops the run between steps, then recovery runs", async () => {
    dcc.hooks.slow.set("blender_mesh_ops__create_primitive", 400);
    const controller = new AbortController();
    const pending = client.callTool({ name: "recipes__run", arguments: { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "K" } } }, undefined, { signal: controller.signal });
    await until(() => dcc.calls.length > 0);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await until(() => dcc.calls.some((c) => c.tool === "blender_mesh_ops__delete_object"));
    expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__create_primitive", "blender_mesh_ops__delete_object"]);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/recipe_server_recipe_runs_total\{dcc="blender",status="cancelled",error="cancelled"\} 1/);
  });

  it("concurrent runs: one at a time on the DCC, a full queue answers busy at once", async () => {
    dcc.hooks.slow.set("blender_mesh_ops__create_primitive", 150);
    const names = ["c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    const answers = await Promise.all(names.map((name) => call(client, "recipes__run", { skill: "run-pack", recipe: "bevel_receipt", inputs: { name } })));
    const busy = answers.filter((a) => a.error === "busy");
    // One running and four waiting (the default queue): the other two are turned away.
    expect(busy).toHaveLength(2);
    expect(answers.filter((a) => a.success)).toHaveLength(5);
    // No two runs interleaved on the DCC: each run's three calls are contiguous.
    const order = dcc.calls.map((c) => String(c.arguments["name"] ?? c.arguments["object_name"]));
    for (let i = 0; i < order.length; i += 3) expect(new Set(order.slice(i, i + 3)).size).toBe(1);
  });

  it("a YAML recipe's prompt says recipes__run where the DCC can run, recipes__apply elsewhere", async () => {
    const maya = await connect(running.url, "/mcp/maya");
    try {
      const textOf = async (c: Client): Promise<string> => {
        const { prompts } = await c.listPrompts();
        const prompt = prompts.find((p) => p.name.includes("make_bevelled"))!;
        const got = await c.getPrompt({ name: prompt.name, arguments: { name: "Box" } });
        return (got.messages[0]!.content as { text: string }).text;
      };
      const blenderText = await textOf(client);
      expect(blenderText).toMatch(/^Run the recipe "run-pack\/make_bevelled" on the DCC with the recipes__run tool/);
      expect(blenderText).toContain('"recipe": "make_bevelled"');
      expect(await textOf(maya)).toMatch(/^Apply the recipe "run-pack\/make_bevelled" with the recipes__apply tool/);
    } finally {
      await maya.close();
    }
  });

  it("/status says which DCCs can run and whether their endpoint answers", async () => {
    const body = (await (await fetch(`${running.url}/status`)).json()) as { dccs: Array<{ dcc: string; run: Record<string, unknown> }> };
    const blender = body.dccs.find((d) => d.dcc === "blender")!;
    expect(blender.run).toMatchObject({ enabled: true, endpoint: dcc.url, reachability: "answering" });
    expect(body.dccs.find((d) => d.dcc === "maya")!.run).toEqual({ enabled: false });
  });
});

describe("recipes__run against a DCC that never answers", () => {
  it("answers dcc_unavailable within the connect bound while the daemon keeps answering other tools", async () => {
    const hung = await startSilentEndpoint();
    const skills = await skillsDir();
    const running = await startServer({ dccs: ["blender"], skillsPaths: [skills], args: ["--dcc-endpoint", `blender=${hung.url}`] });
    try {
      const client = await connect(running.url, "/mcp/blender");
      try {
        const run = call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "U" } });
        // While the run waits on the hung DCC, the other tools still answer.
        const listed = await call(client, "recipes__list", { skill: "run-pack" });
        expect(listed.success).toBe(true);
        const answer = await run;
        expect(answer.error).toBe("dcc_unavailable");
        expect(answer.message).toContain(hung.url);
        expect(answer.context.steps.every((s: { status: string }) => s.status === "not_run")).toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      await running.stop();
      await hung.stop();
      await fs.rm(skills, { recursive: true, force: true });
    }
  });
});

describe("recipes__run with a DCC endpoint that needs a token", () => {
  it("sends the config file's headers to the DCC and never shows them in /status or /metrics", async () => {
    const secret = "Bearer s3cret-run-token";
    const dcc = await startDccDouble({ era: "2025", requireHeader: ["Authorization", secret] });
    const skills = await skillsDir();
    const config = `${skills}/config.yaml`;
    await fs.writeFile(config, `dcc-endpoint:\n  - dcc: blender\n    url: ${dcc.url}\n    headers: {Authorization: "${secret}"}\n`);
    const running = await startServer({ dccs: ["blender"], skillsPaths: [skills], args: ["--config", config] });
    try {
      const client = await connect(running.url, "/mcp/blender");
      try {
        const answer = await call(client, "recipes__run", { skill: "run-pack", recipe: "bevel_receipt", inputs: { name: "Tok" } });
        expect(answer.success).toBe(true);
        expect(JSON.stringify(answer)).not.toContain("s3cret");
      } finally {
        await client.close();
      }
      const status = await (await fetch(`${running.url}/status`)).text();
      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      expect(status).toContain(dcc.url);
      expect(status).not.toContain("s3cret");
      expect(metrics).not.toContain("s3cret");
    } finally {
      await running.stop();
      await dcc.stop();
      await fs.rm(skills, { recursive: true, force: true });
    }
  });
});

describe("recipes__run against a DCC that speaks only 2026-07-28", () => {
  it("runs through the v2 client (refused 2025-11-25, then 2026-07-28), for clients of both eras", async () => {
    const dcc = await startDccDouble({ era: "2026" });
    const skills = await skillsDir();
    const running = await startServer({ dccs: ["blender"], skillsPaths: [skills], args: ["--dcc-endpoint", `blender=${dcc.url}`] });
    try {
      const client = await connect(running.url, "/mcp/blender");
      const v2 = await modern(running.url, "/mcp/blender");
      try {
        const answer = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "Box" } });
        expect(answer.success).toBe(true);
        expect(answer.context).toMatchObject({ status: "succeeded", output_valid: true, receipt: { object_name: "Box", face_count: 10 } });
        const result = (await v2.callTool({ name: "recipes__run", arguments: { skill: "run-pack", recipe: "bevel_receipt", inputs: { name: "Two" } } })) as { content: Array<{ text: string }> };
        expect(JSON.parse(result.content[0]!.text)).toMatchObject({ success: true, context: { status: "succeeded" } });
        expect(dcc.sessionCount()).toBe(0);
        expect(dcc.calls.filter((c) => c.outcome === "ok")).toHaveLength(6);
        const status = (await (await fetch(`${running.url}/status`)).json()) as { dccs: Array<{ dcc: string; run: Record<string, unknown> }> };
        expect(status.dccs[0]!.run).toMatchObject({ enabled: true, reachability: "answering" });
      } finally {
        await Promise.all([client.close(), v2.close()]);
      }
    } finally {
      await running.stop();
      await dcc.stop();
      await fs.rm(skills, { recursive: true, force: true });
    }
  });
});
