/**
 * runToolCall on its own, with a time limit and a context that takes the
 * call's signal: whatever way a call ends (answered synchronously, answered
 * later, a throw, the time limit), no abort listener is left on the client's
 * signal, and only a call with something to wait for is raced against a timer.
 */
import { getEventListeners } from "node:events";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { runToolCall, type CallInfo, type ToolCallOptions } from "../../../src/server/protocol/surface.js";
import type { ToolCallOutcome, ToolRegistry } from "../../../src/server/tools/registry.js";

type Context = { readonly signal: AbortSignal };

const answer = (text: string): ToolCallOutcome => ({ kind: "result", success: true, result: { content: [{ type: "text", text }], isError: false } });

/** The client's side of one call: its signal, no user. */
const from = (signal: AbortSignal): CallInfo => ({ user: null, signal });

function options(seen: AbortSignal[]): ToolCallOptions<Context> {
  const registry: ToolRegistry<Context> = {
    list: () => [],
    has: () => true,
    call(name, _args, context) {
      seen.push(context.signal);
      switch (name) {
        case "now":
          return answer("now");
        case "later":
          return new Promise((resolve) => setTimeout(() => resolve(answer("later")), 5));
        case "throws":
          throw new Error("a bug in the registry");
        default:
          return new Promise(() => undefined); // never settles: only the time limit ends it
      }
    },
  };
  return {
    registry,
    contextFor: (call) => ({ signal: call.signal }),
    logger: pino({ level: "silent" }),
    maxArgumentBytes: 1024,
    timeoutMs: 100,
  };
}

describe("runToolCall", () => {
  it("answers a synchronous call synchronously and leaves no listener on the client's signal", () => {
    const seen: AbortSignal[] = [];
    const client = new AbortController();
    const result = runToolCall(options(seen), "now", {}, from(client.signal));
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toMatchObject({ ok: true, result: { content: [{ text: "now" }] } });
    expect(getEventListeners(client.signal, "abort")).toHaveLength(0);
    // The handler saw its own signal, not the client's, and it was never aborted.
    expect(seen[0]).not.toBe(client.signal);
    expect(seen[0]!.aborted).toBe(false);
  });

  it("leaves no listener after an answer that came later, a throw, or the time limit", async () => {
    const seen: AbortSignal[] = [];
    const client = new AbortController();
    await expect(runToolCall(options(seen), "later", {}, from(client.signal))).resolves.toMatchObject({ ok: true, result: { content: [{ text: "later" }] } });
    expect(getEventListeners(client.signal, "abort")).toHaveLength(0);
    expect(() => runToolCall(options(seen), "throws", {}, from(client.signal))).toThrow("a bug in the registry");
    expect(getEventListeners(client.signal, "abort")).toHaveLength(0);
    const timedOut = await runToolCall(options(seen), "hangs", {}, from(client.signal));
    expect(timedOut).toMatchObject({ ok: false, error: { code: -32603 } });
    expect(!timedOut.ok && timedOut.error.message).toMatch(/time limit of 100 ms/);
    expect(getEventListeners(client.signal, "abort")).toHaveLength(0);
    expect(seen.at(-1)!.aborted).toBe(true);
  });

  it("checks arguments for shape, depth and size when it is given a bound (no edge of ours in front)", () => {
    const client = new AbortController();
    const refused = (args: unknown) => {
      const outcome = runToolCall(options([]), "now", args, from(client.signal));
      return !("then" in outcome) && !outcome.ok ? outcome.error : null;
    };
    expect(refused({ query: "x".repeat(2000) })).toEqual({ code: -32602, message: "Tool arguments exceed 1024 bytes" });
    expect(refused("x")).toEqual({ code: -32602, message: "Tool arguments must be an object" });
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = { a: deep };
    expect(refused(deep)?.message).toMatch(/nest deeper than 128 levels/);
    expect(refused({ query: "x" })).toBeNull();
    const { maxArgumentBytes: _, ...unbounded } = options([]);
    expect(runToolCall(unbounded, "now", { query: "x".repeat(2000) }, from(client.signal))).toMatchObject({ ok: true });
  });

  it("passes the client's cancellation on to a call still running", async () => {
    const seen: AbortSignal[] = [];
    const client = new AbortController();
    const running = Promise.resolve(runToolCall(options(seen), "hangs", {}, from(client.signal))).then(() => "ended", () => "ended");
    client.abort(new Error("client went away"));
    expect(seen[0]!.aborted).toBe(true);
    expect(await running).toBe("ended");
    expect(getEventListeners(client.signal, "abort")).toHaveLength(0);
  });
});
