/** `type`, including "integer" (any integral number, so 1.0 is an integer). */
import type { Check, Group, JsonType, KeywordCompiler } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import { describeType } from "../json.js";

const BITS: Readonly<Record<string, number>> = {
  null: 1,
  boolean: 2,
  object: 4,
  array: 8,
  number: 16,
  string: 32,
  integer: 64,
};

function typeBits(v: unknown): number {
  switch (typeof v) {
    case "string":
      return BITS.string!;
    case "number":
      return Number.isInteger(v) ? BITS.number! | BITS.integer! : BITS.number!;
    case "boolean":
      return BITS.boolean!;
    case "object":
      return v === null ? BITS.null! : Array.isArray(v) ? BITS.array! : BITS.object!;
    default:
      return 0;
  }
}

const SINGLE: Readonly<Record<string, (v: unknown) => boolean>> = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
};

export const compileType: KeywordCompiler = (kc) => {
  const v = own(kc.schema, "type");
  if (v === undefined) return null;
  const loc = `${kc.at}/type`;
  const names = typeof v === "string" ? [v] : Array.isArray(v) ? v : null;
  if (names === null || names.length === 0 || !names.every((n) => typeof n === "string" && Object.hasOwn(BITS, n))) {
    kc.fail("malformed", "type must be a type name or a non-empty array of type names", loc);
    return null;
  }
  if (kc.checkOnly) return null;
  const unique = [...new Set(names as string[])];
  const message = `Expected type ${unique.join(" or ")}, got `;
  let test: (v: unknown) => boolean;
  if (unique.length === 1) test = SINGLE[unique[0]!]!;
  else {
    let mask = 0;
    for (const n of unique) mask |= BITS[n]!;
    test = (x) => (typeBits(x) & mask) !== 0;
  }
  const check: Check = (inst, st, _ev, path) => {
    if (test(inst)) return true;
    if (st.collect) pushError(st, path, loc, "type", message + describeType(inst));
    else if (st.trace) traceHere(st, loc, "type", message + describeType(inst));
    return false;
  };
  const only = unique.length === 1 ? unique[0] : undefined;
  const impliedByGroup: Group | undefined =
    only === "object" || only === "array" || only === "string" || only === "number" ? only : undefined;
  const singleType = only as JsonType | undefined;
  const cover = { object: unique.includes("object"), array: unique.includes("array") };
  if (singleType === undefined) return { check, group: "any", cover };
  return impliedByGroup === undefined
    ? { check, group: "any", singleType, cover }
    : { check, group: "any", impliedByGroup, singleType, cover };
};
