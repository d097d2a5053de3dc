/**
 * Hostile params on every method of the surface table, on both eras of the
 * real daemon: a 2025-11-25 session through the 1.32.2 Client (which sends
 * params as given) and raw 2026-07-28 requests. Each case is a regression
 * test named after what it fixes, plus the one-line-per-tool-call log rule.
 */
import { Writable } from "node:stream";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { resolveConfig } from "../../src/config/resolve.js";
import { createRecipeServer, type RecipeServer } from "../../src/compose/app.js";
import { eventually, EXAMPLE_SKILLS, makeTempDir } from "./harness.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

let server: RecipeServer;
let url: string;
let legacy: Client;
const lines: Array<Record<string, unknown>> = [];
let nextId = 1;

beforeAll(async () => {
  const tmp = await makeTempDir("protocol-params-");
  const resolved = resolveConfig({
    argv: ["--port", "0", "--embeddings", "none", "--no-watch", "--dcc", "maya", "--skills-path", EXAMPLE_SKILLS, "--private-dir", path.join(tmp, "private")],
    env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data") },
    homeDir: tmp,
  });
  if (resolved.kind !== "serve") throw new Error("bad test config");
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  server = createRecipeServer(resolved.config, { logger: pino({ level: "debug" }, sink) });
  url = (await server.start()).url;
  await server.ready();
  legacy = new Client({ name: "e2e", version: "1" });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
});
afterAll(async () => {
  await legacy?.close();
  await server?.stop();
});

const Loose = z.object({}).passthrough();

/** One request on the 2025 session: its result, or its JSON-RPC error. */
async function on2025(method: string, params: Record<string, unknown>): Promise<Answer> {
  try {
    return { result: (await legacy.request({ method, params } as never, Loose)) as Record<string, unknown> };
  } catch (error) {
    const e = error as { code: number; message: string; data?: unknown };
    return { error: { code: e.code, message: e.message, data: e.data } };
  }
}

/** One raw 2026-07-28 request (no session), with the Mcp-Name header the revision wants beside a name or URI. */
async function on2026(method: string, params: Record<string, unknown>): Promise<Answer> {
  const named = method === "resources/read" ? params["uri"] : method === "tools/call" || method === "prompts/get" ? params["name"] : undefined;
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof named === "string" ? { "mcp-name": named } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: ENVELOPE } }),
  });
  return (await response.json()) as Answer;
}

const ERAS = [
  ["2025-11-25", on2025],
  ["2026-07-28", on2026],
] as const;

describe("regression: a non-string page cursor is -32602 on every list method (was -32603 with a schema dump)", () => {
  const methods = ["tools/list", "resources/list", "resources/templates/list", "prompts/list", "skills/list"];
  for (const [era, send] of ERAS) {
    it(era, async () => {
      for (const method of methods) {
        for (const cursor of [12345, {}, [], true, null]) {
          const answer = await send(method, { cursor });
          expect(answer.error?.code, `${method} ${JSON.stringify(cursor)}`).toBe(-32602);
          expect(answer.error?.message.length, method).toBeLessThan(200);
        }
      }
      // A string cursor that no page made is refused by the method itself, with the same code.
      for (const method of ["resources/list", "prompts/list", "skills/list"]) expect((await send(method, { cursor: "not-ours" })).error?.code, method).toBe(-32602);
    });
  }
});

describe("regression: a client-supplied name is echoed to its first 64 characters at most (was the whole name, 200 KB back)", () => {
  // The 2026 revision mirrors a name in the Mcp-Name header, which caps what a client can send there.
  const sizes = { "2025-11-25": 100_000, "2026-07-28": 8_000 } as const;
  for (const [era, send] of ERAS) {
    it(`${era}: prompts/get, tools/call, resources/read and skills/get`, async () => {
      const huge = "x".repeat(sizes[era]);
      const answers = [
        await send("prompts/get", { name: huge }),
        await send("tools/call", { name: huge, arguments: {} }),
        await send("resources/read", { uri: `skill://${huge}/SKILL.md` }),
        await send("skills/get", { uri: `skill://${huge}/SKILL.md` }),
      ];
      for (const answer of answers) {
        expect(answer.error?.code).toBe(-32602);
        expect(answer.error!.message).not.toContain("x".repeat(65));
        expect(answer.error!.message).toMatch(/first 64 of \d+ characters/);
        expect(JSON.stringify(answer).length).toBeLessThan(2_000);
      }
    });
  }
});

describe("regression: one tool call is one log line at info (its request line is debug)", () => {
  it("a tools/call on a session writes its tool-call line at info and its request line at debug", async () => {
    await legacy.listTools();
    await eventually(() => lines.some((l) => l.msg === "request"));
    const before = lines.length;
    await legacy.callTool({ name: "recipes__list", arguments: {} });
    // The request line is written when the response has ended, which may be after the client has read it.
    await eventually(() => lines.slice(before).some((l) => l.msg === "request"));
    const written = lines.slice(before);
    expect(written.filter((l) => (l.level as number) >= 30)).toEqual([expect.objectContaining({ msg: "tool call", level: 30, tool: "recipes__list", success: true })]);
    expect(written.filter((l) => l.msg === "request")).toEqual([expect.objectContaining({ level: 20, method: "POST", status: 200 })]);
    // Other requests keep their line at info.
    const next = lines.length;
    await legacy.listTools();
    await eventually(() => lines.slice(next).some((l) => l.msg === "request"));
    expect(lines.slice(next).filter((l) => l.msg === "request")).toEqual([expect.objectContaining({ level: 30 })]);
  });
});
