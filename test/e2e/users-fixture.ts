/** A users file and bearer headers for the users e2e tests (users.test.ts, user-lists.test.ts). */
import fs from "node:fs/promises";
import path from "node:path";
import { hashToken } from "../../src/server/http/users.js";

export const ALICE = "alice-token-0123456789";
export const BOB = "bob-token-9876543210";

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Writes `<dir>/users.json` mapping each [id, token] (the token stored as its SHA-256 only). */
export async function usersFile(dir: string, users: Array<[string, string]>): Promise<string> {
  const file = path.join(dir, "users.json");
  await fs.writeFile(file, JSON.stringify({ users: users.map(([id, token]) => ({ id, tokenSha256: hashToken(token) })) }));
  return file;
}
