/** Small facts about one HTTP request and its reply (app.ts, legacy-leg.ts). */
import type { FastifyReply } from "fastify";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** After hijack fastify no longer writes; headers its hooks set must be copied. */
export function hijack(reply: FastifyReply): void {
  const headers = reply.getHeaders();
  reply.hijack();
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !reply.raw.headersSent) reply.raw.setHeader(name, value as string | number | string[]);
  }
  reply.raw.on("error", ignore);
}

/** Socket errors after hijack (a client gone mid-answer) are the client's business. */
export function ignore(): void {}

/** The path of a request URL, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

export function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((message) => isInitializeRequest(message));
  return isInitializeRequest(body);
}

export function checkBatch(body: unknown, maxBatch: number): string | null {
  if (!Array.isArray(body)) return null;
  if (body.length === 0) return "Invalid Request: empty batch";
  if (body.length > maxBatch) return `Invalid Request: batch of ${body.length} messages exceeds the limit of ${maxBatch}`;
  return null;
}
