/**
 * Recipes as MCP prompts: the entry for a protocol leg.
 *
 * API (protocol-neutral: no HTTP, no SDK types; answers are data):
 *
 *   const prompts = createPromptsProvider({
 *     source,              // { current(): CatalogSnapshot | null }, e.g. the DCC's RecipeLibrary
 *     maxArgumentBytes?,   // bound on one prompts/get's arguments (default 1 MiB)
 *     onInvalidSchema?,    // (recipeId) => void, for a recipe whose inputs_schema fails closed
 *     pageSize?, pageBytes?,
 *   });
 *   prompts.list(params)   // prompts/list: params = request params ({ cursor? }) or undefined
 *     -> Outcome<{ prompts: Prompt[]; nextCursor?: string }>      (synchronous)
 *   prompts.get(params)    // prompts/get: params = { name, arguments?: Record<string, string> }
 *     -> Outcome<{ description?: string; messages: PromptMessage[] }>   (synchronous)
 *
 *   Outcome<T> = { ok: true; result: T } | { ok: false; error: { code, message, data? } }
 *   -- send `error` as the JSON-RPC error (v2: throw new ProtocolError(code, message, data));
 *      codes: -32602 bad params / unknown prompt / invalid arguments (data.fields names them),
 *      -32603 catalog still loading or a recipe schema that fails closed.
 *
 * One provider per catalog source, shared by every server and request of an
 * endpoint: it keeps one index per snapshot. Results carry no cache fields:
 * the 2026-07-28 leg adds `ttlMs`/`cacheScope` to prompts/list. Send
 * `notifications/prompts/list_changed` when a reload is visible
 * (`library.onChange((s, previous, change) => previous !== null && change.visible)`),
 * as for resources. The 1.32.2 leg is `attachPromptsAndSkills` (attach.ts); the v2
 * leg is modern-surfaces.ts.
 */
export { createPromptsProvider } from "./provider.js";
export type { CatalogReader, GetPromptResult, ListPromptsResult, Prompt, PromptsProvider, PromptsProviderOptions } from "./provider.js";
export type { PromptArgument } from "./arguments.js";
export type { PromptMessage } from "./messages.js";
export { INTERNAL_ERROR, INVALID_PARAMS, type Outcome, type RpcErrorDatum } from "./outcome.js";
export { promptName } from "./names.js";
export { attachPromptsAndSkills } from "./attach.js";
