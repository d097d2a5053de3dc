/**
 * Message checks that run on the parsed JSON-RPC body before the MCP SDK
 * sees it: the edge, where a tool call's arguments are checked for shape,
 * depth and size, once (the registry then checks them against the tool's
 * schema, and nothing checks them in between). The SDK's zod schemas answer
 * hostile shapes with -32603 and a raw zod dump (`arguments` a string, a
 * top-level `constructor` key), drop a `__proto__` argument silently, and
 * deep nesting overflows the stack in whatever walks it first. Here those
 * become -32602 with our own message, found by walks that stop at the limit
 * (they recurse at most that deep, so no input can overflow them).
 */
import type { preHandlerHookHandler } from "fastify";
import { measure } from "../../jsonschema/limits.js";
import { JSONRPC } from "./refusals.js";
import { isPlainObject as isRecord } from "../../jsonschema/json.js";

/**
 * Levels a value inside `params` (tool arguments above all) may nest: `{}`
 * is one level. The same bound docs/jsonschema.md puts on schemas and instances, so an
 * argument that passes here is never too deep for the validator either.
 */
export const MAX_NESTING = 128;

/**
 * Top-level argument names refused: zod's record check reads `constructor`
 * as the object's class and fails, and `__proto__` is dropped on the way to
 * the tool, so either would reach the tool wrong or not at all.
 */
const RESERVED_ARGUMENT_NAMES = ["constructor", "__proto__"] as const;

type MessageProblem = "nesting" | "size" | "arguments" | "reserved_name" | "tool_name" | "params";

interface RefusedMessage {
  /** Position in the batch (0 for a single message). */
  readonly index: number;
  /** The request's id, or null for a notification or an id that is not one. */
  readonly id: string | number | null;
  readonly method: string | null;
  readonly problem: MessageProblem;
  readonly message: string;
}

/**
 * The first refusable message of a parsed body (one message or a batch), or
 * null. Bodies that are not JSON-RPC objects are left to the SDK, which
 * answers them as it does today. `maxArgumentBytes` bounds the JSON size of
 * a tool call's arguments (as JSON.stringify writes them, in UTF-8).
 */
export function checkMessages(body: unknown, maxArgumentBytes = Infinity): RefusedMessage | null {
  if (!Array.isArray(body)) return checkMessage(body, 0, maxArgumentBytes);
  for (let index = 0; index < body.length; index++) {
    const refused = checkMessage(body[index], index, maxArgumentBytes);
    if (refused !== null) return refused;
  }
  return null;
}

function checkMessage(message: unknown, index: number, maxArgumentBytes: number): RefusedMessage | null {
  if (!isRecord(message)) return null;
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
  const method = typeof message.method === "string" ? message.method : null;
  const refuse = (problem: MessageProblem, text: string): RefusedMessage => ({ index, id, method, problem, message: text });
  // Every member is walked: a deep `result` (a client's answer to a server
  // request) or `_meta` is as able to overflow a walk as deep arguments.
  for (const key of Object.keys(message)) {
    const value = message[key];
    if (key === "params" && isRecord(value)) {
      for (const name of Object.keys(value)) {
        const member = value[name];
        if (method === "tools/call" && name === "arguments" && isRecord(member)) {
          // Depth and size in one walk: the only time a call's arguments are measured.
          const fault = argumentsFault(member, maxArgumentBytes);
          if (fault === "nesting") return refuse("nesting", `Invalid params: tool arguments nest deeper than ${MAX_NESTING} levels (the server's limit)`);
          if (fault === "size") return refuse("size", `Invalid params: tool arguments exceed ${maxArgumentBytes} bytes (the server's limit)`);
        } else if (nestsDeeperThan(member, MAX_NESTING)) {
          const what = method === "tools/call" && name === "arguments" ? "tool arguments nest" : `params member ${clip(name)} nests`;
          return refuse("nesting", `Invalid params: ${what} deeper than ${MAX_NESTING} levels (the server's limit)`);
        }
      }
    } else if (nestsDeeperThan(value, MAX_NESTING + 1)) {
      return refuse("nesting", `Invalid request: member ${clip(key)} nests deeper than ${MAX_NESTING + 1} levels (the server's limit)`);
    }
  }
  return method === "tools/call" ? checkToolCall(message.params, refuse) : null;
}

function checkToolCall(
  params: unknown,
  refuse: (problem: MessageProblem, text: string) => RefusedMessage,
): RefusedMessage | null {
  if (!isRecord(params)) return refuse("params", "Invalid params: tools/call needs params as an object with a tool name");
  if (typeof params.name !== "string") return refuse("tool_name", "Invalid params: the tool name (params.name) must be a string");
  const args = params.arguments;
  if (args === undefined) return null;
  if (!isRecord(args)) {
    return refuse("arguments", `Invalid params: tool arguments must be an object, got ${kindOf(args)}`);
  }
  for (const name of RESERVED_ARGUMENT_NAMES) {
    if (Object.hasOwn(args, name)) {
      return refuse("reserved_name", `Invalid params: "${name}" is not allowed as a tool argument name`);
    }
  }
  return null;
}

/** Stops as soon as `limit` is passed, so it costs at most the body's size (the walk recurses at most `limit` deep). */
export function nestsDeeperThan(root: unknown, limit: number): boolean {
  return measure(root, limit, Infinity, false) === "too_deep";
}

