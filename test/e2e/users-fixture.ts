/** A users file and bearer headers for the users e2e tests (users.test.ts, user-lists.test.ts). */
import fs from "node:fs/promises";
import path from "node:path";
import { hashToken } from "../../src/server/transport/users.js";
import type { PostgresCluster } from "../postgres.js";

export const ALICE = "alice-token-0123456789";
export const BOB = "bob-token-9876543210";

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Writes `<dir>/users.json` mapping each [id, token] (the token stored as its SHA-256 only). */
export async function usersFile(dir: string, users: Array<[string, string]>): Promise<string> {
  const file = path.join(dir, "users.json");
  await fs.writeFile(file, JSON.stringify({ users: users.map(([id, token]) => ({ id, tokenSha256: hashToken(token) })) }));
  return file;
}

export interface StoreChoice {
  readonly name: "file store" | "PostgreSQL store";
  /** True when there is no PostgreSQL to run on (the reason was printed by whoever asked for the cluster). */
  readonly skip: boolean;
  /** Server flags for a fresh store of this kind. */
  args(): Promise<string[]>;
}

/** The two stores the users tests run on: files, and a fresh database of `cluster` (skipped without one). */
export function storeChoices(cluster: PostgresCluster | string): StoreChoice[] {
  return [
    { name: "file store", skip: false, args: async () => [] },
    { name: "PostgreSQL store", skip: typeof cluster === "string", args: async () => ["--store", await (cluster as PostgresCluster).createDatabase()] },
  ];
}
