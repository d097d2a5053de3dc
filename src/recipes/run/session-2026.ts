/**
 * A DCC session through the v2 SDK client (`@modelcontextprotocol/client`)
 * pinned to 2026-07-28: for endpoints that speak only that revision (no
 * initialize, no session; each request carries its own `_meta`). Loaded on
 * demand by mcp-connection.ts, only when an endpoint refused 2025-11-25.
 * The tool list is read per connection like the 2025 leg's (a 2026 endpoint
 * announces changes only on a subscriptions/listen stream, which this
 * client does not open: the list is read again after a reconnect).
 */
import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { listedTools, requestOptions as options, toolResultOf, type Bounds, type DccSession, type SessionFailure, type SessionOpened, type SessionTarget } from "./dcc-session.js";

const MODERN_REVISION = "2026-07-28";

export async function openSession2026(target: SessionTarget, bounds: Bounds): Promise<SessionOpened> {
  const transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: { ...target.headers } } });
  const client = new Client({ name: target.clientInfo.name, version: target.clientInfo.version }, { versionNegotiation: { mode: { pin: MODERN_REVISION } } });
  client.onclose = () => target.onClosed();
  try {
    await client.connect(transport, options(bounds));
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  const session: DccSession = {
    revision: client.getNegotiatedProtocolVersion() ?? MODERN_REVISION,
    ping: async (b) => {
      await client.ping(options(b));
    },
    listTools: async (cursor, b) => listedTools(await client.listTools(cursor !== undefined ? { cursor } : {}, options(b))),
    callTool: async (name, args, b) => toolResultOf(await client.callTool({ name, arguments: args }, options(b))),
    classify,
    close: () => client.close().catch(() => undefined),
  };
  return { ok: true, session };
}

function classify(error: unknown): SessionFailure {
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return { kind: "timeout" };
  if (error instanceof ProtocolError) return { kind: "refused", code: error.code, message: error.message };
  return { kind: "broken" };
}
