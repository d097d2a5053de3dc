import { describe, expect, it } from "vitest";
import { goodRecipe, lintTree, skillMd } from "./helpers.js";

describe("lint positions", () => {
  it("regression: a flow-style (JSON) pack gets each finding's own line and column, not 1:1", async () => {
    const one = { ...goodRecipe(), name: "one", inputs_schema: { type: "object", properties: { a: { type: "integer", minimun: 1 } } } };
    const two = { ...goodRecipe(), name: "two", inputs_schema: { type: "object", requried: ["b"], properties: { b: { type: "string" } } } };
    const text = `{"recipes": [\n  ${JSON.stringify(one)},\n  ${JSON.stringify(two)}\n]}\n`;
    const { findings } = await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": text });
    const typos = findings.filter((f) => f.code === "schema_keyword_typo").map((f) => [f.line, f.column, f.message.includes("minimun") ? "minimun" : "requried"]);
    const lines = text.split("\n");
    const at = (word: string, line: number): number => lines[line - 1]!.indexOf(`"${word}"`) + 1;
    expect(typos).toEqual([
      [2, at("minimun", 2), "minimun"],
      [3, at("requried", 3), "requried"],
    ]);
  });

  it("regression: entries of a one-line flow pack are told apart by name", async () => {
    const one = { ...goodRecipe(), name: "one", inputs_schema: { type: "object", properties: { a: { type: "integer", minimun: 1 } } } };
    const two = { ...goodRecipe(), name: "two", inputs_schema: { type: "object", requried: ["b"], properties: { b: { type: "string" } } } };
    const text = JSON.stringify({ recipes: [one, two] });
    const { findings } = await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": text });
    const typos = findings.filter((f) => f.code === "schema_keyword_typo");
    expect(typos.map((f) => f.column)).toEqual([text.indexOf('"minimun"') + 1, text.indexOf('"requried"') + 1]);
  });
});
