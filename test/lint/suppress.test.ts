import { describe, expect, it } from "vitest";
import { isSuppressed, parseSuppressions } from "../../src/lint/suppress.js";

describe("parseSuppressions", () => {
  it("applies next-line directives past blank and comment lines", () => {
    const s = parseSuppressions("# recipe-lint-disable-next-line input_unused,contract_missing\n\n# note\nkey: v\nother: w\n", true);
    expect(isSuppressed(s, "input_unused", 4)).toBe(true);
    expect(isSuppressed(s, "contract_missing", 4)).toBe(true);
    expect(isSuppressed(s, "input_unused", 5)).toBe(false);
  });

  it("applies file-wide directives, ignores unknown codes and never covers loader codes", () => {
    const s = parseSuppressions("a: 1 # recipe-lint-disable anchor_empty yaml_parse_error bogus\n", true);
    expect(isSuppressed(s, "anchor_empty", undefined)).toBe(true);
    expect(isSuppressed(s, "yaml_parse_error", 1)).toBe(false);
    expect(s.file.has("bogus")).toBe(false);
  });

  it("treats # lines as headings in Markdown", () => {
    const s = parseSuppressions("<!-- recipe-lint-disable-next-line anchor_empty -->\n## Empty\n", false);
    expect(isSuppressed(s, "anchor_empty", 2)).toBe(true);
  });
});
