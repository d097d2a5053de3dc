// The usage table's rows (plain data, no DOM): one per used recipe from
// GET /ui/api/<dcc>/usage, and the orders the page sorts them in.

/** Failed validations, failed runs and recovered runs (a run that failed, then undid itself). */
export function failuresOf(figures) {
  return figures.validate.fail + figures.run.failed + figures.run.recovered;
}

/** Rows from a usage answer `{recipes: {<id>: {total, mine?}}}`; anything malformed is left out. */
export function usageRows(answer) {
  const rows = [];
  const recipes = answer !== null && typeof answer === "object" ? answer.recipes : null;
  if (recipes === null || typeof recipes !== "object") return rows;
  for (const [recipeId, usage] of Object.entries(recipes)) {
    const t = usage?.total;
    if (t === undefined || t === null || typeof t !== "object" || t.validate === undefined || t.run === undefined) continue;
    rows.push({
      recipeId,
      visibility: recipeId.startsWith("private/") ? "private" : "public",
      uses: t.uses,
      get: t.get,
      apply: t.apply,
      validatePass: t.validate.pass,
      validateFail: t.validate.fail,
      passRate: t.validate.passRate,
      runsOk: t.run.succeeded,
      runsFailed: t.run.failed + t.run.recovered,
      failures: failuresOf(t),
      lastUsedAt: t.lastUsedAt,
      mine: usage.mine === undefined ? null : usage.mine.uses,
    });
  }
  return rows;
}

const byName = (a, b) => (a.recipeId < b.recipeId ? -1 : a.recipeId > b.recipeId ? 1 : 0);
const attempts = (r) => r.validatePass + r.validateFail + r.runsOk + r.runsFailed;

/**
 * `uses`: most used first; `failing`: most failures first, then the higher
 * failure share; `last`: most recently used first; `name`: by id. Ties go by id.
 */
export function sortUsage(rows, order) {
  const sorted = [...rows];
  const compare = {
    uses: (a, b) => b.uses - a.uses || byName(a, b),
    failing: (a, b) => b.failures - a.failures || b.failures / Math.max(1, attempts(b)) - a.failures / Math.max(1, attempts(a)) || byName(a, b),
    last: (a, b) => (b.lastUsedAt ?? "").localeCompare(a.lastUsedAt ?? "") || byName(a, b),
    name: byName,
  }[order] ?? byName;
  return sorted.sort(compare);
}
