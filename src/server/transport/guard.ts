/**
 * Request guards that run before any MCP handling: DNS-rebinding protection
 * (Host and Origin compared by hostname, as the MCP spec requires servers to
 * validate Origin) and bearer-token auth.
 *
 * Routes by who may ask: /healthz and /readyz answer anyone who passes Host
 * and Origin (probes carry no token; /readyz says only ready or not);
 * /status and /metrics are the operator's (--token): a user's token from
 * the users file gets 403 there, as the operator's token does on MCP.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { JSONRPC, type JsonRpcCode } from "./refusals.js";
import type { UsersTable } from "./users.js";

const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

export interface GuardOptions {
  readonly bindHost: string;
  readonly bindIsLoopback: boolean;
  /** Hostnames or full origins given with --allowed-origin. */
  readonly allowedOrigins: readonly string[];
  readonly token: string | null;
  /**
   * With a users file: its current table (re-read on change, so asked per
   * request). A user's token passes as that user; --token, when also set,
   * still passes but as no user (the operator: status, metrics, the page).
   */
  readonly users?: () => UsersTable;
  /** Paths served without the token (besides the probes): pages that hold no data. Host and Origin still apply. */
  readonly isPublic?: (path: string) => boolean;
}

type GuardVerdict =
  | { readonly ok: true; readonly user?: string }
  | { readonly ok: false; readonly status: 400 | 401 | 403; readonly code: JsonRpcCode; readonly message: string };

interface GuardHeaders {
  readonly host?: string | undefined;
  readonly origin?: string | undefined;
  readonly authorization?: string | undefined;
  /** The request's HTTP version ("1.1", "1.0"): HTTP/1.1 requires exactly one Host. */
  readonly httpVersion?: string | undefined;
  /** The request's raw header list (name, value, …): Node keeps only the first of several Host lines. */
  readonly rawHeaders?: readonly string[] | undefined;
}

interface RequestGuard {
  check(headers: GuardHeaders, path: string): GuardVerdict;
}

/** Served without a token: liveness and a bare ready/not ready. */
const PROBE_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);
/** The operator's: never opened by a user's token. */
const OPERATOR_PATHS: ReadonlySet<string> = new Set(["/status", "/metrics"]);

const OK: GuardVerdict = Object.freeze({ ok: true });
const OPERATOR_ONLY: GuardVerdict = Object.freeze({ ok: false, status: 403, code: JSONRPC.forbidden, message: "Forbidden: this route needs the operator's token (--token)" });
const UNAUTHORIZED: GuardVerdict = Object.freeze({ ok: false, status: 401, code: JSONRPC.unauthorized, message: "Unauthorized: a valid bearer token is required" });
/** Distinct header values whose verdict is remembered; past this a memo starts over. */
const MEMO_LIMIT = 256;

/** A pure string predicate remembered per value, in bounded memory (hostile clients may send many values). */
function memo(test: (value: string) => boolean): (value: string) => boolean {
  const known = new Map<string, boolean>();
  return (value) => {
    let verdict = known.get(value);
    if (verdict === undefined) {
      verdict = test(value);
      if (known.size >= MEMO_LIMIT) known.clear();
      known.set(value, verdict);
    }
    return verdict;
  };
}

export function createRequestGuard(options: GuardOptions): RequestGuard {
  const hostnames = new Set(LOOPBACK_HOSTNAMES);
  const exactOrigins = new Set<string>();
  // The address we listen on is always a name clients may use (127.0.0.2 is
  // loopback too); only the wildcard binds name no host.
  const bind = options.bindHost.toLowerCase().replace(/^\[|\]$/g, "");
  if (bind !== "0.0.0.0" && bind !== "::") {
    hostnames.add(bind);
    if (bind.includes(":")) hostnames.add(`[${bind}]`);
  }
  for (const entry of options.allowedOrigins) {
    if (entry.includes("://")) {
      const parsed = safeUrl(entry);
      if (parsed !== null) {
        exactOrigins.add(parsed.origin);
        hostnames.add(parsed.hostname.toLowerCase());
      }
    } else {
      hostnames.add(entry.toLowerCase());
    }
  }
  const expected = options.token === null ? null : digest(options.token);
  const users = options.users;
  // A client sends the same Host and Origin on every request: parsing them
  // (a regex, a URL) once per value, not once per request, is most of the
  // guard's cost.
  const isHostAllowed = memo((host) => {
    const hostname = hostnameOfHostHeader(host);
    return hostname !== null && hostnames.has(hostname);
  });
  const isOriginAllowed = memo((value) => {
    const origin = safeUrl(value);
    return origin !== null && (exactOrigins.has(origin.origin) || hostnames.has(origin.hostname.toLowerCase()));
  });

  return {
    check(headers, path) {
      // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without
      // Host and to any request with more than one. Node's own 400 for the
      // first has an empty body, so it is turned off and answered here.
      if (headers.httpVersion === "1.1" && headers.host === undefined) {
        return { ok: false, status: 400, code: JSONRPC.invalidRequest, message: "Bad Request: an HTTP/1.1 request needs a Host header" };
      }
      if (headers.rawHeaders !== undefined && hostLines(headers.rawHeaders) > 1) {
        return { ok: false, status: 400, code: JSONRPC.invalidRequest, message: "Bad Request: more than one Host header" };
      }
      // Host is checked only for a loopback bind: that is where DNS rebinding
      // turns a browser into a client; a server bound to a public interface is
      // reached under names we cannot know, and the token guards it.
      if (options.bindIsLoopback && headers.host !== undefined && !isHostAllowed(headers.host)) {
        return { ok: false, status: 403, code: JSONRPC.forbidden, message: "Forbidden: Host header is not allowed" };
      }
      if (headers.origin !== undefined && headers.origin !== "" && !isOriginAllowed(headers.origin)) {
        return { ok: false, status: 403, code: JSONRPC.forbidden, message: "Forbidden: Origin is not allowed" };
      }
      if ((expected !== null || users !== undefined) && !PROBE_PATHS.has(path) && options.isPublic?.(path) !== true) {
        const given = bearerToken(headers.authorization);
        if (given === null) return UNAUTHORIZED;
        if (users !== undefined) {
          // Both compares always run: which one matched is not timed either.
          const user = users().authenticate(given);
          const operator = expected !== null && timingSafeEqual(digest(given), expected);
          if (user !== null) return OPERATOR_PATHS.has(path) ? OPERATOR_ONLY : { ok: true, user };
          return operator ? OK : UNAUTHORIZED;
        }
        if (expected !== null && !timingSafeEqual(digest(given), expected)) return UNAUTHORIZED;
      }
      return OK;
    },
  };
}

function hostLines(rawHeaders: readonly string[]): number {
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === "host") lines += 1;
  }
  return lines;
}

/** Hashing both sides first gives equal lengths, so the compare is constant-time. */
function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function safeUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** The credentials of an `Authorization: Bearer …` header; the scheme is case-insensitive (RFC 9110 §11.1). */
function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^bearer +(\S+)$/i.exec(header);
  return match?.[1] ?? null;
}

/** Host is `host[:port]` (RFC 9110 §7.2): anything else (userinfo, paths, spaces) is refused outright. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i;

function hostnameOfHostHeader(host: string): string | null {
  if (!HOST_HEADER.test(host)) return null;
  const parsed = safeUrl(`http://${host}`);
  if (parsed === null) return null;
  return parsed.hostname.toLowerCase();
}
