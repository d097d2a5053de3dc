/**
 * Both protocol eras on every endpoint, through real clients: the v2
 * `@modelcontextprotocol/client` pinned to 2026-07-28 and in auto mode, and
 * the 1.32.2 `Client` on a stateful session, each listing and calling every
 * tool, reading resources, and hearing a list_changed after an edit.
 */
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, until, skillMd, startServer, writeTree, type RunningServer } from "./harness.js";

const anchors = (...names: string[]): string => names.map((n) => `## ${n}\n\nHow to ${n.toLowerCase()}.\n`).join("\n");
const pack = (...names: string[]): string =>
  `recipes:\n${names.map((n) => `  - name: ${n}\n    description: ${n} recipe\n    inputs_schema: {type: object, properties: {size: {type: number}}}\n    steps: [{tool: maya_run}]\n`).join("")}`;

type Mode = "legacy" | "auto" | { pin: string };

async function modernClient(url: string, mode: Mode, endpoint = "/mcp"): Promise<Client> {
  const client = new Client({ name: "e2e-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}${endpoint}`)));
  return client;
}

interface Envelope {
  success: boolean;
  error?: string;
  context?: { recipes?: Array<{ skill: string; name: string; format: string }> };
}

/** Every tool the endpoint lists, called with arguments that reach its handler; what each answered. */
async function callEveryTool(
  listTools: () => Promise<{ tools: Array<{ name: string; inputSchema: Record<string, unknown> }> }>,
  callTool: (name: string, args: Record<string, unknown>) => Promise<{ content: unknown; isError?: unknown }>,
): Promise<Record<string, Envelope>> {
  const { tools } = await listTools();
  const text = async (name: string, args: Record<string, unknown>): Promise<Envelope> => {
    const result = (await callTool(name, args)) as { content: Array<{ type: string; text: string }> };
    return JSON.parse(result.content[0]!.text) as Envelope;
  };
  const search = await text("recipes__search", { query: "", limit: 50 });
  const yaml = search.context!.recipes!.find((r) => r.format === "yaml")!;
  const args: Record<string, Record<string, unknown>> = {
    recipes__list: {},
    recipes__search: { query: "smoke" },
    recipes__get: { skill: yaml.skill, anchor: yaml.name },
    recipes__validate: { skill: yaml.skill, recipe: yaml.name, inputs: { size: 2 } },
    recipes__apply: { skill: yaml.skill, recipe: yaml.name, inputs: { size: 2 } },
    recipe: { action: "search", query: "smoke" },
  };
  const answers: Record<string, Envelope> = {};
  for (const tool of tools) {
    // The schema goes out as Draft 2020-12 JSON Schema, untouched by either SDK.
    expect(tool.inputSchema.type, tool.name).toBe("object");
    answers[tool.name] = await text(tool.name, args[tool.name] ?? {});
  }
  return answers;
}

let running: RunningServer;

beforeAll(async () => {
  running = await startServer({ dccs: ["maya", "houdini"] });
  await writeTree(running.skillsDir, {
    "rig/SKILL.md": skillMd("rig", "maya", ["RECIPES.md", "packs/*.yaml"]),
    "rig/RECIPES.md": anchors("Bind skin"),
    "rig/packs/fx.yaml": pack("smoke"),
    "hou/SKILL.md": skillMd("hou", "houdini", "R.md"),
    "hou/R.md": anchors("Scatter"),
  });
  await Promise.all([...running.server.libraries.values()].map((library) => library.load()));
});
afterAll(async () => running?.stop());

async function edit(files: Record<string, string>): Promise<void> {
  await writeTree(running.skillsDir, files);
  await running.server.libraries.get("maya")!.load();
}

describe("2026-07-28 clients (v2 SDK)", () => {
  for (const [label, mode] of [["pinned to 2026-07-28", { pin: "2026-07-28" }], ["in auto mode", "auto"]] as const) {
    it(`${label}: discovers, lists and calls every tool, reads resources, on /mcp and /mcp/<dcc>`, async () => {
      for (const endpoint of ["/mcp", "/mcp/maya"]) {
        const client = await modernClient(running.url, mode, endpoint);
        try {
          expect(client.getProtocolEra()).toBe("modern");
          expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
          expect(client.getServerCapabilities()?.resources?.listChanged).toBe(true);
          const answers = await callEveryTool(() => client.listTools(), (name, args) => client.callTool({ name, arguments: args }));
          expect(Object.keys(answers).sort()).toEqual(["recipe", "recipes__apply", "recipes__get", "recipes__list", "recipes__search", "recipes__validate"]);
          for (const [name, answer] of Object.entries(answers)) expect(answer.success, name).toBe(true);
          const { resources } = await client.listResources();
          const recipes = resources.filter((r) => r.uri.startsWith("recipe://"));
          expect(recipes.map((r) => r.name).sort()).toEqual(["rig/Bind skin", "rig/smoke"]);
          const read = await client.readResource({ uri: recipes[0]!.uri });
          expect((read.contents[0] as { text: string }).text.length).toBeGreaterThan(0);
          // No session: nothing was opened on the 2025 side.
          expect(running.server.http.sessions?.size).toBe(0);
        } finally {
          await client.close();
        }
      }
    });
  }

  it("pinned: recipes as prompts, and every served skill through the SDK's own SkillsClient, files verified", async () => {
    const client = await modernClient(running.url, { pin: "2026-07-28" }, "/mcp/maya");
    try {
      expect(client.getServerCapabilities()?.prompts).toBeDefined();
      const { prompts } = await client.listPrompts();
      expect(prompts).toHaveLength(2);
      const yaml = prompts.find((p) => (p.arguments ?? []).some((a) => a.name === "size"))!;
      const got = await client.getPrompt({ name: yaml.name, arguments: { size: "2" } });
      expect(JSON.stringify(got.messages)).toContain("smoke");
      await expect(client.getPrompt({ name: yaml.name, arguments: { size: "not a number" } })).rejects.toMatchObject({ code: -32602 });
      await expect(client.getPrompt({ name: "no such prompt" })).rejects.toMatchObject({ code: -32602 });

      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills.map((skill) => skill.frontmatter.name)).toEqual(["rig"]);
      for (const skill of listing.skills) {
        const file = await skills.read(skill);
        expect(file.verified).toBe(true);
        expect(file.text).toContain("# rig");
      }
      const { resources } = await client.listResources();
      expect(resources.some((r) => r.uri.startsWith("skill://rig/"))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("bad arguments and unknown tools are JSON-RPC -32602; a missing resource is -32602 with data.uri", async () => {
    const client = await modernClient(running.url, { pin: "2026-07-28" });
    try {
      await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
      const bad = (await client.callTool({ name: "recipes__get", arguments: { skill: 7 } })) as { isError: boolean; content: Array<{ text: string }> };
      expect(bad.isError).toBe(true);
      expect(JSON.parse(bad.content[0]!.text).error).toBe("invalid_input");
      await expect(client.readResource({ uri: "recipe://maya/rig/none" })).rejects.toMatchObject({ code: -32602, data: { uri: "recipe://maya/rig/none" } });
    } finally {
      await client.close();
    }
  });

  it("subscriptions/listen hears resources/ and prompts/list_changed after an edit, only on the endpoints that serve it", async () => {
    const maya = await modernClient(running.url, { pin: "2026-07-28" }, "/mcp/maya");
    const houdini = await modernClient(running.url, { pin: "2026-07-28" }, "/mcp/houdini");
    const heard = { maya: 0, houdini: 0, prompts: 0 };
    maya.setNotificationHandler("notifications/resources/list_changed", () => void (heard.maya += 1));
    maya.setNotificationHandler("notifications/prompts/list_changed", () => void (heard.prompts += 1));
    houdini.setNotificationHandler("notifications/resources/list_changed", () => void (heard.houdini += 1));
    const subscriptions = [
      await maya.listen({ resourcesListChanged: true, promptsListChanged: true }),
      await houdini.listen({ resourcesListChanged: true }),
    ];
    try {
      expect(subscriptions[0]!.honoredFilter.resourcesListChanged).toBe(true);
      await edit({ "rig/RECIPES.md": anchors("Bind skin", "Paint weights") });
      await until(() => heard.maya >= 1 && heard.prompts >= 1);
      expect((await maya.listResources()).resources.map((r) => r.name)).toContain("rig/Paint weights");
      expect((await maya.listPrompts()).prompts).toHaveLength(3);
      expect(heard.houdini).toBe(0);
    } finally {
      for (const subscription of subscriptions) await subscription.close();
      await maya.close();
      await houdini.close();
    }
  });
});

describe("2025-era clients keep today's behaviour", () => {
  it("the 1.32.2 Client, stateful: every tool, resources, and a list_changed after an edit on its GET stream", async () => {
    const client: LegacyClient = await connect(running.url, "/mcp/maya");
    let heard = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (heard += 1));
    try {
      expect(client.getServerVersion()?.name).toBe("recipe-server-maya");
      expect(running.server.http.sessions?.size).toBe(1);
      const answers = await callEveryTool(
        () => client.listTools() as Promise<{ tools: Array<{ name: string; inputSchema: Record<string, unknown> }> }>,
        (name, args) => client.callTool({ name, arguments: args }) as Promise<{ content: unknown }>,
      );
      for (const [name, answer] of Object.entries(answers)) expect(answer.success, name).toBe(true);
      const { resources } = await client.listResources();
      expect(resources.length).toBeGreaterThan(0);
      await expect(client.readResource({ uri: "recipe://maya/rig/none" })).rejects.toMatchObject({ code: -32002 });
      const { prompts } = await client.listPrompts();
      expect(prompts.length).toBeGreaterThanOrEqual(2);
      const got = await client.getPrompt({ name: prompts[0]!.name, arguments: {} });
      expect(got.messages.length).toBeGreaterThan(0);
      // The GET stream opens after initialize: wait until the session has it.
      await until(() => [...(running.server.http.sessions as unknown as { sessions: Map<string, { streams: number }> }).sessions.values()].some((s) => s.streams > 0));
      await edit({ "rig/RECIPES.md": anchors("Bind skin", "Paint weights", "Mirror") });
      await until(() => heard >= 1);
    } finally {
      await client.close();
    }
  });

  it("the v2 client in its default (legacy) mode gets a 2025 session, skills included", async () => {
    const client = await modernClient(running.url, "legacy");
    try {
      expect(client.getProtocolEra()).toBe("legacy");
      expect((await client.listTools()).tools.length).toBe(6);
      const listing = await new SkillsClient(client).list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills.map((skill) => skill.frontmatter.name)).toEqual(["rig"]);
    } finally {
      await client.close();
    }
  });
});
