/**
 * What a connection may hold without a request: a socket that sends
 * nothing, a few bytes, or a request line and then goes quiet is closed
 * once the request timeout has passed (the half-sent one with a 408), so a
 * silent client cannot keep a file descriptor forever; and no more than
 * `maxConnections` are open at once (past that, 503 and close).
 *
 * A connection is quiet from its accept until its first request's headers
 * have arrived, and again from the end of each response until the next
 * request's; while a request is being answered (a tool call, an SSE
 * stream) the tool and session limits apply instead. Between requests a
 * kept-alive connection may wait as long as the keep-alive timeout the
 * server announces (clients close theirs before it; closing one sooner
 * would race a client's next request on it). Node's own headersTimeout covers part
 * of this, depending on its version and on when its periodic check runs;
 * this does not depend on either.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { JSONRPC, rawJsonRpcError, REQUEST_TIMEOUT_MESSAGE } from "./refusals.js";

interface ConnectionGuardOptions {
  readonly maxConnections: number;
  /** How long a new connection may go without a complete request. */
  readonly quietMs: number;
  /** How long a kept-alive connection may wait between requests (at least quietMs). */
  readonly keepAliveMs: number;
  readonly onRefused?: (reason: "cap" | "quiet") => void;
}

interface ConnectionState {
  /** Requests on the connection being answered now. */
  busy: number;
  timer: NodeJS.Timeout | undefined;
  /** The period `timer` was armed for: re-armed for the same period, it is refreshed rather than made anew. */
  timerMs: number;
  /** socket.bytesRead when the quiet period began: more since means a request was started. */
  readAtQuiet: number;
}

export function installConnectionGuard(server: Server, options: ConnectionGuardOptions): { open(): number } {
  const states = new WeakMap<Socket, ConnectionState>();
  let open = 0;
  const tooMany = rawJsonRpcError(503, JSONRPC.overloaded, `Too many connections (max ${options.maxConnections}); try again shortly`, "Retry-After: 1\r\n");
  const timedOut = rawJsonRpcError(408, JSONRPC.invalidRequest, REQUEST_TIMEOUT_MESSAGE);

  const expire = (socket: Socket, state: ConnectionState): void => {
    state.timer = undefined;
    if (state.busy > 0 || socket.destroyed) return;
    options.onRefused?.("quiet");
    if (socket.bytesRead > state.readAtQuiet && socket.writable) {
      // A request was begun: say why it ends, then close whatever the client does.
      socket.end(timedOut);
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  };
  const betweenMs = Math.max(options.quietMs, options.keepAliveMs);
  const quiet = (socket: Socket, state: ConnectionState, ms: number): void => {
    state.readAtQuiet = socket.bytesRead;
    // A kept-alive connection re-arms the same period after every request:
    // refreshing the one timer costs no allocation per request.
    if (state.timer !== undefined && state.timerMs === ms) {
      state.timer.refresh();
      return;
    }
    clearTimeout(state.timer);
    state.timer = setTimeout(expire, ms, socket, state);
    state.timer.unref();
    state.timerMs = ms;
  };

  server.on("connection", (socket: Socket) => {
    if (open >= options.maxConnections) {
      options.onRefused?.("cap");
      socket.on("error", () => undefined);
      socket.end(tooMany);
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    open += 1;
    const state: ConnectionState = { busy: 0, timer: undefined, timerMs: 0, readAtQuiet: 0 };
    states.set(socket, state);
    quiet(socket, state, options.quietMs);
    socket.once("close", () => {
      open -= 1;
      clearTimeout(state.timer);
    });
  });

  server.on("request", (request, response) => {
    const socket = request.socket;
    const state = states.get(socket);
    if (state === undefined) return;
    // The timer keeps running while requests are answered (expire leaves a
    // busy connection alone, and the request's end re-arms it): stopping and
    // remaking it per request cost a timer each time.
    state.busy += 1;
    response.once("close", () => {
      state.busy -= 1;
      if (state.busy === 0 && !socket.destroyed) quiet(socket, state, betweenMs);
    });
  });

  return { open: () => open };
}
