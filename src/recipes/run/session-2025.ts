/**
 * A DCC session through SDK 1.32.2's client (StreamableHTTPClientTransport,
 * protocol 2025-11-25 with the SDK's fallback to older 2025 revisions): what
 * today's adapters (dcc-mcp-maya, dcc-mcp-blender …) speak. An endpoint
 * that answers initialize with "Unsupported protocol version" (-32022, a
 * 2026-07-28-only server) is reported as such, for session-2026.ts to try.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { listedTools, requestOptions as options, toolResultOf, type Bounds, type DccSession, type SessionFailure, type SessionOpened, type SessionTarget } from "./dcc-session.js";

/** JSON-RPC "Unsupported protocol version" (2026-07-28), as a 2026-only endpoint answers a 2025 initialize. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export async function openSession2025(target: SessionTarget, bounds: Bounds): Promise<SessionOpened> {
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: { headers: { ...target.headers } },
    // No reconnection loop of the GET stream behind the engine's back: the next run reconnects.
    reconnectionOptions: { maxReconnectionDelay: 30_000, initialReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 0 },
  });
  const client = new Client({ name: target.clientInfo.name, version: target.clientInfo.version }, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => target.onToolsChanged());
  client.onclose = () => target.onClosed();
  try {
    await client.connect(transport, options(bounds));
  } catch (error) {
    await client.close().catch(() => undefined);
    if (refusesRevision(error)) return { ok: false, revisionRefused: "2025-11-25" };
    throw error;
  }
  const session: DccSession = {
    revision: transport.protocolVersion ?? "2025-11-25",
    ping: async (b) => {
      await client.ping(options(b));
    },
    listTools: async (cursor, b) => listedTools(await client.listTools(cursor !== undefined ? { cursor } : {}, options(b))),
    callTool: async (name, args, b) => toolResultOf(await client.callTool({ name, arguments: args }, undefined, options(b))),
    classify,
    close: () => client.close().catch(() => undefined),
  };
  return { ok: true, session };
}

function classify(error: unknown): SessionFailure {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { kind: "timeout" };
  if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) return { kind: "refused", code: error.code, message: error.message };
  return { kind: "broken" };
}

/** The HTTP 400 a 2026-only endpoint answers a 2025 initialize with carries -32022 in its JSON-RPC body. */
function refusesRevision(error: unknown): boolean {
  if (error instanceof McpError) return error.code === UNSUPPORTED_PROTOCOL_VERSION;
  return error instanceof Error && /"code"\s*:\s*-32022\b/.test(error.message);
}
