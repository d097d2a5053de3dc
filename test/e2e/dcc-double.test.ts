/**
 * The DCC double (test/e2e/dcc-double.ts) on both eras, through the real SDK
 * clients: it serves the bridge's tool names and schemas, validates arguments
 * with the project's validator, and its hooks (fail, hang, unchanged,
 * missing, delay) do what the run tests rely on.
 */
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { bridgeTools, runTools, startDccDouble, startSilentEndpoint, type DccDouble } from "./dcc-double.js";

interface CallResult {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content: readonly { type: string; text?: string }[];
}

interface Connected {
  list(): Promise<{ name: string; inputSchema: unknown }[]>;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallResult>;
  close(): Promise<void>;
}

async function connect(double: DccDouble): Promise<Connected> {
  if (double.era === "2025") {
    const client = new LegacyClient({ name: "double-test", version: "1" });
    await client.connect(new LegacyTransport(new URL(double.url)));
    return {
      list: async () => (await client.listTools()).tools,
      call: async (name, args, signal) => (await client.callTool({ name, arguments: args }, undefined, signal ? { signal } : {})) as CallResult,
      close: () => client.close(),
    };
  }
  const client = new Client({ name: "double-test", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(double.url)));
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  return {
    list: async () => (await client.listTools()).tools,
    call: async (name, args, signal) => (await client.callTool({ name, arguments: args }, signal ? { signal } : {})) as CallResult,
    close: () => client.close(),
  };
}

const CREATE = "blender_mesh_ops__create_primitive";
const BEVEL = "blender_mesh_ops__bevel_edges";
const COUNT = "blender_mesh_ops__get_poly_count";

for (const era of ["2025", "2026"] as const) {
  describe(`the DCC double, era ${era}`, () => {
    const started: DccDouble[] = [];
    const clients: Connected[] = [];
    async function start(options: Omit<Parameters<typeof startDccDouble>[0], "era"> = {}): Promise<{ double: DccDouble; client: Connected }> {
      const double = await startDccDouble({ era, ...options });
      started.push(double);
      const client = await connect(double);
      clients.push(client);
      return { double, client };
    }
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
      await Promise.all(started.splice(0).map((d) => d.stop()));
    });

    it("lists the bridge's tools with the bridge's inputSchemas, then the run packs' delete and scripting tools", async () => {
      const { client } = await start();
      const tools = await client.list();
      const defined = [...bridgeTools(), ...runTools()];
      expect(tools.map((t) => t.name)).toEqual(defined.map((t) => t.name));
      for (const tool of tools) expect(tool.inputSchema).toEqual(defined.find((d) => d.name === tool.name)!.inputSchema);
    });

    it("create, bevel, count: receipts the mesh-ops contracts accept, from a counting scene", async () => {
      const { double, client } = await start();
      const created = await client.call(CREATE, { primitive_type: "cube", name: "Box" });
      expect(created.structuredContent).toMatchObject({ object_name: "Box", changed: true, face_count: 6, vertex_count: 8 });
      expect(JSON.parse(created.content[0]!.text!)).toEqual(created.structuredContent);
      const bevelled = await client.call(BEVEL, { object_name: "Box", edge_indices: [3, 1], width: 0.1 });
      expect(bevelled.structuredContent).toMatchObject({ changed: true, beveled_edges: [1, 3], segments: 1 });
      expect(bevelled.structuredContent!.face_count as number).toBeGreaterThan(6);
      const counted = await client.call(COUNT, { object_name: "Box" });
      expect(counted.structuredContent).toMatchObject({ changed: false, face_count: bevelled.structuredContent!.face_count });
      expect(double.calls.map((c) => [c.tool, c.outcome])).toEqual([[CREATE, "ok"], [BEVEL, "ok"], [COUNT, "ok"]]);
      expect(double.scene.get("Box")!.face_count).toBe(counted.structuredContent!.face_count);
    });

    it("invalid arguments are an isError answer naming the field; an unknown object too", async () => {
      const { double, client } = await start();
      const bad = await client.call(BEVEL, { object_name: "Box", edge_indices: [], width: 0 });
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toMatch(/edge_indices/);
      expect(bad.content[0]!.text).toMatch(/width/);
      const missing = await client.call(COUNT, { object_name: "Nowhere" });
      expect(missing.isError).toBe(true);
      expect(missing.content[0]!.text).toMatch(/no object named 'Nowhere'/);
      expect(double.calls.map((c) => c.outcome)).toEqual(["error", "error"]);
    });

    it("hooks: fail answers isError, unchanged reports changed:false and leaves the scene, missing drops the tool", async () => {
      const { double, client } = await start({ fail: ["bevel_edges"], unchanged: [COUNT], missing: ["auto_uv"] });
      await client.call(CREATE, { primitive_type: "cube", name: "Box" });
      const failed = await client.call(BEVEL, { object_name: "Box", edge_indices: [0], width: 0.1 });
      expect(failed.isError).toBe(true);
      expect(double.scene.get("Box")!.face_count).toBe(6);

      double.hooks.fail.clear();
      double.hooks.unchanged.add("bevel_edges");
      const lied = await client.call(BEVEL, { object_name: "Box", edge_indices: [0], width: 0.1 });
      expect(lied.isError).not.toBe(true);
      expect(lied.structuredContent).toMatchObject({ object_name: "Box", changed: false, face_count: 6 });
      expect(double.scene.get("Box")!.face_count).toBe(6);

      const names = (await client.list()).map((t) => t.name);
      expect(names).not.toContain("blender_mesh_ops__auto_uv");
      expect(names).toHaveLength(bridgeTools().length + runTools().length - 1);
      await expect(client.call("blender_mesh_ops__auto_uv", { object_name: "Box" })).rejects.toThrow(/Unknown tool/);
    });

    it("hang: the call never answers until the client aborts it; the double records it as aborted and keeps serving", async () => {
      const { double, client } = await start({ hang: ["get_poly_count"] });
      await client.call(CREATE, { primitive_type: "plane", name: "P" });
      const abort = new AbortController();
      const hung = client.call(COUNT, { object_name: "P" }, abort.signal);
      await expect.poll(() => double.calls.length).toBe(2);
      expect(double.calls[1]!.outcome).toBe("pending");
      abort.abort();
      await expect(hung).rejects.toThrow();
      await expect.poll(() => double.calls[1]!.outcome).toBe("aborted");
      double.hooks.hang.clear();
      expect((await client.call(COUNT, { object_name: "P" })).structuredContent).toMatchObject({ face_count: 1 });
    });

    it("respond answers tools the model does not know (a scripting fallback)", async () => {
      const script = {
        name: "blender_scripting__execute_python",
        inputSchema: { type: "object" as const, required: ["code"], properties: { code: { type: "string" } }, additionalProperties: false },
      };
      const { client } = await start({
        tools: [...bridgeTools(), script],
        respond: (tool, args) => (tool === script.name ? { ran: args.code, changed: true } : undefined),
      });
      expect((await client.call(script.name, { code: "print(1)" })).structuredContent).toEqual({ ran: "print(1)", changed: true });
      expect((await client.call(CREATE, { primitive_type: "cube", name: "C" })).structuredContent).toMatchObject({ face_count: 6 });
    });

    it("stop ends a hung call and closes the port", async () => {
      const { double, client } = await start({ hang: [CREATE] });
      const hung = client.call(CREATE, { primitive_type: "cube", name: "C" });
      await expect.poll(() => double.calls.length).toBe(1);
      await double.stop();
      await expect(hung).rejects.toThrow();
      await expect(fetch(double.url, { method: "POST" })).rejects.toThrow();
    });
  });
}

