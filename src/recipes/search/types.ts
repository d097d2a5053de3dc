import type { Recipe } from "../types.js";

export type SearchMode = "lexical" | "hybrid";

export interface SearchQuery {
  readonly text: string;
  /** A recipe matches when its dcc equals this or is `any`. */
  readonly dcc?: string;
  readonly skill?: string;
  /** A recipe matches when its skill's `layer` equals this (`domain` also matches a skill naming none). */
  readonly layer?: string;
  readonly visibility?: "all" | "public" | "private";
  readonly limit: number;
}

export interface SearchHit {
  readonly recipe: Recipe;
  readonly score: number;
}

export interface SearchAnswer {
  readonly mode: SearchMode;
  readonly hits: readonly SearchHit[];
}

/** The slice of a pino logger the search engine uses. */
export interface SearchLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: SearchLogger = {
  info: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
};
