/**
 * The users file: bearer tokens, kept only as SHA-256 hashes,
 * mapped to user ids.
 *
 *   { "users": [ { "id": "alice", "tokenSha256": "<64 hex digits>" }, … ] }
 *
 * A user may hold several tokens (one entry each); a hash may appear once.
 * Ids are lowercase names usable as a directory (the file store keeps one
 * subdirectory per user). `authenticate` compares the caller's hash with
 * every entry, without stopping at a match, so its time says nothing about
 * which entry (or whether any) matched.
 *
 * The file is polled (stat, not inotify: a Kubernetes Secret volume swaps a
 * symlink, which inotify on the file does not see) and re-read on change; a
 * malformed or unreadable file keeps the last good table, with an error log.
 *
 * The guard asks `current()` per request (guard.ts); the user id it finds
 * reaches tool handlers as data (RecipeToolContext.caller), never the token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { promises as fs, unwatchFile, watchFile, type Stats } from "node:fs";

const USER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const HASH = /^[0-9a-f]{64}$/;
const MAX_USERS_FILE_BYTES = 4 * 1024 * 1024;

export interface UsersTable {
  readonly size: number;
  /** The user a bearer token belongs to, or null. */
  authenticate(token: string): string | null;
}

type UsersParse = { readonly ok: true; readonly table: UsersTable } | { readonly ok: false; readonly message: string };

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function parseUsersFile(text: string): UsersParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `the users file is not JSON (${(error as Error).message})` };
  }
  const users = (data as { users?: unknown } | null)?.users;
  if (!Array.isArray(users)) return { ok: false, message: 'the users file must be {"users": [{"id": …, "tokenSha256": …}, …]}' };
  const entries: Array<{ readonly id: string; readonly hash: Buffer }> = [];
  const seen = new Set<string>();
  for (const [i, entry] of users.entries()) {
    const { id, tokenSha256 } = (entry ?? {}) as { id?: unknown; tokenSha256?: unknown };
    if (typeof id !== "string" || !USER_ID.test(id)) return { ok: false, message: `users[${i}].id must be 1–64 of a-z 0-9 . _ - starting with a letter or digit` };
    if (typeof tokenSha256 !== "string" || !HASH.test(tokenSha256.toLowerCase())) {
      return { ok: false, message: `users[${i}].tokenSha256 must be the 64 hex digits of the token's SHA-256 (never the token itself)` };
    }
    const hash = tokenSha256.toLowerCase();
    if (seen.has(hash)) return { ok: false, message: `users[${i}] repeats a token hash already given to another entry` };
    seen.add(hash);
    entries.push({ id, hash: Buffer.from(hash, "hex") });
  }
  return {
    ok: true,
    table: {
      size: entries.length,
      authenticate(token) {
        const given = createHash("sha256").update(token, "utf8").digest();
        let match: string | null = null;
        for (const entry of entries) {
          if (timingSafeEqual(given, entry.hash) && match === null) match = entry.id;
        }
        return match;
      },
    },
  };
}

interface UsersLogger {
  error(fields: Record<string, unknown>, message: string): void;
  info?(fields: Record<string, unknown>, message: string): void;
}

export interface UsersFile {
  /** The last good table. */
  current(): UsersTable;
  close(): void;
}

export async function readUsersFile(file: string): Promise<UsersParse> {
  let text: string;
  try {
    const stat = await fs.stat(file);
    if (stat.size > MAX_USERS_FILE_BYTES) return { ok: false, message: `the users file is ${stat.size} bytes; the limit is ${MAX_USERS_FILE_BYTES}` };
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    return { ok: false, message: `the users file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  return parseUsersFile(text);
}

/** Reads the file (a start-up failure is the caller's to report) and keeps it current. */
export async function openUsersFile(file: string, options: { logger?: UsersLogger; intervalMs?: number } = {}): Promise<{ ok: true; users: UsersFile } | { ok: false; message: string }> {
  const first = await readUsersFile(file);
  if (!first.ok) return first;
  let table = first.table;
  let reading: Promise<void> = Promise.resolve();
  const onChange = (now: Stats, before: Stats): void => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return;
    reading = reading.then(async () => {
      const next = await readUsersFile(file);
      if (next.ok) {
        table = next.table;
        options.logger?.info?.({ users: next.table.size }, "users file re-read");
      } else {
        options.logger?.error({ problem: next.message }, "users file not applied; keeping the last good one");
      }
    });
  };
  watchFile(file, { interval: options.intervalMs ?? 1000, persistent: false }, onChange);
  return {
    ok: true,
    users: {
      current: () => table,
      close: () => unwatchFile(file, onChange),
    },
  };
}
