/**
 * The catalog page's way into the tools: a call through the same registry
 * the MCP endpoints use (same argument validation, same handlers, same search
 * engine), paged through the result windows and parsed back into the
 * envelope. The tools stay ignorant of HTTP; this adapter is the only glue.
 */
import type { ToolRegistry } from "../tools/registry.js";

/** Windows read at most per call: 64 × 8,000 characters; the page asks for small answers. */
const MAX_WINDOWS = 64;
const WINDOW = 8000;

export type AdapterAnswer =
  | { readonly kind: "envelope"; readonly envelope: Readonly<Record<string, unknown>> }
  | { readonly kind: "too_large" }
  | { readonly kind: "unknown_tool" };

export async function callToolFully<C>(registry: ToolRegistry<C>, name: string, args: Readonly<Record<string, unknown>>, context: C): Promise<AdapterAnswer> {
  let text = "";
  for (let i = 0; i < MAX_WINDOWS; i++) {
    const outcome = await registry.call(name, { ...args, resultStart: i * WINDOW, resultEnd: (i + 1) * WINDOW }, context);
    if (outcome.kind === "unknown_tool") return { kind: "unknown_tool" };
    const { result } = outcome;
    if (i === 0 && result.structuredContent !== undefined) return { kind: "envelope", envelope: result.structuredContent };
    text += result.content[0]?.text ?? "";
    // A second block is the page marker: more follows.
    if (result.content.length < 2) return { kind: "envelope", envelope: JSON.parse(text) as Record<string, unknown> };
  }
  return { kind: "too_large" };
}
