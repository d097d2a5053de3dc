import { describe, expect, it } from "vitest";
import { childSchema, compileChildValidators, describeFields, RECIPE_ACTIONS } from "../../../src/server/tools/recipe-schemas.js";
import { createArgs } from "./recipe-fixture.js";

const children = compileChildValidators();
const step = (i: number) => ({ title: `Step ${i}`, detail: `Do thing ${i}` });
const steps = (n: number) => Array.from({ length: n }, (_, i) => step(i));
const strings = (n: number) => Array.from({ length: n }, (_, i) => `item ${i}`);

function errorsOf(action: (typeof RECIPE_ACTIONS)[number], args: Record<string, unknown>): readonly string[] {
  const checked = children.check(action, args);
  return checked.ok ? [] : checked.errors;
}

describe("recipe child schemas: the seed's constraints at their boundaries", () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
    ["title", { title: "t".repeat(200) }, { title: "t".repeat(201) }, "$.title"],
    ["title empty", { title: "t" }, { title: "" }, "$.title"],
    ["summary", { summary: "s".repeat(2000) }, { summary: "s".repeat(2001) }, "$.summary"],
    ["whenToUse", { whenToUse: "w".repeat(8000) }, { whenToUse: "w".repeat(8001) }, "$.whenToUse"],
    ["steps count", { steps: steps(80) }, { steps: steps(81) }, "$.steps"],
    ["steps empty", { steps: steps(1) }, { steps: [] }, "$.steps"],
    ["step title", { steps: [{ title: "x".repeat(200), detail: "d" }] }, { steps: [{ title: "x".repeat(201), detail: "d" }] }, "$.steps[0].title"],
    ["step detail", { steps: [{ title: "x", detail: "d".repeat(8000) }] }, { steps: [{ title: "x", detail: "d".repeat(8001) }] }, "$.steps[0].detail"],
    ["step extra key", { steps: [{ title: "x", detail: "d" }] }, { steps: [{ title: "x", detail: "d", tool: "x" }] }, "$.steps[0].tool"],
    ["step missing detail", { steps: [{ title: "x", detail: "d" }] }, { steps: [{ title: "x" }] }, "$.steps[0]"],
    ["acceptanceCriteria min", { acceptanceCriteria: strings(1) }, { acceptanceCriteria: [] }, "$.acceptanceCriteria"],
    ["acceptanceCriteria max", { acceptanceCriteria: strings(80) }, { acceptanceCriteria: strings(81) }, "$.acceptanceCriteria"],
    ["acceptanceCriteria item", { acceptanceCriteria: ["a"] }, { acceptanceCriteria: [""] }, "$.acceptanceCriteria[0]"],
    ["tags", { tags: strings(40) }, { tags: strings(41) }, "$.tags"],
    ["tags item type", { tags: [] }, { tags: [3] }, "$.tags[0]"],
    ["document", { document: "d".repeat(80_000) }, { document: "d".repeat(80_001) }, "$.document"],
    ["document empty", { document: "d" }, { document: "" }, "$.document"],
  ];
  for (const [name, good, bad, where] of cases) {
    it(`create ${name}: accepted at the limit, refused past it, naming ${where}`, () => {
      expect(errorsOf("create", createArgs(good))).toEqual([]);
      const errors = errorsOf("create", createArgs(bad));
      expect(errors.length).toBe(1);
      expect(errors[0]!.startsWith(`${where}:`)).toBe(true);
      // The same constraint holds on update.
      const updateErrors = errorsOf("update", { recipeId: "private/x", ...bad });
      expect(updateErrors.length).toBe(1);
      expect(updateErrors[0]!.startsWith(`${where}:`)).toBe(true);
    });
  }

  it("counts length in code points, as the validator does", () => {
    expect(errorsOf("create", createArgs({ title: "😀".repeat(200) }))).toEqual([]);
    expect(errorsOf("create", createArgs({ title: "😀".repeat(201) }))[0]).toMatch(/^\$\.title:/);
  });

  it("search limit is a number from 1 to 20; query needs a character", () => {
    expect(errorsOf("search", { query: "q", limit: 20 })).toEqual([]);
    expect(errorsOf("search", { query: "q", limit: 1 })).toEqual([]);
    expect(errorsOf("search", { query: "q", limit: 2.5 })).toEqual([]);
    expect(errorsOf("search", { query: "q", limit: 21 })[0]).toMatch(/^\$\.limit:/);
    expect(errorsOf("search", { query: "q", limit: 0 })[0]).toMatch(/^\$\.limit:/);
    expect(errorsOf("search", { query: "q", limit: "5" })[0]).toMatch(/^\$\.limit:/);
    expect(errorsOf("search", { query: "" })[0]).toMatch(/^\$\.query:/);
    expect(errorsOf("search", {})[0]).toMatch(/query/);
  });

  it("visibility is all, private or public on search and get", () => {
    for (const visibility of ["all", "private", "public"]) {
      expect(errorsOf("search", { query: "q", visibility })).toEqual([]);
      expect(errorsOf("get", { recipeId: "a/b", visibility })).toEqual([]);
    }
    expect(errorsOf("search", { query: "q", visibility: "everything" })[0]).toMatch(/^\$\.visibility:/);
    expect(errorsOf("get", { recipeId: "a/b", visibility: "PUBLIC" })[0]).toMatch(/^\$\.visibility:/);
  });

  it("create requires every field but tags; update only recipeId", () => {
    const missing = errorsOf("create", { title: "t" });
    for (const field of ["summary", "whenToUse", "steps", "acceptanceCriteria", "document"]) {
      expect(missing.some((e) => e.includes(field))).toBe(true);
    }
    expect(errorsOf("create", createArgs({ tags: undefined }))).toEqual([]);
    expect(errorsOf("update", { recipeId: "private/x" })).toEqual([]);
    expect(errorsOf("update", { title: "t" }).some((e) => e.includes("recipeId"))).toBe(true);
    expect(errorsOf("get", {}).some((e) => e.includes("recipeId"))).toBe(true);
    expect(errorsOf("get", { recipeId: "" })[0]).toMatch(/^\$\.recipeId:/);
  });

  it("expectedRevision is an integer >= 1", () => {
    expect(errorsOf("update", { recipeId: "private/x", expectedRevision: 1 })).toEqual([]);
    expect(errorsOf("update", { recipeId: "private/x", expectedRevision: 0 })[0]).toMatch(/^\$\.expectedRevision:/);
    expect(errorsOf("update", { recipeId: "private/x", expectedRevision: 1.5 })[0]).toMatch(/^\$\.expectedRevision:/);
    expect(errorsOf("update", { recipeId: "private/x", expectedRevision: "3" })[0]).toMatch(/^\$\.expectedRevision:/);
  });

  it("type confusion is refused field by field, never crashes", () => {
    const errors = errorsOf("create", createArgs({ title: 5, steps: "one", acceptanceCriteria: { a: 1 }, tags: null, document: ["x"] }));
    for (const field of ["title", "steps", "acceptanceCriteria", "tags", "document"]) {
      expect(errors.some((e) => e.startsWith(`$.${field}:`))).toBe(true);
    }
  });

  it("ignores the advertised keys and passes only the action's fields on", () => {
    const checked = children.check("search", { action: "search", resultStart: 0, resultEnd: 10, query: "q" });
    expect(checked).toEqual({ ok: true, fields: { query: "q" } });
  });
});

