import type { Logger } from "pino";
import type { CatalogSnapshot } from "../../recipes/catalog.js";
import type { RecipeLibrary } from "../../recipes/library.js";
import { fail, withRevision, type Envelope } from "./envelope.js";
import { thenMaybe, type MaybePromise } from "./maybe-promise.js";

/** What a recipe tool handler may use: the DCC's library and a logger. */
export interface RecipeToolContext {
  readonly library: RecipeLibrary;
  readonly logger: Logger;
}

/** Runs `body` on the snapshot current at call time, or answers not_ready; synchronous when `body` is. */
export function withSnapshot(context: RecipeToolContext, body: (snapshot: CatalogSnapshot) => MaybePromise<Envelope>): MaybePromise<Envelope> {
  const snapshot = context.library.current();
  if (snapshot === null) return fail("not_ready", "The recipe catalog is still loading; try again shortly");
  return thenMaybe(body(snapshot), (envelope) => (envelope.revision === undefined ? withRevision(envelope, snapshot.revision) : envelope));
}
