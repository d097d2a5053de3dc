/**
 * The tool registry on its own: a handler that answers synchronously gets a
 * synchronous outcome (no microtask turns before the SDK sees it), an async
 * one a promise, and both render the same envelope; throws and rejections
 * alike become the `internal` answer with the tool named in the report.
 */
import { describe, expect, it } from "vitest";
import { objectSchema, READ_ONLY, type ToolDefinition } from "../../../src/server/tools/define.js";
import { ok } from "../../../src/server/tools/envelope.js";
import { isPromise } from "../../../src/server/tools/define.js";
import { createToolRegistry, type ToolCallOutcome } from "../../../src/server/tools/registry.js";

type Context = { readonly revision: number };

function tool(name: string, handler: ToolDefinition<Context>["handler"]): ToolDefinition<Context> {
  return {
    name,
    title: name,
    description: name,
    inputSchema: objectSchema({ n: { type: "integer" } }),
    annotations: READ_ONLY,
    handler,
  };
}

function registry() {
  const failures: Array<{ tool: string; error: unknown }> = [];
  const tools = createToolRegistry<Context>(
    [
      tool("now", (args) => ok("now", { n: args.n ?? 0 })),
      tool("later", async (args) => ok("now", { n: args.n ?? 0 })),
      tool("throws", () => {
        throw new Error("bug now");
      }),
      tool("rejects", async () => {
        throw new Error("bug later");
      }),
    ],
    (name, error) => failures.push({ tool: name, error }),
    (context) => context.revision,
  );
  return { tools, failures };
}

function envelopeOf(outcome: ToolCallOutcome): Record<string, unknown> {
  if (outcome.kind !== "result") throw new Error("no result");
  return JSON.parse(outcome.result.content[0]!.text) as Record<string, unknown>;
}

describe("tool registry", () => {
  it("answers a synchronous handler synchronously and an async one with a promise, with the same text", async () => {
    const { tools } = registry();
    const now = tools.call("now", { n: 3 }, { revision: 7 });
    const later = tools.call("later", { n: 3 }, { revision: 7 });
    expect(isPromise(now)).toBe(false);
    expect(isPromise(later)).toBe(true);
    const settled = await later;
    expect(envelopeOf(now as ToolCallOutcome)).toEqual({ context: { n: 3 }, message: "now", revision: 7, success: true });
    expect(settled).toEqual(now);
  });

  it("refuses bad arguments synchronously, before any handler runs", () => {
    const { tools, failures } = registry();
    const outcome = tools.call("rejects", { n: "three" }, { revision: 1 });
    expect(isPromise(outcome)).toBe(false);
    expect(envelopeOf(outcome as ToolCallOutcome)).toMatchObject({ error: "invalid_input", success: false, revision: 1 });
    expect(failures).toEqual([]);
  });

  it("turns a handler's throw and its rejection into the same internal answer, reported with the tool's name", async () => {
    const { tools, failures } = registry();
    const thrown = tools.call("throws", {}, { revision: 2 });
    expect(isPromise(thrown)).toBe(false);
    const rejected = await tools.call("rejects", {}, { revision: 2 });
    for (const outcome of [thrown as ToolCallOutcome, rejected]) {
      expect(envelopeOf(outcome)).toEqual({
        error: "internal",
        message: "Internal error while running the tool; see the server log",
        revision: 2,
        success: false,
      });
      expect(outcome.kind === "result" && outcome.result.isError).toBe(true);
    }
    expect(failures.map((f) => [f.tool, (f.error as Error).message])).toEqual([
      ["throws", "bug now"],
      ["rejects", "bug later"],
    ]);
  });

  it("answers an unknown tool as such, synchronously", () => {
    expect(registry().tools.call("nope", {}, { revision: 1 })).toEqual({ kind: "unknown_tool" });
  });
  it("renders a frozen answer of a tool that keeps its answers once, whatever window each call asks for; any other answer on every call", async () => {
    let reads = 0;
    const context = Object.freeze({
      get long(): string {
        reads += 1;
        return "x".repeat(300);
      },
    });
    const kept = Object.freeze({ success: true as const, message: "kept", revision: 4, context });
    // The same object each call, but not frozen: changed between calls, it must be rendered anew.
    const reused = { success: true as const, message: "first", revision: 4, context };
    const tools = createToolRegistry<Context>(
      [
        { ...tool("kept", () => kept), keepsAnswers: true },
        // The same frozen answer from a tool that does not say it keeps answers: rendered at every call.
        tool("undeclared", () => kept),
        { ...tool("fresh", () => ({ success: true, message: "fresh", revision: 4, context })), keepsAnswers: true },
        { ...tool("reused", () => reused), keepsAnswers: true },
      ],
      () => undefined,
      (c) => c.revision,
    );
    const page = (name: string, resultStart: number): string => {
      const outcome = tools.call(name, { resultStart, resultEnd: resultStart + 100 }, { revision: 4 }) as ToolCallOutcome;
      if (outcome.kind !== "result") throw new Error("no result");
      return outcome.result.content[0]!.text;
    };
    const pages = [0, 100, 200, 300].map((start) => page("kept", start));
    expect(reads).toBe(1);
    expect(JSON.parse(pages.join(""))).toEqual({ context: { long: "x".repeat(300) }, message: "kept", revision: 4, success: true });
    [0, 100].forEach((start) => page("fresh", start));
    expect(reads).toBe(3);
    [0, 100].forEach((start) => page("undeclared", start));
    expect(reads).toBe(5);
    const whole = (name: string): Record<string, unknown> => envelopeOf(tools.call(name, {}, { revision: 4 }) as ToolCallOutcome);
    expect(whole("reused")["message"]).toBe("first");
    reused.message = "second";
    expect(whole("reused")["message"]).toBe("second");
  });
});
