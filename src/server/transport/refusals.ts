/**
 * Refusals that Node or fastify would otherwise answer in their own shape (an
 * empty body, fastify's `{error, code, statusCode}`, a dropped socket): each
 * gets the JSON-RPC error body every other refusal has.
 */
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { rawJsonRpcError, sendJsonRpcError } from "./http-errors.js";
import { JSONRPC, jsonRpcErrorBody } from "./jsonrpc.js";

/** Fastify's `frameworkErrors`: a URL that does not decode (`/mcp%zz`), a failing route constraint. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === "FST_ERR_BAD_URL" ? "Bad Request: the URL is not valid" : "Bad Request";
  void sendJsonRpcError(reply, 400, JSONRPC.invalidRequest, message);
}

const MCP_METHODS = "GET, POST, DELETE";
/** Methods no MCP endpoint serves; fastify would answer them 404 as if the path did not exist. */
const OTHER_METHODS = ["PUT", "PATCH", "OPTIONS"] as const;

export function installRefusals(fastify: FastifyInstance, mcpPaths: readonly string[], stateless: boolean): void {
  const allow = stateless ? "POST" : MCP_METHODS;
  for (const url of mcpPaths) {
    fastify.route({
      method: [...OTHER_METHODS],
      url,
      handler: async (request, reply) => {
        await sendJsonRpcError(reply, 405, JSONRPC.serverError, `Method not allowed: ${request.method} (allowed: ${allow})`, { allow });
      },
    });
  }
  // Node answers an Expect other than 100-continue with an empty 417 unless told otherwise.
  fastify.server.on("checkExpectation", (_request, response) => {
    const body = jsonRpcErrorBody(JSONRPC.invalidRequest, "Expectation Failed: only Expect: 100-continue is supported");
    response.writeHead(417, { connection: "close", "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
  });
  // Node drops a CONNECT's socket without a word when nothing listens for it.
  fastify.server.on("connect", (_request, socket: Duplex) => {
    socket.end(rawJsonRpcError(405, JSONRPC.serverError, "Method not allowed: CONNECT", `Allow: ${allow}\r\n`));
  });
}
