/**
 * What a DCC's state directory holds, named in one place: the library
 * writes these, and the CLI looks for the parse cache before it loads the
 * library (see cli.ts). Imports nothing of the project for that reason.
 */
import { existsSync } from "node:fs";
import path from "node:path";

export interface StateFiles {
  /** Parsed packs across restarts (parse-cache.ts). */
  readonly parseCache: string;
  /** Use counts of recipes (private/usage.ts). */
  readonly usage: string;
  /** Cached embedding vectors (search/vector-cache.ts). */
  readonly vectors: string;
}

export function stateFiles(stateDir: string): StateFiles {
  return {
    parseCache: path.join(stateDir, "parsed-packs"),
    usage: path.join(stateDir, "usage.json"),
    vectors: path.join(stateDir, "vectors"),
  };
}

/**
 * No load has finished in this state directory yet (ParseCache writes its
 * file after every load, even one with no packs): the next load is a first
 * start, which parses every pack.
 */
export function isFirstLoad(stateDir: string): boolean {
  return !existsSync(stateFiles(stateDir).parseCache);
}
