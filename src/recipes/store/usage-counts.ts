/**
 * What usage counts are, independent of where they are kept: the counters
 * per recipe and user (gets, applies, validations by verdict, runs by
 * outcome), a tally of them with the time of the last use, and the view the
 * tools and the catalog page answer with.
 */

/** Every counter a use can add to, in storage order (the PostgreSQL columns and the file's keys). */
export const USAGE_COUNTERS = [
  "get",
  "apply",
  "validate_pass",
  "validate_fail",
  "run_succeeded",
  "run_failed",
  "run_dry_run",
  "run_recovered",
  "run_cancelled",
] as const;

export type UsageCounter = (typeof USAGE_COUNTERS)[number];

/** A counter's position in a tally's `counts`. */
export const COUNTER_INDEX: Readonly<Record<UsageCounter, number>> = Object.freeze(
  Object.fromEntries(USAGE_COUNTERS.map((name, i) => [name, i])) as Record<UsageCounter, number>,
);

/** recipes__run outcomes (the run report's `status`) as counters. */
export const RUN_COUNTER: Readonly<Record<"succeeded" | "failed" | "dry_run" | "recovered" | "cancelled", UsageCounter>> = Object.freeze({
  succeeded: "run_succeeded",
  failed: "run_failed",
  dry_run: "run_dry_run",
  recovered: "run_recovered",
  cancelled: "run_cancelled",
});

/** One recipe's counts for one user (or summed over users): mutable while it is being added to. */
export interface Tally {
  /** Indexed by COUNTER_INDEX. */
  readonly counts: number[];
  /** Epoch milliseconds of the last use; 0 when none is known. */
  last: number;
}

export function emptyTally(): Tally {
  return { counts: new Array<number>(USAGE_COUNTERS.length).fill(0), last: 0 };
}

/** Adds `from` into `into` (counts summed, the later use kept). */
export function addTally(into: Tally, from: Tally): Tally {
  for (let i = 0; i < into.counts.length; i++) into.counts[i]! += from.counts[i]!;
  if (from.last > into.last) into.last = from.last;
  return into;
}

export function copyTally(tally: Tally): Tally {
  return { counts: [...tally.counts], last: tally.last };
}

/** Recipe id → user → tally. `""` is the user when no users file is configured. */
export type UsageRows = Map<string, Map<string, Tally>>;

/** Adds one row into `rows`, copying (the caller's tally stays its own). */
export function addRow(rows: UsageRows, recipeId: string, user: string, tally: Tally): void {
  let byUser = rows.get(recipeId);
  if (byUser === undefined) rows.set(recipeId, (byUser = new Map()));
  const known = byUser.get(user);
  if (known === undefined) byUser.set(user, copyTally(tally));
  else addTally(known, tally);
}

/** A recipe's tally summed over its users. */
function sumUsers(byUser: ReadonlyMap<string, Tally> | undefined): Tally | undefined {
  if (byUser === undefined) return undefined;
  let total: Tally | undefined;
  for (const tally of byUser.values()) total = total === undefined ? copyTally(tally) : addTally(total, tally);
  return total;
}

/**
 * Longest recipe id or user id a store keeps (UTF-16 units). Catalog ids are
 * far shorter (a skill name ≤ 200 plus a recipe name ≤ 500); a longer one is
 * not a recipe this server serves, and is not counted.
 */
export const MAX_USAGE_KEY_LENGTH = 1024;

/**
 * Whether both stores can keep this id as written: bounded, and text that
 * round-trips through PostgreSQL (no U+0000, no unpaired surrogate) and JSON.
 * One rule for both, so a count one store keeps the other keeps too.
 */
export function storableKey(key: string): boolean {
  return key.length <= MAX_USAGE_KEY_LENGTH && !key.includes("\u0000") && !/\p{Cs}/u.test(key);
}

/** The counts as the tools and the page show them (JSON-shaped, frozen-safe). */
export interface UsageFigures {
  readonly get: number;
  readonly apply: number;
  /** recipes__validate calls by verdict: pass when the inputs (and a given output) were valid. */
  readonly validate: { readonly pass: number; readonly fail: number; readonly passRate: number | null };
  /** recipes__run outcomes; a dry run is counted apart from real runs. */
  readonly run: {
    readonly succeeded: number;
    readonly failed: number;
    readonly dry_run: number;
    readonly recovered: number;
    readonly cancelled: number;
  };
  /** Gets, applies and real runs: the uses that fetched or executed the recipe. */
  readonly uses: number;
  /** ISO time of the last use of any kind, or null. */
  readonly lastUsedAt: string | null;
}

/** One recipe's usage: totals over every user, and (`mine`) the asking user's own uses when a user was named. */
export interface RecipeUsage {
  readonly total: UsageFigures;
  readonly mine?: UsageFigures;
}

export function figuresOf(tally: Tally | undefined): UsageFigures {
  const c = tally?.counts;
  const n = (name: UsageCounter): number => (c === undefined ? 0 : c[COUNTER_INDEX[name]]!);
  const pass = n("validate_pass");
  const fail = n("validate_fail");
  const run = {
    succeeded: n("run_succeeded"),
    failed: n("run_failed"),
    dry_run: n("run_dry_run"),
    recovered: n("run_recovered"),
    cancelled: n("run_cancelled"),
  };
  return {
    get: n("get"),
    apply: n("apply"),
    validate: { pass, fail, passRate: pass + fail === 0 ? null : Math.round((pass / (pass + fail)) * 1000) / 1000 },
    run,
    uses: n("get") + n("apply") + run.succeeded + run.failed + run.recovered + run.cancelled,
    lastUsedAt: tally === undefined || tally.last === 0 ? null : new Date(tally.last).toISOString(),
  };
}

/** The usage view of stored rows: totals over every user, and `user`'s own row when asked. */
export function recipeUsageOf(byUser: ReadonlyMap<string, Tally>, user: string | undefined): RecipeUsage {
  const total = figuresOf(sumUsers(byUser));
  return user === undefined ? { total } : { total, mine: figuresOf(byUser.get(user)) };
}
