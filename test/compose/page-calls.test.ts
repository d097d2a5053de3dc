/**
 * The catalog page's tool calls (compose/page-calls.ts) on a real registry:
 * the whole envelope past the result window, the call's log line and
 * observer as on MCP, and refusals told apart from the server's failures.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { pageToolCaller } from "../../src/compose/page-calls.js";
import type { ToolCallOptions } from "../../src/server/protocol/surface.js";
import { objectSchema, READ_ONLY, type ToolDefinition } from "../../src/server/tools/define.js";
import { ok } from "../../src/server/tools/envelope.js";
import { createToolRegistry } from "../../src/server/tools/registry.js";

type Context = { readonly user: string | null };

const big: ToolDefinition<Context> = {
  name: "big",
  title: "Big",
  description: "answers past one result window",
  inputSchema: objectSchema({ n: { type: "integer", minimum: 0, maximum: 100_000 } }, ["n"]),
  annotations: READ_ONLY,
  handler: (args, context) => ok("big", { text: "x".repeat(Number(args["n"])), user: context.user }),
};

const slow: ToolDefinition<Context> = {
  name: "slow",
  title: "Slow",
  description: "never answers in time",
  inputSchema: objectSchema({}, []),
  annotations: READ_ONLY,
  handler: () => new Promise(() => {}),
};

function setup() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const observed: Array<{ tool: string; success: boolean }> = [];
  const options: ToolCallOptions<Context> = {
    registry: createToolRegistry([big, slow], () => {}),
    contextFor: (call) => ({ user: call.user }),
    logger: pino({ level: "info" }, sink),
    maxArgumentBytes: 1000,
    timeoutMs: 200,
    onToolCall: (event) => observed.push(event),
  };
  const caller = pageToolCaller((dcc) => (dcc === "maya" ? options : undefined));
  return { caller, lines, observed };
}

const call = (user: string | null) => ({ dcc: "maya", user, signal: new AbortController().signal });

describe("catalog page tool calls", () => {
  it("answers the whole envelope past the 8,000-character window, as the user, with MCP's log line and observer", async () => {
    const { caller, lines, observed } = setup();
    const answer = await caller(call("alice"), "big", { n: 50_000 });
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(answer.envelope).toMatchObject({ success: true, context: { user: "alice" } });
    expect((answer.envelope["context"] as { text: string }).text).toHaveLength(50_000);
    expect(lines.find((l) => l["msg"] === "tool call")).toMatchObject({ tool: "big", user: "alice", success: true });
    expect(observed).toEqual([expect.objectContaining({ tool: "big", success: true })]);
  });

  it("tells a refused call (arguments past the bound) from the server's failure (its time limit)", async () => {
    const { caller } = setup();
    const refused = await caller(call(null), "big", { n: 1, pad: "x".repeat(2000) });
    expect(refused).toMatchObject({ ok: false, refused: true, message: expect.stringMatching(/exceed 1000 bytes/) });
    const timedOut = await caller(call(null), "slow", {});
    expect(timedOut).toMatchObject({ ok: false, refused: false, message: expect.stringMatching(/time limit/) });
    expect(await caller({ ...call(null), dcc: "nope" }, "big", { n: 1 })).toMatchObject({ ok: false, refused: false });
  });

  it("answers the tool's own refusal of bad arguments as an envelope, as MCP does", async () => {
    const { caller } = setup();
    const answer = await caller(call(null), "big", { n: -1 });
    expect(answer).toMatchObject({ ok: true, envelope: { success: false, error: "invalid_input" } });
  });
});
