/** What the HTTP surface (app.ts) serves: MCP endpoints, their list changes, its limits. */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Server as ModernServer } from "@modelcontextprotocol/server";
import type { HttpLimits } from "../../config/types.js";

export type { HttpLimits };

export interface McpEndpoint {
  readonly path: string;
  /**
   * A 1.32.2 server for one 2025-era session (or one stateless 2025 request);
   * `user`: who the users file says opened it (its handlers see the caller per request as `authInfo`).
   */
  createServer(user?: string): Server;
  /** A v2 server for one 2026-07-28 request (`user` as above); without it the endpoint speaks the 2025 revisions only. */
  createModernServer?(user?: string): ModernServer;
}

/** What a reload changed on an endpoint, for the list_changed notifications of both eras. */
export interface ListChange {
  readonly resources?: boolean;
  readonly prompts?: boolean;
  /**
   * Whose lists changed (users file: one user's playbooks): only that user's
   * sessions and listen streams are told. Absent: everyone's (public recipes).
   */
  readonly user?: string;
}
