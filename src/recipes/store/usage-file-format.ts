/**
 * The usage file's text (`<state dir>/usage.json`): one JSON object, each
 * recipe on its own line in id order, its counts per user ("" when no users
 * file is configured), counters that are 0 left out:
 *
 *   {"version":2,"usage":{
 *   "maya-modeling/bevel_edges":{"":{"apply":2,"get":5,"lastUsedAt":"2026-12-02T10:00:00.000Z","validate_pass":1}},
 *   "houdini-fx/pyro":{"alice":{"get":1,"lastUsedAt":"…"},"bob":{"run_failed":1,"lastUsedAt":"…"}}
 *   }}
 *
 * Version 1 files (`{"count","lastUsedAt"}` per recipe, before counts were
 * kept per kind) are read with their count as gets.
 */
import { COUNTER_INDEX, emptyTally, USAGE_COUNTERS, type Tally, type UsageCounter, type UsageRows } from "./usage-counts.js";

const FORMAT_VERSION = 2;

/**
 * The file text for `ids` (sorted). Each id's line is kept in `lines` until
 * the caller drops it (its counts changed): under steady use the file holds
 * every id ever used while a few change between writes. Lines are joined
 * rather than appended to one string (a chain of appends is flattened again
 * when written, which cost more than rendering every line).
 */
export function usageFileText(ids: readonly string[], rows: UsageRows, lines: Map<string, string>): string {
  const rendered = new Array<string>(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    let line = lines.get(id);
    if (line === undefined) {
      line = `${JSON.stringify(id)}:${recipeText(rows.get(id)!)}`;
      lines.set(id, line);
    }
    rendered[i] = line;
  }
  return `{"version":${FORMAT_VERSION},"usage":{${ids.length === 0 ? "" : "\n"}${rendered.join(",\n")}\n}}\n`;
}

function recipeText(byUser: ReadonlyMap<string, Tally>): string {
  const users = [...byUser.keys()].sort();
  return `{${users.map((user) => `${JSON.stringify(user)}:${tallyText(byUser.get(user)!)}`).join(",")}}`;
}

/** Keys in sorted order ("lastUsedAt" sorts among the counters). */
const KEYS_SORTED = [...USAGE_COUNTERS, "lastUsedAt"].sort();

function tallyText(tally: Tally): string {
  const parts: string[] = [];
  for (const key of KEYS_SORTED) {
    if (key === "lastUsedAt") {
      if (tally.last > 0) parts.push(`"lastUsedAt":"${new Date(tally.last).toISOString()}"`);
      continue;
    }
    const n = tally.counts[COUNTER_INDEX[key as UsageCounter]]!;
    if (n !== 0) parts.push(`"${key}":${n}`);
  }
  return `{${parts.join(",")}}`;
}

/** The file's rows, or null when the text is not a usage file. Malformed entries are skipped; the good ones kept. */
export function parseUsageFile(text: string): UsageRows | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(data)) return null;
  const usage = data.usage;
  if (!isObject(usage)) return null;
  const rows: UsageRows = new Map();
  for (const [id, raw] of Object.entries(usage)) {
    if (!isObject(raw)) continue;
    if (data.version === 1) {
      const tally = legacyTally(raw);
      if (tally !== null) rows.set(id, new Map([["", tally]]));
      continue;
    }
    const byUser = new Map<string, Tally>();
    for (const [user, counts] of Object.entries(raw)) {
      const tally = isObject(counts) ? tallyOf(counts) : null;
      if (tally !== null) byUser.set(user, tally);
    }
    if (byUser.size > 0) rows.set(id, byUser);
  }
  return rows;
}

function tallyOf(raw: Record<string, unknown>): Tally | null {
  const tally = emptyTally();
  for (const name of USAGE_COUNTERS) {
    const n = raw[name];
    if (n === undefined) continue;
    if (!isCount(n)) return null;
    tally.counts[COUNTER_INDEX[name]] = n;
  }
  const last = raw.lastUsedAt === undefined ? 0 : typeof raw.lastUsedAt === "string" ? Date.parse(raw.lastUsedAt) : Number.NaN;
  if (Number.isNaN(last)) return null;
  tally.last = last;
  return tally;
}

function legacyTally(raw: Record<string, unknown>): Tally | null {
  const { count, lastUsedAt } = raw;
  if (!isCount(count) || typeof lastUsedAt !== "string" || Number.isNaN(Date.parse(lastUsedAt))) return null;
  const tally = emptyTally();
  tally.counts[COUNTER_INDEX.get] = count;
  tally.last = Date.parse(lastUsedAt);
  return tally;
}

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
