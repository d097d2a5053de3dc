/**
 * The contract behind checkSchema (KeywordContext.checkOnly), per keyword compiler: with
 * checkOnly set, a compiler makes exactly the fail / sub / ref / regex calls it makes when
 * compiling, with the same arguments and in the same order, and returns null. This is what
 * makes the check-only walk reach the same first fault as compiling.
 */
import { describe, expect, it } from "vitest";
import type { KeywordCompiler, KeywordContext, SchemaNode } from "../../../src/jsonschema/context.js";
import { KEYWORD_TABLE, STATIC_UNEVALUATED_ITEMS, STATIC_UNEVALUATED_PROPERTIES } from "../../../src/jsonschema/keywords/index.js";
import { compileRegex } from "../../../src/jsonschema/regex.js";
import { OPERANDS } from "../operands.js";

/** Siblings mixed into each schema: items reads minItems / maxItems (folded bounds); the object keywords sit beside each other. */
const SIBLINGS = ["required", "minItems", "maxItems", "properties", "patternProperties"];

function run(compile: KeywordCompiler, schema: Record<string, unknown>, checkOnly: boolean): { calls: string[]; out: unknown } {
  const calls: string[] = [];
  const node: SchemaNode = { validate: () => true, pointer: "/n", keywords: [], rejectsAll: false, cover: 0, leaf: null };
  const regexes = new Map<string, RegExp>();
  const kc: KeywordContext = {
    schema,
    at: "/s",
    checkOnly,
    generateAfter: 0,
    sub(value, pointer, inPlace) {
      calls.push(`sub ${pointer} ${inPlace} ${JSON.stringify(value)}`);
      return node;
    },
    ref(ref, pointer) {
      calls.push(`ref ${ref} ${pointer}`);
      return ref.startsWith("#/$defs/") ? node : null;
    },
    regex(pattern, pointer) {
      calls.push(`regex ${JSON.stringify(pattern)} ${pointer}`);
      return compileRegex(regexes, pattern, (code, message) => calls.push(`fail ${code} ${message} ${pointer}`));
    },
    fail(code, message, pointer) {
      calls.push(`fail ${code} ${message} ${pointer}`);
    },
  };
  return { calls, out: compile(kc) };
}

const entries: Array<{ name: string; keywords: readonly string[]; compile: KeywordCompiler }> = [
  ...KEYWORD_TABLE.map((e) => ({ name: e.keywords.join("/"), keywords: e.keywords, compile: e.compile })),
  { name: "static unevaluatedProperties", keywords: ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"], compile: STATIC_UNEVALUATED_PROPERTIES },
  { name: "static unevaluatedItems", keywords: ["prefixItems", "items", "unevaluatedItems"], compile: STATIC_UNEVALUATED_ITEMS },
];

/** Each keyword alone, and every pair of the entry's keywords and siblings, over all listed operands. */
function schemasFor(keywords: readonly string[]): Array<Record<string, unknown>> {
  const keys = [...new Set([...keywords, ...SIBLINGS])].filter((k) => OPERANDS[k] !== undefined);
  const out: Array<Record<string, unknown>> = [{}];
  for (const k of keywords) for (const v of OPERANDS[k] ?? []) out.push({ [k]: v });
  for (const a of keywords) {
    for (const b of keys) {
      if (a === b) continue;
      for (const va of OPERANDS[a] ?? []) for (const vb of OPERANDS[b]!) out.push({ [a]: va, [b]: vb });
    }
  }
  return out;
}

describe("keyword compilers in check-only mode", () => {
  for (const entry of entries) {
    it(`${entry.name}: the same calls as compiling, then null`, () => {
      let withCalls = 0;
      for (const schema of schemasFor(entry.keywords)) {
        const compiled = run(entry.compile, schema, false);
        const checked = run(entry.compile, schema, true);
        expect(checked.calls, JSON.stringify(schema)).toEqual(compiled.calls);
        expect(checked.out, JSON.stringify(schema)).toBeNull();
        if (compiled.calls.length > 0) withCalls++;
      }
      // Every entry but const fails an operand or visits a subschema somewhere.
      if (entry.keywords[0] !== "const") expect(withCalls).toBeGreaterThan(0);
    });
  }
});
