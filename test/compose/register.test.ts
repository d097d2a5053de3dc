/**
 * registerRecipesTools on every server it accepts, each through a real
 * client: the 1.x McpServer and Server with the 1.32.2 Client, the v2
 * McpServer and Server behind the v2 createMcpHandler on a real HTTP port
 * with the v2 Client pinned to 2026-07-28.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer as ModernMcpServer, Server as ModernServer } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerRecipesTools, scanSkills, type RecipesToolsHandle, type SkillInfo } from "../../src/index.js";
import { EXAMPLE_SKILLS, makeTempDir } from "../e2e/harness.js";

const CORE_TOOLS = ["recipes__apply", "recipes__get", "recipes__list", "recipes__search", "recipes__validate"];

interface Caller {
  list(): Promise<Array<{ name: string; inputSchema: Record<string, unknown> }>>;
  call(name: string, args: Record<string, unknown>): Promise<{ isError?: unknown; content: unknown }>;
}

function envelope(result: { content: unknown }): { success: boolean; error?: string; context?: any } { // loosely-typed tool payload
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { success: boolean; error?: string };
}

/** What every host must do: list the five tools with their JSON Schema, call each, refuse bad arguments. */
async function exercise(caller: Caller): Promise<void> {
  const tools = await caller.list();
  expect(tools.map((t) => t.name).sort()).toEqual(CORE_TOOLS);
  const search = tools.find((t) => t.name === "recipes__search")!;
  expect(search.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  const found = envelope(await caller.call("recipes__search", { query: "bevel", limit: 5 }));
  expect(found.success).toBe(true);
  const first = found.context.recipes[0] as { skill: string; name: string };
  expect(envelope(await caller.call("recipes__list", {})).success).toBe(true);
  expect(envelope(await caller.call("recipes__get", { skill: first.skill, anchor: first.name })).success).toBe(true);
  const validated = envelope(await caller.call("recipes__validate", { skill: first.skill, recipe: first.name, inputs: {} }));
  const applied = envelope(await caller.call("recipes__apply", { skill: first.skill, recipe: first.name, inputs: {} }));
  // A Markdown recipe has no inputs to check: not_found/unsupported is a fine answer, an internal error is not.
  expect(validated.error).not.toBe("internal");
  expect(applied.error).not.toBe("internal");
  const bad = await caller.call("recipes__get", { skill: 7 });
  expect(bad.isError).toBe(true);
  expect(envelope(bad).error).toBe("invalid_input");
}

let skills: SkillInfo[] = [];
let stateDir = "";
const handles: RecipesToolsHandle[] = [];

beforeAll(async () => {
  skills = [...(await scanSkills({ dccName: "maya", extraPaths: [EXAMPLE_SKILLS], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } })).skills];
  stateDir = await makeTempDir("register-");
});
afterAll(async () => {
  for (const handle of handles) await handle.close();
});

async function attachOnce(server: McpServer | Server | ModernMcpServer | ModernServer): Promise<RecipesToolsHandle> {
  const handle = registerRecipesTools(server, { skills, dccName: "maya", stateDir });
  handles.push(handle);
  await handle.ready;
  return handle;
}

describe("on the 1.x SDK (1.32.2 Client)", () => {
  for (const [label, make] of [
    ["McpServer", () => new McpServer({ name: "bridge", version: "1" })],
    ["low-level Server", () => new Server({ name: "bridge", version: "1" }, { capabilities: {} })],
  ] as const) {
    it(label, async () => {
      const server = make();
      await attachOnce(server);
      const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new LegacyClient({ name: "t", version: "1" });
      await client.connect(clientSide);
      try {
        await exercise({
          list: async () => (await client.listTools()).tools as Array<{ name: string; inputSchema: Record<string, unknown> }>,
          call: (name, args) => client.callTool({ name, arguments: args }) as Promise<{ content: unknown }>,
        });
      } finally {
        await client.close();
      }
    });
  }
});

describe("on the v2 SDK (v2 Client pinned to 2026-07-28, over HTTP)", () => {
  let http: HttpServer | null = null;
  afterAll(async () => {
    await new Promise<void>((resolve) => (http === null ? resolve() : http.close(() => resolve())));
  });

  for (const [label, make] of [
    ["McpServer", () => new ModernMcpServer({ name: "bridge", version: "1" })],
    ["low-level Server", () => new ModernServer({ name: "bridge", version: "1" }, { capabilities: {} })],
  ] as const) {
    it(`${label}, a fresh server per request sharing one library through handle.register`, async () => {
      const handle = await attachOnce(make());
      let built = 0;
      const handler = createMcpHandler(() => {
        built += 1;
        const server = make();
        handle.register(server);
        return server;
      }, { legacy: "reject" });
      const node = toNodeHandler(handler);
      http?.close();
      http = createServer((req, res) => void node(req, res));
      await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", resolve));
      const { port } = http.address() as AddressInfo;
      const client = new Client({ name: "t", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
        await exercise({
          list: async () => (await client.listTools()).tools as Array<{ name: string; inputSchema: Record<string, unknown> }>,
          call: (name, args) => client.callTool({ name, arguments: args }) as Promise<{ content: unknown }>,
        });
        expect(built).toBeGreaterThan(5);
      } finally {
        await client.close();
        await handler.close();
      }
    });
  }
});
