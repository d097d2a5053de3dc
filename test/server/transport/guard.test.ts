/**
 * DNS-rebinding protection and bearer auth as pure decisions: Host by
 * hostname (any port) for a loopback bind, Origin always, /healthz open.
 */
import { describe, expect, it } from "vitest";
import { createRequestGuard, type GuardOptions } from "../../../src/server/transport/guard.js";

const LOOPBACK: GuardOptions = { bindHost: "127.0.0.1", bindIsLoopback: true, allowedOrigins: [], token: null };

describe("Host header (loopback bind)", () => {
  const guard = createRequestGuard(LOOPBACK);
  it.each(["127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:9000", "127.0.0.1"])("allows %s whatever the port", (host) => {
    expect(guard.check({ host }, "/mcp")).toEqual({ ok: true });
  });
  it.each(["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil.example:80", "", "a b", "user@127.0.0.1", "127.0.0.1/x", "127.0.0.1:80:80"])(
    "refuses %j with 403",
    (host) => {
      expect(guard.check({ host }, "/mcp")).toMatchObject({ ok: false, status: 403 });
    },
  );
  it("regression: a loopback bind other than 127.0.0.1 accepts its own address (was 403 on every request)", () => {
    const other = createRequestGuard({ ...LOOPBACK, bindHost: "127.0.0.2" });
    expect(other.check({ host: "127.0.0.2:8765" }, "/healthz").ok).toBe(true);
    expect(other.check({ host: "127.0.0.3:8765" }, "/mcp")).toMatchObject({ ok: false, status: 403 });
    const v6 = createRequestGuard({ ...LOOPBACK, bindHost: "::1" });
    expect(v6.check({ host: "[::1]:8765" }, "/mcp").ok).toBe(true);
  });

  it("accepts hosts named with --allowed-origin", () => {
    const withExtra = createRequestGuard({ ...LOOPBACK, allowedOrigins: ["studio.internal", "https://tools.example:8443"] });
    expect(withExtra.check({ host: "studio.internal:8765" }, "/mcp").ok).toBe(true);
    expect(withExtra.check({ host: "tools.example" }, "/mcp").ok).toBe(true);
  });
});

describe("Host header (non-loopback bind)", () => {
  it("is not checked: the token guards a public bind", () => {
    const guard = createRequestGuard({ bindHost: "0.0.0.0", bindIsLoopback: false, allowedOrigins: [], token: "t" });
    expect(guard.check({ host: "whatever.example", authorization: "Bearer t" }, "/mcp")).toEqual({ ok: true });
  });
});

describe("Origin header", () => {
  const guard = createRequestGuard({ ...LOOPBACK, allowedOrigins: ["https://app.example"] });
  it.each(["http://localhost:3000", "http://127.0.0.1", "https://app.example"])("allows %s", (origin) => {
    expect(guard.check({ host: "127.0.0.1", origin }, "/mcp").ok).toBe(true);
  });
  it.each(["https://evil.example", "null", "http://localhost.evil.example", "not a url", "file://"])("refuses %j with 403", (origin) => {
    expect(guard.check({ host: "127.0.0.1", origin }, "/mcp")).toMatchObject({ ok: false, status: 403 });
  });
  it("is checked on a non-loopback bind too", () => {
    const open = createRequestGuard({ bindHost: "0.0.0.0", bindIsLoopback: false, allowedOrigins: [], token: null });
    expect(open.check({ host: "x", origin: "https://evil.example" }, "/mcp")).toMatchObject({ status: 403 });
  });
  it("refuses a spoofed Origin even with a valid token", () => {
    const authed = createRequestGuard({ ...LOOPBACK, token: "s3cret" });
    expect(authed.check({ host: "127.0.0.1", origin: "https://evil.example", authorization: "Bearer s3cret" }, "/mcp")).toMatchObject({
      status: 403,
    });
  });
});

