/**
 * Where the tests find what lives beside the clone in ../shared (the real
 * skill packs, the JSON-Schema-Test-Suite), read in place, and the one rule
 * for when it is absent: outside CI the tests that need it are skipped with a
 * printed reason; in CI (`CI` set) the test file fails, so a CI run that lost
 * ../shared cannot pass by skipping what it exists to check.
 *
 * RECIPE_SERVER_SHARED_DIR names another directory to read instead (a CI
 * checkout elsewhere, or a missing path to see the rule at work).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const override = process.env["RECIPE_SERVER_SHARED_DIR"];

export const SHARED_DIR = override ? path.resolve(override) : path.resolve(REPO_ROOT, "../shared");
export const REAL_SKILLS = path.join(SHARED_DIR, "data/real-skills");
export const JSON_SCHEMA_SUITE = path.join(SHARED_DIR, "data/json-schema-test-suite");

/** A path under ../shared. */
export function sharedPath(...parts: string[]): string {
  return path.join(SHARED_DIR, ...parts);
}

function inCI(): boolean {
  const ci = process.env["CI"];
  return ci !== undefined && ci !== "" && ci !== "0" && ci !== "false";
}

/**
 * True when `file` exists. When it does not: in CI, throws (the test file
 * fails); elsewhere prints why `what` is skipped and returns false, for
 * `describe.skipIf(!…)` / `it.skipIf(!…)`.
 */
export function requireShared(file: string, what: string): boolean {
  if (existsSync(file)) return true;
  const reason = `${what}: ${file} is absent`;
  if (inCI()) throw new Error(`${reason}; CI is set, so a test that needs ../shared fails instead of skipping`);
  console.warn(`skipped ${reason} (no ../shared beside this clone)`);
  return false;
}
