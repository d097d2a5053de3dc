/**
 * Where the official JSON-Schema-Test-Suite (draft 2020-12) is read from (in place, from
 * ../shared) and which of its files are in scope, for the tests that run it.
 */
import fs from "node:fs";
import path from "node:path";
import { JSON_SCHEMA_SUITE } from "../helpers/shared.js";

export const suiteDir = path.join(JSON_SCHEMA_SUITE, "tests/draft2020-12");

export interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}
export interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: SuiteCase[];
}

/** Not refused, just not part of §7: format assertion and the draft-7 `dependencies` keyword. */
const OUT_OF_SCOPE_FILES = new Set(["optional/dependencies-compatibility.json"]);
const OUT_OF_SCOPE_DIRS = ["optional/format/"];

/** In-scope suite files, relative to suiteDir, sorted; none when the suite is absent. */
export function suiteFiles(): string[] {
  if (!fs.existsSync(suiteDir)) return [];
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel + entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), `${r}/`);
      else if (entry.name.endsWith(".json")) out.push(r);
    }
  };
  walk(suiteDir, "");
  return out.sort().filter((f) => !OUT_OF_SCOPE_FILES.has(f) && !OUT_OF_SCOPE_DIRS.some((d) => f.startsWith(d)));
}

export function readGroups(file: string): SuiteGroup[] {
  return JSON.parse(fs.readFileSync(path.join(suiteDir, file), "utf8")) as SuiteGroup[];
}
