/** The users file: token hashes to user ids, re-read on change, a malformed file keeps the last good table. */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashToken, openUsersFile, parseUsersFile, type UsersFile } from "../../../src/server/transport/users.js";

const opened: UsersFile[] = [];
const temps: string[] = [];
afterEach(async () => {
  for (const u of opened.splice(0)) u.close();
  await Promise.all(temps.splice(0).map((t) => fs.rm(t, { recursive: true, force: true })));
});

const file = (users: unknown[]): string => JSON.stringify({ users });

describe("users file", () => {
  it("maps each token to its user, several tokens per user, nothing else", () => {
    const parsed = parseUsersFile(file([
      { id: "alice", tokenSha256: hashToken("a-token") },
      { id: "alice", tokenSha256: hashToken("alice-laptop").toUpperCase() },
      { id: "bob.smith", tokenSha256: hashToken("b'; DROP TABLE users; --") },
    ]));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.table.size).toBe(3);
    expect(parsed.table.authenticate("a-token")).toBe("alice");
    expect(parsed.table.authenticate("alice-laptop")).toBe("alice");
    expect(parsed.table.authenticate("b'; DROP TABLE users; --")).toBe("bob.smith");
    for (const wrong of ["", "a-token ", "A-TOKEN", hashToken("a-token"), "\u0000", "x".repeat(100_000)]) expect(parsed.table.authenticate(wrong)).toBeNull();
  });

  it("refuses malformed files with a message naming the entry, never echoing a token", () => {
    const cases: Array<[string, RegExp]> = [
      ["not json", /not JSON/],
      ["[]", /must be \{"users"/],
      [file([{ id: "Alice", tokenSha256: hashToken("t") }]), /users\[0\]\.id/],
      [file([{ id: "../etc", tokenSha256: hashToken("t") }]), /users\[0\]\.id/],
      [file([{ id: "alice", tokenSha256: "plain-token-in-clear" }]), /users\[0\]\.tokenSha256 .*never the token itself/],
      [file([{ id: "a", tokenSha256: hashToken("t") }, { id: "b", tokenSha256: hashToken("t") }]), /users\[1\] repeats a token hash/],
      [file([null]), /users\[0\]\.id/],
    ];
    for (const [text, message] of cases) {
      const parsed = parseUsersFile(text);
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.message).toMatch(message);
      expect(!parsed.ok && parsed.message).not.toContain("plain-token-in-clear");
    }
  });

  it("is re-read on change; a malformed rewrite keeps the last good table and logs an error", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "users-"));
    temps.push(dir);
    const target = path.join(dir, "users.json");
    await fs.writeFile(target, file([{ id: "alice", tokenSha256: hashToken("t1") }]));
    const errors: string[] = [];
    const opened1 = await openUsersFile(target, { intervalMs: 20, logger: { error: (fields) => void errors.push(String(fields.problem)) } });
    if (!opened1.ok) throw new Error(opened1.message);
    opened.push(opened1.users);
    expect(opened1.users.current().authenticate("t1")).toBe("alice");

    await fs.writeFile(target, file([{ id: "bob", tokenSha256: hashToken("t2") }]));
    await expect.poll(() => opened1.users.current().authenticate("t2"), { timeout: 5000 }).toBe("bob");
    expect(opened1.users.current().authenticate("t1")).toBeNull();

    await fs.writeFile(target, "{ half a file");
    await expect.poll(() => errors.length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/not JSON/);
    expect(opened1.users.current().authenticate("t2")).toBe("bob");
  });

  it("a missing or unreadable file at start is an error to report, not an empty table", async () => {
    const missing = await openUsersFile(path.join(os.tmpdir(), "no-such-users-file.json"));
    expect(missing).toEqual({ ok: false, message: "the users file cannot be read (ENOENT)" });
  });
});