describe("bearer token", () => {
  const guard = createRequestGuard({ ...LOOPBACK, token: "s3cret" });
  it.each(["Bearer s3cret", "bearer s3cret", "BEARER  s3cret"])("accepts %j (the scheme is case-insensitive)", (authorization) => {
    expect(guard.check({ host: "127.0.0.1", authorization }, "/mcp")).toEqual({ ok: true });
  });
  it.each([undefined, "", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cret ", "Bearer s3cretX", "Bearer S3CRET", "Bearer s3 cret", "Basic s3cret", "s3cret", "Bearer " + "s".repeat(10_000)])(
    "refuses %j with 401 on every route but the probes /healthz and /readyz",
    (authorization) => {
      const headers = { host: "127.0.0.1", ...(authorization !== undefined ? { authorization } : {}) };
      for (const path of ["/mcp", "/mcp/maya", "/status", "/metrics", "/nope"]) {
        expect(guard.check(headers, path)).toMatchObject({ ok: false, status: 401 });
      }
      expect(guard.check(headers, "/healthz")).toEqual({ ok: true });
      expect(guard.check(headers, "/readyz")).toEqual({ ok: true });
    },
  );
  it("the probes still check Host and Origin", () => {
    expect(guard.check({ host: "evil.example" }, "/readyz")).toMatchObject({ ok: false, status: 403 });
    expect(guard.check({ host: "127.0.0.1", origin: "http://evil.example" }, "/healthz")).toMatchObject({ ok: false, status: 403 });
  });
  it("checks Host and Origin before the token (a foreign page learns nothing about the token)", () => {
    expect(guard.check({ host: "evil.example" }, "/mcp")).toMatchObject({ status: 403 });
  });
});

describe("remembered verdicts (Host and Origin are parsed once per value)", () => {
  it("answers a repeated value the same way every time, allowed or refused", () => {
    const guard = createRequestGuard(LOOPBACK);
    for (let i = 0; i < 3; i++) {
      expect(guard.check({ host: "127.0.0.1:8765", origin: "http://localhost:3000" }, "/mcp")).toEqual({ ok: true });
      expect(guard.check({ host: "evil.example:8765" }, "/mcp")).toMatchObject({ ok: false, status: 403 });
      expect(guard.check({ host: "127.0.0.1", origin: "http://evil.example" }, "/mcp")).toMatchObject({ ok: false, status: 403 });
    }
  });

  it("a flood of distinct hostile values neither lets one through nor forgets the allowed ones", () => {
    const guard = createRequestGuard(LOOPBACK);
    for (let i = 0; i < 2_000; i++) {
      expect(guard.check({ host: `evil-${i}.example` }, "/mcp")).toMatchObject({ ok: false, status: 403 });
      expect(guard.check({ host: "localhost", origin: `http://evil-${i}.example` }, "/mcp")).toMatchObject({ ok: false, status: 403 });
      if (i % 97 === 0) expect(guard.check({ host: "localhost:1", origin: "http://127.0.0.1:5" }, "/mcp")).toEqual({ ok: true });
    }
    expect(guard.check({ host: "localhost:1", origin: "http://127.0.0.1:5" }, "/mcp")).toEqual({ ok: true });
  });

  it("keeps each guard's memo its own: a value allowed by one guard is not allowed by another", () => {
    const open = createRequestGuard({ ...LOOPBACK, allowedOrigins: ["studio.internal"] });
    const strict = createRequestGuard(LOOPBACK);
    expect(open.check({ host: "studio.internal:8765" }, "/mcp").ok).toBe(true);
    expect(strict.check({ host: "studio.internal:8765" }, "/mcp")).toMatchObject({ ok: false, status: 403 });
  });
});

describe("Host presence (RFC 9112 §3.2)", () => {
  const guard = createRequestGuard(LOOPBACK);
  it("regression: an HTTP/1.1 request without Host → 400 -32600 with a message (Node's own 400 had an empty body)", () => {
    expect(guard.check({ httpVersion: "1.1" }, "/mcp")).toMatchObject({ ok: false, status: 400, code: -32600, message: expect.stringMatching(/needs a Host/) });
    expect(guard.check({ httpVersion: "1.0" }, "/healthz")).toEqual({ ok: true });
  });
  it("refuses two Host lines even when the first is allowed, also on a public bind", () => {
    const rawHeaders = ["Host", "127.0.0.1", "HOST", "evil.example"];
    expect(guard.check({ host: "127.0.0.1", httpVersion: "1.1", rawHeaders }, "/mcp")).toMatchObject({ status: 400, message: expect.stringMatching(/more than one Host/) });
    const open = createRequestGuard({ bindHost: "0.0.0.0", bindIsLoopback: false, allowedOrigins: [], token: null });
    expect(open.check({ host: "a", httpVersion: "1.1", rawHeaders }, "/mcp")).toMatchObject({ status: 400 });
    expect(guard.check({ host: "127.0.0.1", httpVersion: "1.1", rawHeaders: ["Host", "127.0.0.1", "Accept", "*/*"] }, "/mcp")).toEqual({ ok: true });
  });
});
