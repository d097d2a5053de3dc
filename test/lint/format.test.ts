import { describe, expect, it } from "vitest";
import { formatGithub, formatJson, formatText } from "../../src/lint/format.js";
import type { LintFinding } from "../../src/lint/types.js";

const f: LintFinding = {
  code: "input_unused",
  severity: "warning",
  skill: "s",
  file: "R.yaml",
  path: "a,b:c/R.yaml",
  line: 3,
  column: 5,
  message: "100% unused\nsecond line\r",
  fix: "remove it",
};
const stats = { roots: 1, skills: 1, recipes: 2, files: 1, suppressed: 0, ms: 12.3 };

describe("formats", () => {
  it("github: escapes %, CR, LF in the message and : , in properties", () => {
    expect(formatGithub([f])).toBe(
      "::warning file=a%2Cb%3Ac/R.yaml,line=3,col=5,title=recipe-lint input_unused::100%25 unused%0Asecond line%0D%0AFix: remove it\n",
    );
    const { line: _l, column: _c, ...noPos } = f;
    expect(formatGithub([{ ...noPos, severity: "error" }])).toMatch(/^::error file=[^,]+,title=/);
    expect(formatGithub([])).toBe("");
  });

  it("json: parseable array, one finding per line", () => {
    const out = formatJson([f, f]);
    expect(JSON.parse(out)).toEqual([f, f]);
    expect(out.split("\n")).toHaveLength(5);
  });

  it("text: one line per finding and no raw newlines from messages", () => {
    const out = formatText([f], stats, false);
    expect(out).toBe(
      "a,b:c/R.yaml\n  3:5  warning  100% unused second line\\u000d  input_unused\n       fix: remove it\n\n✖ 1 problem (0 errors, 1 warning) in 1 skill, 2 recipes, 12 ms\n",
    );
  });

  it("text: says what suppressed means and how to list the suppressions", () => {
    const out = formatText([f], { ...stats, suppressed: 2 }, false);
    expect(out).toContain("in 1 skill, 2 recipes, 2 suppressed, 12 ms\n");
    expect(out).toMatch(/\n2 findings suppressed: silenced by recipe-lint-disable comments .*grep -rn recipe-lint-disable <skill dirs>\n$/);
    expect(formatText([], { ...stats, suppressed: 1 }, false)).toMatch(/1 finding suppressed: /);
    expect(formatText([f], stats, false)).not.toContain("suppressed");
  });
});
