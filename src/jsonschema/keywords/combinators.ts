/**
 * The in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`, `$ref`, `if` / `then` /
 * `else`; each applies subschemas to the instance where it stands. Annotations for
 * unevaluated* come only from branches that validated; `not` and a failed `if` never
 * contribute any.
 */
import type { Check, KeywordCompiler, SchemaNode } from "../context.js";
import { mergeAnnotations, newAnnotations, own, pushError, quiet, resume, traceHere } from "../context.js";
import { step } from "../steps.js";
import { findDiscriminator, pickBranch } from "./discriminator.js";
import { readSchemaArray } from "./util.js";

function branches(kc: Parameters<KeywordCompiler>[0], keyword: string): SchemaNode[] | null {
  const values = readSchemaArray(kc, keyword);
  if (values === null || values === undefined) return null;
  return values.map((v, i) => kc.sub(v, `${kc.at}/${keyword}/${i}`, true));
}

export const compileAllOf: KeywordCompiler = (kc) => {
  const nodes = branches(kc, "allOf");
  if (nodes === null || kc.checkOnly) return null;
  // A failing branch fails this schema, so annotations can flow straight into `ev`.
  const check: Check = (inst, st, ev, path) => {
    let ok = true;
    for (let i = 0; i < nodes.length; i++) {
      step(st);
      if (!nodes[i]!.validate(inst, st, ev, path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    return ok;
  };
  return { check, group: "any", cover: { all: nodes } };
};

export const compileAnyOf: KeywordCompiler = (kc) => {
  const nodes = branches(kc, "anyOf");
  if (nodes === null || kc.checkOnly) return null;
  const loc = `${kc.at}/anyOf`;
  const message = "Expected a value matching at least one schema in anyOf";
  const tagged = findDiscriminator(own(kc.schema, "anyOf") as unknown[]);
  const check: Check = (inst, st, ev, path) => {
    const saved = quiet(st);
    let matched = false;
    if (tagged !== null) {
      const i = pickBranch(tagged, inst);
      step(st);
      matched = i >= 0 && nodes[i]!.validate(inst, st, ev, path);
    } else if (ev === null) {
      for (let i = 0; i < nodes.length; i++) {
        step(st);
        if (nodes[i]!.validate(inst, st, null, path)) {
          matched = true;
          break;
        }
      }
    } else {
      // Every branch runs: each valid one contributes annotations.
      for (let i = 0; i < nodes.length; i++) {
        const sub = newAnnotations();
        step(st);
        if (nodes[i]!.validate(inst, st, sub, path)) {
          matched = true;
          mergeAnnotations(ev, sub);
        }
      }
    }
    resume(st, saved);
    if (matched) return true;
    if (st.collect) pushError(st, path, loc, "anyOf", message);
    else if (st.trace) traceHere(st, loc, "anyOf", message);
    return false;
  };
  return { check, group: "any", cover: { any: nodes } };
};

export const compileOneOf: KeywordCompiler = (kc) => {
  const nodes = branches(kc, "oneOf");
  if (nodes === null || kc.checkOnly) return null;
  const loc = `${kc.at}/oneOf`;
  const none = "Expected a value matching exactly one schema in oneOf, matched none";
  // With a tag, every branch but the one it names fails, so the count is that branch's 0 or 1.
  const tagged = findDiscriminator(own(kc.schema, "oneOf") as unknown[]);
  const check: Check = (inst, st, ev, path) => {
    const collect = st.collect;
    // The traced fast pass reports the count as collecting does: it counts every branch once two matched.
    const counts = collect || st.trace;
    const saved = quiet(st);
    let count = 0;
    let winner = null;
    if (tagged !== null) {
      const i = pickBranch(tagged, inst);
      const sub = ev === null ? null : newAnnotations();
      step(st);
      if (i >= 0 && nodes[i]!.validate(inst, st, sub, path)) {
        count = 1;
        winner = sub;
      }
    } else {
      for (let i = 0; i < nodes.length; i++) {
        const sub = ev === null ? null : newAnnotations();
        step(st);
        if (nodes[i]!.validate(inst, st, sub, path)) {
          count++;
          winner = sub;
          if (count > 1 && !counts) break;
        }
      }
    }
    resume(st, saved);
    if (count === 1) {
      if (ev !== null && winner !== null) mergeAnnotations(ev, winner);
      return true;
    }
    if (counts) {
      const message = count === 0 ? none : `Expected a value matching exactly one schema in oneOf, matched ${count}`;
      if (collect) pushError(st, path, loc, "oneOf", message);
      else traceHere(st, loc, "oneOf", message);
    }
    return false;
  };
  return { check, group: "any", cover: { any: nodes } };
};

export const compileNot: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "not");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/not`, true);
  if (kc.checkOnly) return null;
  const loc = `${kc.at}/not`;
  const message = "Expected a value not matching the schema in not";
  const check: Check = (inst, st, _ev, path) => {
    const saved = quiet(st);
    step(st);
    const matched = node.validate(inst, st, null, path);
    resume(st, saved);
    if (!matched) return true;
    if (st.collect) pushError(st, path, loc, "not", message);
    else if (st.trace) traceHere(st, loc, "not", message);
    return false;
  };
  return { check, group: "any" };
};

/**
 * `$ref` (same document only), evaluated in place next to its siblings. The compiler refuses
 * ref cycles that make no progress on the instance; the depth counter here bounds the rest
 * (long ref chains times deep instances) so validation ends with an error, not a RangeError.
 */
const TOO_DEEP = "Schema recursion is too deep for this value";

export const compileRef: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "$ref");
  if (value === undefined) return null;
  const loc = `${kc.at}/$ref`;
  if (typeof value !== "string") {
    kc.fail("malformed", "$ref must be a string", loc);
    return null;
  }
  const target = kc.ref(value, loc);
  if (target === null || kc.checkOnly) return null;
  const check: Check = (inst, st, ev, path) => {
    if (st.refDepth >= st.maxRefDepth) {
      if (st.collect) pushError(st, path, loc, "$ref", TOO_DEEP);
      else if (st.trace) traceHere(st, loc, "$ref", TOO_DEEP);
      return false;
    }
    step(st);
    st.refDepth++;
    const ok = target.validate(inst, st, ev, path);
    st.refDepth--;
    return ok;
  };
  return { check, group: "any", cover: { all: [target] } };
};

/** `if` / `then` / `else`. `then` and `else` without `if` are compiled (to catch errors) but inert. */
export const compileConditional: KeywordCompiler = (kc) => {
  const ifValue = own(kc.schema, "if");
  const thenValue = own(kc.schema, "then");
  const elseValue = own(kc.schema, "else");
  const thenNode = thenValue === undefined ? null : kc.sub(thenValue, `${kc.at}/then`, ifValue !== undefined);
  const elseNode = elseValue === undefined ? null : kc.sub(elseValue, `${kc.at}/else`, ifValue !== undefined);
  if (ifValue === undefined) return null;
  const ifNode = kc.sub(ifValue, `${kc.at}/if`, true);
  if (kc.checkOnly) return null;
  const check: Check = (inst, st, ev, path) => {
    const saved = quiet(st);
    const sub = ev === null ? null : newAnnotations();
    step(st);
    const passed = ifNode.validate(inst, st, sub, path);
    resume(st, saved);
    if (passed) {
      if (ev !== null && sub !== null) mergeAnnotations(ev, sub);
      if (thenNode === null) return true;
      step(st);
      return thenNode.validate(inst, st, ev, path);
    }
    if (elseNode === null) return true;
    step(st);
    return elseNode.validate(inst, st, ev, path);
  };
  return { check, group: "any" };
};
