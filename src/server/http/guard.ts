/**
 * Request guards that run before any MCP handling: DNS-rebinding protection
 * (Host and Origin compared by hostname, as the MCP spec requires servers to
 * validate Origin) and bearer-token auth.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

export interface GuardOptions {
  readonly bindHost: string;
  readonly bindIsLoopback: boolean;
  /** Hostnames or full origins given with --allowed-origin. */
  readonly allowedOrigins: readonly string[];
  readonly token: string | null;
}

export type GuardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

export interface RequestGuard {
  check(headers: { host?: string; origin?: string; authorization?: string }, path: string): GuardVerdict;
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

  return {
    check(headers, path) {
      // Host is checked only for a loopback bind: that is where DNS rebinding
      // turns a browser into a client; a server bound to a public interface is
      // reached under names we cannot know, and the token guards it.
      if (options.bindIsLoopback && headers.host !== undefined) {
        const hostname = hostnameOfHostHeader(headers.host);
        if (hostname === null || !hostnames.has(hostname)) {
          return { ok: false, status: 403, message: "Forbidden: Host header is not allowed" };
        }
      }
      if (headers.origin !== undefined && headers.origin !== "") {
        const origin = safeUrl(headers.origin);
        const allowed =
          origin !== null && (exactOrigins.has(origin.origin) || hostnames.has(origin.hostname.toLowerCase()));
        if (!allowed) return { ok: false, status: 403, message: "Forbidden: Origin is not allowed" };
      }
      if (expected !== null && path !== "/healthz") {
        const given = bearerToken(headers.authorization);
        if (given === null || !timingSafeEqual(digest(given), expected)) {
          return { ok: false, status: 401, message: "Unauthorized: a valid bearer token is required" };
        }
      }
      return { ok: true };
    },
  };
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
