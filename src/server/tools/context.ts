import type { Logger } from "pino";
import type { CatalogSnapshot } from "../../recipes/catalog.js";
import type { RecipeLibrary } from "../../recipes/library.js";
import { fail, withRevision, type Envelope } from "./envelope.js";

/** What a recipe tool handler may use: the DCC's library and a logger. */
export interface RecipeToolContext {
  readonly library: RecipeLibrary;
  readonly logger: Logger;
}

/** Runs `body` on the snapshot current at call time, or answers not_ready. */
export async function withSnapshot(
  context: RecipeToolContext,
  body: (snapshot: CatalogSnapshot) => Envelope | Promise<Envelope>,
): Promise<Envelope> {
  const snapshot = context.library.current();
  if (snapshot === null) return fail("not_ready", "The recipe catalog is still loading; try again shortly");
  const envelope = await body(snapshot);
  return envelope.revision === undefined ? withRevision(envelope, snapshot.revision) : envelope;
}
