/**
 * Hostile tool-call messages: deep nesting, arguments that are not
 * an object, `constructor` / `__proto__` argument names, a tool name that is
 * not a string. Each gets -32602 with our message before the SDK sees it, in
 * stateful and stateless mode, alone and in a batch, through real HTTP and
 * (where it can send such input) the SDK Client; the session keeps working.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { argumentsFault, checkMessages, MAX_NESTING, nestsDeeperThan, refusalAnswer } from "../../../src/server/transport/argument-limits.js";
import { connectClient, MCP_HEADERS, rawInitialize, startTestApp, type TestApp } from "./fixture.js";

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** `{"a":{"a":…1…}}` nested `levels` deep, built as text: JSON.stringify itself overflows at a few thousand levels. */
const nestedText = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const toolCall = (argumentsText: string, id: number | string = 5): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"echo","arguments":${argumentsText}}}`;

interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A POST's JSON-RPC answer, whether the SDK sent it as JSON or as one SSE event. */
async function answerOf(response: Response): Promise<RpcAnswer | RpcAnswer[]> {
  const text = await response.text();
  const data = response.headers.get("content-type")?.startsWith("text/event-stream") ? /^data: (.*)$/m.exec(text)?.[1] ?? "" : text;
  return JSON.parse(data) as RpcAnswer | RpcAnswer[];
}

const PROBES: ReadonlyArray<readonly [string, string, RegExp]> = [
  ["arguments nested 5,000 deep", nestedText(5000), /tool arguments nest deeper than 128 levels/],
  ["arguments nested 129 deep", nestedText(MAX_NESTING + 1), /tool arguments nest deeper than 128 levels/],
  ["arguments as arrays nested 5,000 deep", `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`, /deeper than 128 levels/],
  ["arguments a string", '"x"', /tool arguments must be an object, got a string/],
  ["arguments an array", "[1,2]", /must be an object, got an array/],
  ["arguments null", "null", /must be an object, got null/],
  ["arguments a number", "3", /must be an object, got a number/],
  ["a constructor argument", '{"constructor":1}', /"constructor" is not allowed as a tool argument name/],
  ["a constructor argument holding an object", '{"constructor":{"a":1},"b":2}', /"constructor" is not allowed/],
  ["a __proto__ argument", '{"__proto__":{"x":1}}', /"__proto__" is not allowed as a tool argument name/],
];

async function session(app: TestApp, stateless: boolean): Promise<Record<string, string>> {
  if (stateless) return { ...MCP_HEADERS };
  const { sessionId } = await rawInitialize(app.url);
  return { ...MCP_HEADERS, "mcp-session-id": sessionId ?? "" };
}

for (const stateless of [false, true]) {
  describe(`hostile tool arguments (${stateless ? "stateless" : "stateful"})`, () => {
    it("each probe → -32602 with our message and its id, logged; the same session then answers a good call", async () => {
      t = await startTestApp({ stateless, limits: { bodyLimitBytes: 1024 * 1024 } });
      const headers = await session(t, stateless);
      for (const [name, args, reason] of PROBES) {
        const response = await fetch(`${t.url}/mcp`, { method: "POST", headers, body: toolCall(args, name) });
        expect(response.status, name).toBe(200);
        const answer = (await answerOf(response)) as RpcAnswer;
        expect(answer.id, name).toBe(name);
        expect(answer.error?.code, name).toBe(-32602);
        expect(answer.error?.message, name).toMatch(reason);
        // Never a library's internals.
        expect(answer.error?.message, name).not.toMatch(/invalid_type|Maximum call stack|expected record/);
      }
      const refusals = t.logLines().filter((line) => line.msg === "message refused");
      expect(refusals).toHaveLength(PROBES.length);
      expect(refusals[0]).toMatchObject({ level: 40, rpcMethod: "tools/call", problem: "nesting", limit: MAX_NESTING });
      const good = await fetch(`${t.url}/mcp`, { method: "POST", headers, body: toolCall(nestedText(MAX_NESTING)) });
      expect((await answerOf(good)) as RpcAnswer).toMatchObject({ id: 5, result: { isError: false } });
    });

    it("a batch holding a refused tool call is answered whole: its error, and -32600 for the requests not run", async () => {
      t = await startTestApp({ stateless });
      const headers = await session(t, stateless);
      const body = `[${toolCall('"x"', 1)},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}]`;
      const response = await fetch(`${t.url}/mcp`, { method: "POST", headers, body });
      expect(response.status).toBe(200);
      const answers = (await answerOf(response)) as RpcAnswer[];
      expect(answers).toHaveLength(2);
      expect(answers[0]).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringMatching(/must be an object/) } });
      expect(answers[1]).toMatchObject({ id: 2, error: { code: -32600, message: expect.stringMatching(/^Not run: message 0 of this batch was refused/) } });
    });

    it("a tool name that is not a string and params that are not an object → -32602, not a zod dump", async () => {
      t = await startTestApp({ stateless });
      const headers = await session(t, stateless);
      for (const [params, reason] of [
        ['{"name":5}', /tool name \(params\.name\) must be a string/],
        ["[1]", /needs params as an object/],
      ] as const) {
        const response = await fetch(`${t.url}/mcp`, { method: "POST", headers, body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":${params}}` });
        const answer = (await answerOf(response)) as RpcAnswer;
        expect(answer.error?.code).toBe(-32602);
        expect(answer.error?.message).toMatch(reason);
      }
    });
  });
}

