/**
 * The catalog page's tool calls: one call on a DCC's tools through exactly
 * the path an MCP `tools/call` on that DCC's endpoint takes (argument checks,
 * the handler with the same context and caller, the call's log line, the
 * tool-call metrics, the server's time limit), answering the whole envelope
 * rather than a result window, since the page is in this process.
 */
import { INVALID_PARAMS } from "../server/protocol/outcome.js";
import { runToolCall, type ToolCallOptions } from "../server/protocol/surface.js";
import type { ToolRegistry } from "../server/tools/registry.js";
import { thenMaybe } from "../server/tools/define.js";
import type { PageToolCaller } from "../server/ui/routes.js";

export function pageToolCaller<C>(optionsOf: (dcc: string) => ToolCallOptions<C> | undefined): PageToolCaller {
  return async ({ dcc, user, signal }, name, args) => {
    const options = optionsOf(dcc);
    if (options === undefined) return { ok: false, refused: false, message: `No tools for DCC ${dcc}` };
    let whole: Readonly<Record<string, unknown>> | undefined;
    const registry: ToolRegistry<C> = {
      list: () => options.registry.list(),
      has: (tool) => options.registry.has(tool),
      call: (tool, callArgs, context) =>
        thenMaybe(options.registry.call(tool, callArgs, context), (outcome) => {
          if (outcome.kind === "result") whole = outcome.envelope;
          return outcome;
        }),
    };
    const outcome = await runToolCall({ ...options, registry }, name, args, { user, signal });
    if (!outcome.ok) return { ok: false, refused: outcome.error.code === INVALID_PARAMS, message: outcome.error.message };
    if (whole === undefined) return { ok: false, refused: false, message: "The tool answered no envelope" };
    return { ok: true, envelope: whole };
  };
}