/**
 * Tool arguments (an object) too deep for MAX_NESTING, larger than
 * `maxBytes` as JSON, or neither. One walk checks the depth (as
 * nestsDeeperThan) and sums an upper bound on the JSON text's UTF-8 size;
 * only arguments whose bound passes `maxBytes` are serialized to be measured
 * exactly, so a call of ordinary size is never stringified here.
 */
export function argumentsFault(args: Readonly<Record<string, unknown>>, maxBytes: number): "nesting" | "size" | null {
  const bound = boundObject(args, MAX_NESTING - 1);
  if (bound === TOO_DEEP) return "nesting";
  if (bound <= maxBytes || Buffer.byteLength(JSON.stringify(args)) <= maxBytes) return null;
  return "size";
}

const TOO_DEEP = -1;
/** Bytes a scalar takes at most: a number's longest form ("-1.2345678901234567e-308") and the separators. */
const SCALAR_BYTES = 32;

/**
 * An upper bound on the UTF-8 size of `o`'s JSON text, or TOO_DEEP; `levels`:
 * how many more levels of containers may nest below this one. A UTF-16 unit
 * is at most 6 bytes of JSON (`\u001f`, a lone surrogate's `\udc00`).
 */
function boundObject(o: Readonly<Record<string, unknown>>, levels: number): number {
  let bytes = 2;
  for (const key in o) {
    const x = o[key];
    // quotes, colon, comma
    bytes += 4 + 6 * key.length;
    const inner = boundValue(x, levels);
    if (inner === TOO_DEEP) return TOO_DEEP;
    bytes += inner;
  }
  return bytes;
}

function boundArray(a: readonly unknown[], levels: number): number {
  let bytes = 2 + a.length;
  for (let i = 0; i < a.length; i++) {
    const inner = boundValue(a[i], levels);
    if (inner === TOO_DEEP) return TOO_DEEP;
    bytes += inner;
  }
  return bytes;
}

function boundValue(x: unknown, levels: number): number {
  if (typeof x === "string") return 2 + 6 * x.length;
  if (typeof x !== "object" || x === null) return SCALAR_BYTES;
  if (levels === 0) return TOO_DEEP;
  return Array.isArray(x) ? boundArray(x, levels - 1) : boundObject(x as Record<string, unknown>, levels - 1);
}

/** A batch's own limits: not empty, at most `maxBatch` messages. */
export function checkBatch(body: unknown, maxBatch: number): string | null {
  if (!Array.isArray(body)) return null;
  if (body.length === 0) return "Invalid Request: empty batch";
  if (body.length > maxBatch) return `Invalid Request: batch of ${body.length} messages exceeds the limit of ${maxBatch}`;
  return null;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Member names come from the client: bounded before they reach a message or a log line. */
function clip(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/**
 * The JSON-RPC answer to a body holding a refused message. A single request
 * gets its error with its id (HTTP 200, so the client settles that request);
 * a batch is refused whole, every request in it answered: the refused one
 * with its reason, the others with -32600 saying why they did not run. A body
 * with no request to answer (notifications only) gets 400 with id null.
 */
export function refusalAnswer(body: unknown, refused: RefusedMessage): { status: number; body: string } {
  const error = (id: string | number | null, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } });
  if (!Array.isArray(body)) {
    const answer = error(refused.id, JSONRPC.invalidParams, refused.message);
    return { status: refused.id === null ? 400 : 200, body: JSON.stringify(answer) };
  }
  const answers: Array<ReturnType<typeof error>> = [];
  body.forEach((message: unknown, index) => {
    if (index === refused.index) {
      if (refused.id !== null) answers.push(error(refused.id, JSONRPC.invalidParams, refused.message));
      return;
    }
    const id = isRecord(message) && (typeof message.id === "string" || typeof message.id === "number") ? message.id : null;
    if (id !== null && isRecord(message) && typeof message.method === "string") {
      answers.push(error(id, JSONRPC.invalidRequest, `Not run: message ${refused.index} of this batch was refused (${refused.message})`));
    }
  });
  if (answers.length === 0) return { status: 400, body: JSON.stringify(error(null, JSONRPC.invalidParams, refused.message)) };
  return { status: 200, body: JSON.stringify(answers) };
}

/**
 * The check of every POST body on the MCP endpoints before their handlers,
 * as a route-level preHandler (each endpoint route carries it, so every
 * protocol leg and mode, stateful or stateless, gets it, and no other
 * route pays for it).
 */
export function messageChecks(maxArgumentBytes: number): preHandlerHookHandler {
  return (request, reply, done) => {
    if (request.method !== "POST") {
      done();
      return;
    }
    const refused = checkMessages(request.body, maxArgumentBytes);
    if (refused === null) {
      done();
      return;
    }
    const limit = refused.problem === "size" ? maxArgumentBytes : MAX_NESTING;
    request.log.warn({ rpcMethod: refused.method, problem: refused.problem, index: refused.index, limit }, "message refused");
    const answer = refusalAnswer(request.body, refused);
    // Answered here: fastify skips the handler when a hook sends and does not call done.
    reply.code(answer.status).header("content-type", "application/json").send(answer.body);
  };
}