describe("the silent endpoint", () => {
  it("accepts the connection and never answers: a client with a timeout gives up", async () => {
    const silent = await startSilentEndpoint();
    try {
      const client = new LegacyClient({ name: "t", version: "1" });
      const connecting = client.connect(new LegacyTransport(new URL(silent.url)), { timeout: 500 });
      await expect(connecting).rejects.toThrow(/timed out/i);
      await client.close();
    } finally {
      await silent.stop();
    }
  });
});

describe("the DCC double under load and bad input", () => {
  for (const era of ["2025", "2026"] as const) {
    it(`era ${era}: twenty concurrent calls from four clients each get their own receipt; malformed JSON is -32700`, async () => {
      const double = await startDccDouble({ era, delayMs: 5 });
      const clients = await Promise.all(Array.from({ length: 4 }, () => connect(double)));
      try {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => clients[i % 4]!.call(CREATE, { primitive_type: i % 2 === 0 ? "cube" : "plane", name: `N${i}` })),
        );
        results.forEach((r, i) => expect(r.structuredContent).toMatchObject({ object_name: `N${i}`, face_count: i % 2 === 0 ? 6 : 1 }));
        expect(double.calls.filter((c) => c.outcome === "ok")).toHaveLength(20);
        expect(double.scene.size).toBe(20);
        const bad = await fetch(double.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: "{bad",
        });
        expect(bad.status).toBe(400);
        expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
        await double.stop();
      }
    });
  }
});

describe("the DCC double, era both (one URL, both revisions)", () => {
  it("a 1.32.2 client gets a 2025 session, a v2 client in auto mode negotiates 2026-07-28, and both see one scene", async () => {
    const double = await startDccDouble({ era: "both" });
    const legacy = new LegacyClient({ name: "old", version: "1" });
    const modern = new Client({ name: "new", version: "1" }, { versionNegotiation: { mode: "auto" } });
    try {
      await legacy.connect(new LegacyTransport(new URL(double.url)));
      await modern.connect(new StreamableHTTPClientTransport(new URL(double.url)));
      expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(double.sessionCount()).toBe(1);
      await legacy.callTool({ name: CREATE, arguments: { primitive_type: "cube", name: "Shared" } });
      const counted = (await modern.callTool({ name: COUNT, arguments: { object_name: "Shared" } })) as CallResult;
      expect(counted.structuredContent).toMatchObject({ object_name: "Shared", face_count: 6 });
      expect((await modern.listTools()).tools).toHaveLength(bridgeTools().length + runTools().length);
      // The 2026 leg opened no session.
      expect(double.sessionCount()).toBe(1);
    } finally {
      await legacy.close();
      await modern.close();
      await double.stop();
    }
  });
});
