import { describe, expect, it } from "vitest";
import { editDistance, nearest } from "../../src/util/edit-distance.js";

describe("editDistance", () => {
  it.each([
    ["minimun", "minimum", 1],
    ["requried", "required", 1],
    ["tpye", "type", 1],
    ["input_schema", "inputs_schema", 1],
    ["", "abc", 3],
    ["same", "same", 0],
  ])("%s → %s is %d", (a, b, d) => {
    expect(editDistance(a, b, 5)).toBe(d);
  });

  it("cuts off above max", () => {
    expect(editDistance("description", "dcc", 2)).toBe(3);
    expect(editDistance("a".repeat(10_000), "b".repeat(10_000), 2)).toBe(3);
  });

  it("nearest picks the closest, first on ties, none beyond max", () => {
    expect(nearest("steps", ["step", "steps"], 2)).toEqual({ match: "steps", distance: 0 });
    expect(nearest("zzzz", ["name", "dcc"], 1)).toBeUndefined();
  });
});
