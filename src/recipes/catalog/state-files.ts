/** What a DCC's state directory holds, named in one place. */
import path from "node:path";

export interface StateFiles {
  /** Parsed packs across restarts (parse-cache.ts). */
  readonly parseCache: string;
  /** Use counts of recipes (store/usage.ts). */
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
