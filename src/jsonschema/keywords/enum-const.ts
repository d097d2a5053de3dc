/**
 * `enum` and `const` with JSON equality: key order is irrelevant, 1 equals 1.0, true is not 1.
 * Scalars are looked up in a Set; objects and arrays by their canonical JSON text.
 */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import { canonicalJson, jsonEqual } from "../json.js";

const MAX_LISTED = 20;

/** Only scalars can pass: no container to account for (cover.ts). */
const SCALARS_ONLY = Object.freeze({ object: false, array: false });

export const compileEnum: KeywordCompiler = (kc) => {
  if (!Object.hasOwn(kc.schema, "enum")) return null;
  const values = own(kc.schema, "enum");
  const loc = `${kc.at}/enum`;
  if (!Array.isArray(values)) {
    kc.fail("malformed", "enum must be an array", loc);
    return null;
  }
  if (kc.checkOnly) return null;
  const scalars = new Set<unknown>();
  const composites = new Set<string>();
  for (const v of values) {
    if (typeof v === "object" && v !== null) composites.add(canonicalJson(v));
    else scalars.add(v);
  }
  const message =
    composites.size === 0 && values.length <= MAX_LISTED && values.length > 0
      ? `Expected one of: ${values.map((v) => JSON.stringify(v)).join(", ")}`
      : "Expected one of the allowed values";
  const check: Check = (inst, st, _ev, path) => {
    const ok =
      typeof inst === "object" && inst !== null
        ? composites.size > 0 && composites.has(canonicalJson(inst))
        : scalars.has(inst);
    if (ok) return true;
    if (st.collect) pushError(st, path, loc, "enum", message);
    else if (st.trace) traceHere(st, loc, "enum", message);
    return false;
  };
  return composites.size === 0 ? { check, group: "any", cover: SCALARS_ONLY, scalars } : { check, group: "any" };
};

export const compileConst: KeywordCompiler = (kc) => {
  if (!Object.hasOwn(kc.schema, "const") || kc.checkOnly) return null;
  const expected = own(kc.schema, "const");
  const loc = `${kc.at}/const`;
  const composite = typeof expected === "object" && expected !== null;
  const message = composite ? "Expected the constant value" : `Expected constant ${JSON.stringify(expected)}`;
  const check: Check = (inst, st, _ev, path) => {
    const ok = composite ? jsonEqual(inst, expected) : inst === expected;
    if (ok) return true;
    if (st.collect) pushError(st, path, loc, "const", message);
    else if (st.trace) traceHere(st, loc, "const", message);
    return false;
  };
  return composite ? { check, group: "any" } : { check, group: "any", cover: SCALARS_ONLY, scalars: new Set([expected]) };
};
