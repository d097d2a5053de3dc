/**
 * Which recipes a search's filters accept (engine.ts): DCC, skill, layer,
 * visibility, one excluded id.
 */
import type { Recipe } from "../types.js";

export interface Filter {
  readonly dcc?: string;
  readonly skill?: string;
  readonly layer?: string;
  readonly visibility?: "all" | "public" | "private";
  readonly excludeId?: string;
}

// Searches read one snapshot of `indexed` throughout: an update() landing
// while a query embedding is awaited must not pull recipes from under it.
export function acceptor(filter: Filter, snapshot: ReadonlyMap<string, Recipe>): (id: string) => boolean {
  return (id) => {
    if (id === filter.excludeId) return false;
    const r = snapshot.get(id);
    if (!r) return false;
    // `python` (dcc-mcp-core's default for a skill naming no host) is served
    // to every DCC, so a DCC filter must not hide it either.
    if (filter.dcc !== undefined && r.dcc !== filter.dcc && r.dcc !== "any" && r.dcc !== "python") return false;
    if (filter.skill !== undefined && r.skill !== filter.skill) return false;
    // dcc-mcp-core ranks a skill naming no layer as a domain skill.
    if (filter.layer !== undefined && (r.layer ?? "domain") !== filter.layer) return false;
    if (filter.visibility && filter.visibility !== "all" && r.visibility !== filter.visibility) return false;
    return true;
  };
}
