/**
 * prompts/list and prompts/get on a 1.32.2 SDK `Server` (the 2025-era leg),
 * answered by the protocol-neutral provider; its error data become McpErrors,
 * which the SDK sends as JSON-RPC errors.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { GetPromptRequestSchema, ListPromptsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Outcome } from "./outcome.js";
import type { PromptsProvider } from "./provider.js";

/** Declares `prompts.listChanged` and answers both methods. Call before connect. */
export function attachPromptsLegacy(server: Server, prompts: PromptsProvider): void {
  server.registerCapabilities({ prompts: { listChanged: true } });
  server.setRequestHandler(ListPromptsRequestSchema, (request) => unwrap(prompts.list(request.params)) as never);
  server.setRequestHandler(GetPromptRequestSchema, (request) => unwrap(prompts.get(request.params)) as never);
}

/** A provider's result, or its error datum thrown as the SDK's McpError (both eras' SDKs read `code`, `message` and `data` off it). */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.result;
  throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
}
