/**
 * An SDK line's own ceiling: fastify + that line's MCP server with nothing
 * behind it, wired as recipe-server wires that line (hijack, then the SDK),
 * answering each tool with a constant result. With a results file the
 * constants are byte-identical to what recipe-server answered for the
 * bench's calls, so the two sides write the same bytes and only the work
 * behind them differs.
 *
 *   node bare-server.mjs legacy|modern [results.json]
 *
 * legacy: SDK 1.32.2 low-level Server + StreamableHTTPServerTransport, stateful sessions.
 * modern: the v2 SDK's createMcpHandler (legacy: 'reject'), one v2 Server per request.
 *
 * bench/server.ts bundles this file into a directory holding a clean install
 * of that line's packages (the SDK's declared dependencies at their newest
 * matching versions), never the project's node_modules: each mode imports
 * only its own line, so each bundle resolves against its own install.
 * Prints its URL on stdout as a JSON line.
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";
import { routeBare, type BareResult } from "./bare-routes.js";

const mode = process.argv[2] === "modern" ? "modern" : "legacy";
const constants: Record<string, BareResult> =
  process.argv[3] !== undefined
    ? (JSON.parse(readFileSync(process.argv[3], "utf8")) as Record<string, BareResult>)
    : { constant: { content: [{ type: "text", text: '{"success":true,"message":"constant"}' }] } };

const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });
await routeBare(app, mode, constants);

// An orderly exit on SIGTERM, so that a `--cpu-prof` run writes its profile.
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`, mode })}\n`);