describe("recipe child schemas: unknown fields", () => {
  it("names a field that belongs to no action", () => {
    expect(errorsOf("search", { query: "q", colour: "red" })).toEqual(["$.colour: is not a field of any recipe action"]);
  });

  it("names the action a misplaced field belongs to (recipeId on create means update)", () => {
    const errors = errorsOf("create", createArgs({ recipeId: "private/x" }));
    expect(errors).toEqual(['$.recipeId: is not a field of action "create" (it belongs to get, update, history, restore, delete)']);
    expect(errorsOf("get", { recipeId: "a/b", limit: 3 })).toEqual(['$.limit: is not a field of action "get" (it belongs to search, history)']);
    expect(errorsOf("create", createArgs({ expectedRevision: 2 }))[0]).toContain("belongs to update");
  });

  it("quotes odd keys as names and bounds their length, never echoing values", () => {
    const secret = "SECRET-VALUE-42";
    const errors = errorsOf("search", { query: "q", "bad key": secret, ["k".repeat(500)]: secret });
    expect(errors.length).toBe(2);
    expect(errors.join("\n")).not.toContain(secret);
    expect(errors.some((e) => e.startsWith('$["bad key"]:'))).toBe(true);
    expect(Math.max(...errors.map((e) => e.length))).toBeLessThan(200);
  });

  it("a __proto__ key is just an unknown field", () => {
    const args = JSON.parse('{"query":"q","__proto__":{"limit":500}}') as Record<string, unknown>;
    expect(errorsOf("search", args)).toEqual(["$.__proto__: is not a field of any recipe action"]);
  });

  it("validation errors never echo the value", () => {
    const secret = "TOP-SECRET-".repeat(30);
    const errors = errorsOf("create", createArgs({ title: secret, summary: 7 }));
    expect(errors.length).toBe(2);
    expect(errors.join("\n")).not.toContain("TOP-SECRET");
  });
});

describe("recipe child schemas: shapes", () => {
  it("every child schema refuses extra keys and is Draft 2020-12", () => {
    for (const action of RECIPE_ACTIONS) {
      const schema = childSchema(action);
      expect(schema.additionalProperties).toBe(false);
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    }
  });

  it("describes fields with their rules for the tool description", () => {
    expect(describeFields("search")).toBe('query (required); visibility (all|private|public, default "all"); limit (1–20, default 5)');
    expect(describeFields("create")).toContain("title (required, ≤200 chars)");
    expect(describeFields("create")).toContain("tags (0–40 items, default [])");
    expect(describeFields("update")).toContain("expectedRevision (integer ≥1)");
  });
});

describe("regression: blank search queries", () => {
  it("refuses a query of only whitespace, naming the field", async () => {
    const { createRecipeTool } = await import("../../../src/server/tools/recipe.js");
    const tool = createRecipeTool();
    const answer = await tool.handler({ action: "search", query: "   " }, {
      // Validation fails before the catalog is consulted.
      library: { current: () => null } as never,
      logger: { warn() {}, info() {}, debug() {}, error() {} } as never,
    });
    expect(answer).toMatchObject({ success: false, error: "invalid_input" });
    expect(answer.message).toContain("query");
  });
});