describe("hostile tool arguments through the SDK Client", () => {
  it("deep, constructor and non-object arguments reject with McpError -32602; the client keeps working", async () => {
    t = await startTestApp();
    const client = await connectClient(t.url);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) deep = { a: deep };
    const probes: Array<[string, unknown, RegExp]> = [
      ["arguments nested 300 deep", deep, /nest deeper than 128 levels/],
      ["a constructor argument", { constructor: "x" }, /"constructor" is not allowed/],
      ["arguments a string", "x", /must be an object/],
    ];
    for (const [name, args, reason] of probes) {
      const failure = await client
        .callTool({ name: "echo", arguments: args as Record<string, unknown> })
        .then(() => null, (error: unknown) => error);
      expect(failure, name).toBeInstanceOf(McpError);
      expect((failure as McpError).code, name).toBe(-32602);
      expect((failure as McpError).message, name).toMatch(reason);
    }
    const echoed = (await client.callTool({ name: "echo", arguments: { toString: 1 } })) as { content: Array<{ text: string }> };
    expect(echoed.content[0]?.text).toBe('{"toString":1}');
    await client.close();
  });
});

describe("checkMessages", () => {
  it("walks a 100,000-level value without overflowing the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestsDeeperThan(deep, MAX_NESTING)).toBe(true);
    const refused = checkMessages({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { a: deep } } });
    expect(refused).toMatchObject({ problem: "nesting", id: 1, method: "tools/call" });
  });

  it("counts `{}` as one level and passes exactly the limit", () => {
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: {} }, 1)).toBe(true);
    expect(nestsDeeperThan("scalar", 0)).toBe(false);
    expect(checkMessages(JSON.parse(toolCall(nestedText(MAX_NESTING))))).toBeNull();
    expect(checkMessages(JSON.parse(toolCall(nestedText(MAX_NESTING + 1))))).not.toBeNull();
  });

  it("refuses depth anywhere in a message (a client's deep result, a deep _meta), naming where", () => {
    const deep = JSON.parse(nestedText(MAX_NESTING + 2)) as unknown;
    expect(checkMessages({ jsonrpc: "2.0", id: 1, result: deep })?.message).toMatch(/member "result" nests deeper than 129 levels/);
    expect(checkMessages({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: deep } })?.message).toMatch(/params member "_meta" nests/);
  });

  it("leaves other methods, absent arguments and nested reserved names alone", () => {
    expect(checkMessages({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo" } })).toBeNull();
    expect(checkMessages({ jsonrpc: "2.0", id: 1, method: "ping", params: { constructor: 1 } })).toBeNull();
    expect(checkMessages(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":{"__proto__":1}}}}'))).toBeNull();
    expect(checkMessages("not json-rpc")).toBeNull();
  });

  it("bounds the arguments' JSON size exactly: UTF-8 bytes as JSON.stringify writes them, escapes and surrogates included", () => {
    const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
    for (const text of ["plain", "é€😀", "\u0001\n\"\\", "\ud800 lone", ""]) {
      const args = { query: text.repeat(50), nested: [{ k: text, n: -1.2345678901234567e-308, b: false, z: null }], [text]: 1 };
      const exact = bytes(args);
      expect(argumentsFault(args, exact)).toBeNull();
      expect(argumentsFault(args, exact - 1)).toBe("size");
    }
    expect(argumentsFault(JSON.parse(nestedText(MAX_NESTING - 1)) as Record<string, unknown>, 10)).toBe("size");
    expect(argumentsFault(JSON.parse(nestedText(MAX_NESTING + 1)) as Record<string, unknown>, 10)).toBe("nesting");
  });

  it("refuses arguments over the byte bound as a size problem, alone and in a batch", () => {
    const call = (query: string, id = 1) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { query } } });
    expect(checkMessages(call("x".repeat(100)), 200)).toBeNull();
    expect(checkMessages(call("x".repeat(300)), 200)).toMatchObject({ problem: "size", id: 1, message: "Invalid params: tool arguments exceed 200 bytes (the server's limit)" });
    expect(checkMessages([call("ok", 1), call("x".repeat(300), 2)], 200)).toMatchObject({ problem: "size", index: 1, id: 2 });
  });

  it("answers a refused notification with 400 and id null (nothing to settle)", () => {
    const body = { jsonrpc: "2.0", method: "tools/call", params: { name: "e", arguments: "x" } };
    const answer = refusalAnswer(body, checkMessages(body)!);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ id: null, error: { code: -32602 } });
  });
});
