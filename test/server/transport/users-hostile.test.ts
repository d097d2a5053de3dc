/**
 * Hostile users files and the constant-time compare (#24 item 5): an
 * oversized file is refused before it is read, duplicate hashes are refused,
 * and `authenticate` (and the guard in front of it) compares the caller's
 * hash with every entry through crypto.timingSafeEqual, match or not.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const compares = vi.hoisted(() => ({ count: 0 }));
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compares.count += 1;
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { hashToken, parseUsersFile, readUsersFile } = await import("../../../src/server/transport/users.js");
const { createRequestGuard } = await import("../../../src/server/transport/guard.js");

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => fs.rm(t, { recursive: true, force: true })));
});

function table(count: number) {
  const parsed = parseUsersFile(JSON.stringify({ users: Array.from({ length: count }, (_, i) => ({ id: `user${i}`, tokenSha256: hashToken(`token-${i}`) })) }));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.table;
}

describe("users file, hostile input and timing", () => {
  it("compares with every entry through timingSafeEqual, whether the first, the last or none matches", () => {
    const users = table(50);
    for (const [token, expected] of [["token-0", "user0"], ["token-49", "user49"], ["nobody", null]] as const) {
      compares.count = 0;
      expect(users.authenticate(token)).toBe(expected);
      expect(compares.count).toBe(50);
    }
  });

  it("the guard runs the users compare and the --token compare both, whichever matches", () => {
    const users = table(3);
    const guard = createRequestGuard({ bindHost: "127.0.0.1", bindIsLoopback: true, allowedOrigins: [], token: "operator", users: () => users });
    const check = (token: string) => guard.check({ host: "127.0.0.1", authorization: `Bearer ${token}` }, "/mcp");
    for (const [token, verdict] of [["token-1", { ok: true, user: "user1" }], ["operator", { ok: true }], ["wrong", { ok: false }]] as const) {
      compares.count = 0;
      expect(check(token)).toMatchObject(verdict);
      expect(compares.count).toBe(4);
    }
    expect(guard.check({ host: "127.0.0.1" }, "/healthz")).toEqual({ ok: true });
    expect(guard.check({ host: "127.0.0.1" }, "/mcp")).toMatchObject({ ok: false, status: 401 });
  });

  it("a file over 4 MiB is refused unread; duplicate hashes are refused; an empty list is a table nobody passes", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "users-huge-"));
    temps.push(dir);
    const huge = path.join(dir, "users.json");
    await fs.writeFile(huge, `{"users":[${" ".repeat(5 * 1024 * 1024)}]}`);
    const read = await readUsersFile(huge);
    expect(read).toMatchObject({ ok: false });
    expect(!read.ok && read.message).toMatch(/bytes; the limit is 4194304/);

    const dup = parseUsersFile(JSON.stringify({ users: [{ id: "a", tokenSha256: hashToken("t") }, { id: "a", tokenSha256: hashToken("t").toUpperCase() }] }));
    expect(dup).toMatchObject({ ok: false });

    const empty = parseUsersFile('{"users":[]}');
    expect(empty.ok && empty.table.authenticate("")).toBeNull();
    // Many entries and a long token still answer (one hash, then one compare per entry).
    expect(table(10_000).authenticate("x".repeat(1_000_000))).toBeNull();
  });
});
