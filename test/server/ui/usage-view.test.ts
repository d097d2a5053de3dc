/** The catalog page's usage table (static/usage-view.js): rows from a usage answer and its sort orders. */
import { describe, expect, it } from "vitest";
import { sortUsage, usageRows } from "../../../src/server/ui/static/usage-view.js";

const figures = (f: { get?: number; apply?: number; pass?: number; fail?: number; ok?: number; failed?: number; recovered?: number; last?: string | null }) => ({
  get: f.get ?? 0,
  apply: f.apply ?? 0,
  validate: { pass: f.pass ?? 0, fail: f.fail ?? 0, passRate: (f.pass ?? 0) + (f.fail ?? 0) === 0 ? null : (f.pass ?? 0) / ((f.pass ?? 0) + (f.fail ?? 0)) },
  run: { succeeded: f.ok ?? 0, failed: f.failed ?? 0, dry_run: 0, recovered: f.recovered ?? 0, cancelled: 0 },
  uses: (f.get ?? 0) + (f.apply ?? 0) + (f.ok ?? 0) + (f.failed ?? 0) + (f.recovered ?? 0),
  lastUsedAt: f.last ?? null,
});

const ANSWER = {
  asOf: "2026-12-02T10:00:00.000Z",
  complete: true,
  user: "alice",
  recipes: {
    "mesh-ops/create_primitive": { total: figures({ get: 3, ok: 5, last: "2026-12-02T09:00:00.000Z" }), mine: figures({ ok: 2 }) },
    "mesh-ops/bevel_edges": { total: figures({ ok: 1, failed: 2, fail: 3, pass: 1, last: "2026-12-02T09:30:00.000Z" }) },
    "mesh-ops/inset": { total: figures({ apply: 1, recovered: 1, last: "2026-12-01T09:30:00.000Z" }) },
    "private/alice-bake": { total: figures({ get: 9 }) },
  },
};

describe("catalog page usage table", () => {
  it("turns a usage answer into rows: uses, validate pass rate, runs, failures, last use, the caller's share", () => {
    const rows = usageRows(ANSWER);
    expect(rows.find((r) => r.recipeId === "mesh-ops/bevel_edges")).toMatchObject({ uses: 3, passRate: 0.25, runsOk: 1, runsFailed: 2, failures: 5, mine: null });
    expect(rows.find((r) => r.recipeId === "mesh-ops/create_primitive")).toMatchObject({ uses: 8, failures: 0, mine: 2 });
    expect(rows.find((r) => r.recipeId === "mesh-ops/inset")).toMatchObject({ runsFailed: 1, failures: 1 });
    expect(rows.find((r) => r.recipeId === "private/alice-bake")).toMatchObject({ visibility: "private", uses: 9 });
  });

  it("sorts by most used, most failing, last used and name", () => {
    const rows = usageRows(ANSWER);
    expect(sortUsage(rows, "uses").map((r) => r.recipeId)).toEqual(["private/alice-bake", "mesh-ops/create_primitive", "mesh-ops/bevel_edges", "mesh-ops/inset"]);
    expect(sortUsage(rows, "failing").map((r) => r.recipeId)).toEqual(["mesh-ops/bevel_edges", "mesh-ops/inset", "mesh-ops/create_primitive", "private/alice-bake"]);
    expect(sortUsage(rows, "last").map((r) => r.recipeId)).toEqual(["mesh-ops/bevel_edges", "mesh-ops/create_primitive", "mesh-ops/inset", "private/alice-bake"]);
    expect(sortUsage(rows, "name").map((r) => r.recipeId)).toEqual(["mesh-ops/bevel_edges", "mesh-ops/create_primitive", "mesh-ops/inset", "private/alice-bake"]);
    expect(sortUsage(rows, "nonsense").map((r) => r.recipeId)).toEqual(sortUsage(rows, "name").map((r) => r.recipeId));
    // Sorting leaves the rows it was given alone.
    expect(rows.map((r) => r.recipeId)).toEqual(Object.keys(ANSWER.recipes));
  });

  it("ranks equal failure counts by their share of attempts", () => {
    const rows = usageRows({ recipes: { "a/often": { total: figures({ failed: 1, ok: 9 }) }, "b/rarely": { total: figures({ failed: 1 }) } } });
    expect(sortUsage(rows, "failing").map((r) => r.recipeId)).toEqual(["b/rarely", "a/often"]);
  });

  it.each([null, 7, "x", [], {}, { recipes: null }, { recipes: { "a/b": null } }, { recipes: { "a/b": { total: { uses: 1 } } } }])("leaves out what it cannot read: %j", (answer) => {
    expect(usageRows(answer)).toEqual([]);
  });
});
