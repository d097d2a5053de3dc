/**
 * `properties`, `patternProperties`, `additionalProperties`, in one for-in pass over the
 * instance's keys with a Map of declared names, so `__proto__`, `constructor` and
 * `toString` are ordinary names and Object.prototype's members never count as present.
 * The fast pass (no errors, no annotations, no patternProperties) runs a loop generated
 * for the schema object once it is in use (properties-fast.ts); this file's closure loop
 * serves before that, past the generated size, and where code cannot be generated.
 *
 * `propertyNames` (below) validates the keys themselves.
 *
 * `additionalKeyword` lets a schema whose `unevaluatedProperties` can only ever see these
 * three keywords' annotations run it here, as a static check (see compile.ts).
 */
import type { Annotations, Check, KeywordCompiler, SchemaNode, State } from "../context.js";
import { addNamed, addProp, markFailure, own, pushError, quiet, resume, skipTo, traceChild, traceError } from "../context.js";
import { leafPasses, memberPasses } from "../assemble.js";
import { childPointer, escapeToken } from "../pointer.js";
import {
  generateObjectCollectPath,
  generateObjectFastPath,
  MAX_GENERATED_NAMES,
  type ObjectCollectPath,
  type ObjectFastPath,
} from "./properties-fast.js";
import type { PatternMatcher } from "../regex.js";
import { readSchemaMap } from "./util.js";
import { charge, step, testPattern } from "../steps.js";

const UNEXPECTED = "Unexpected property";

/** Positions of instance keys remembered by the fast path. */
const KEY_CACHE = 32;

export function makePropertiesCompiler(additionalKeyword: "additionalProperties" | "unevaluatedProperties"): KeywordCompiler {
  return (kc) => {
    const props = readSchemaMap(kc, "properties");
    const patternProps = readSchemaMap(kc, "patternProperties");
    if (props === null || patternProps === null) return null;
    let additionalValue = own(kc.schema, "additionalProperties");
    let additionalLoc = `${kc.at}/additionalProperties`;
    let additionalName = "additionalProperties";
    if (additionalValue === undefined && additionalKeyword === "unevaluatedProperties") {
      additionalValue = own(kc.schema, "unevaluatedProperties");
      additionalLoc = `${kc.at}/unevaluatedProperties`;
      additionalName = "unevaluatedProperties";
    }
    if (props === undefined && patternProps === undefined && additionalValue === undefined) return null;

    const keys = Object.keys(props ?? {});
    const nodes: SchemaNode[] = keys.map((k) => kc.sub(props![k], `${kc.at}/properties/${escapeToken(k)}`, false));
    const patterns: PatternMatcher[] = [];
    const patternNodes: SchemaNode[] = [];
    for (const p of Object.keys(patternProps ?? {})) {
      const at = `${kc.at}/patternProperties/${escapeToken(p)}`;
      const re = kc.regex(p, at);
      if (re === null) return null;
      patterns.push(re);
      patternNodes.push(kc.sub(patternProps![p], at, false));
    }
    const additional = additionalValue === undefined ? null : kc.sub(additionalValue, additionalLoc, false);
    if (kc.checkOnly) return null;
    /** Each declared name as an instance pointer segment, for traced failures (built on the first). */
    let segments: string[] | null = null;
    const segment = (i: number): string => (segments ??= keys.map((k) => childPointer("", k)))[i]!;
    const indexOf = new Map<string, number>();
    keys.forEach((k, i) => indexOf.set(k, i));
    const forbidAdditional = additionalValue === false;
    const nPatterns = patterns.length;
    /** This keyword's loop, as marks name it (context.ts markFailure). */
    const token = {};

    // Instances of one schema usually list their keys in one order: remember which
    // declared name each position held last time, so most keys cost one comparison.
    // Sized for the instances this schema describes: its names plus a few extra keys.
    const cacheSize = Math.min(KEY_CACHE, keys.length + 4);
    // undefined, not "": "" may be a declared name, and no key is undefined.
    const seenKeys: Array<string | undefined> = new Array<string | undefined>(cacheSize).fill(undefined);
    const seenIndex: number[] = new Array<number>(cacheSize).fill(-1);

    // One for-in pass over the instance: V8 reads `o[key]` from the enum cache there, and
    // the key's hash is cached, so the Map lookup is cheap. JSON values have no inherited
    // enumerable keys; a JS caller's object with some is validated as if they were its own.
    const general: Check = (inst, st, ev, path) => {
      const o = inst as Record<string, unknown>;
      // This path does not count members for the instance limits.
      if (!st.collect) st.partial = true;
      if (ev !== null && keys.length > 0) addNamed(ev, indexOf);
      let ok = true;
      let pos = 0;
      // Members before the fast pass's failure passed; with patterns and annotations wanted,
      // a skipped key would miss its annotation, so nothing is skipped then.
      let skip = st.collect && (ev === null || nPatterns === 0) ? skipTo(st, token, o) : undefined;
      for (const key in o) {
        step(st);
        if (skip !== undefined) {
          if (key !== skip) continue;
          skip = undefined;
        }
        let at: number;
        if (pos < cacheSize) {
          if (seenKeys[pos] === key) at = seenIndex[pos]!;
          else {
            at = indexOf.get(key) ?? -1;
            seenKeys[pos] = key;
            seenIndex[pos] = at;
          }
          pos++;
        } else at = indexOf.get(key) ?? -1;
        const node = at < 0 ? undefined : nodes[at];
        let matched = false;
        if (node !== undefined) {
          matched = true;
          if (!memberPasses(node, o[key], st, path, key)) {
            if (st.trace) traceChild(st, node, o[key], childPointer("", key));
            else if (st.mark) markFailure(st, token, o, key);
            if (st.stop) return false;
            ok = false;
          }
        }
        for (let j = 0; j < nPatterns; j++) {
          if (!testPattern(patterns[j]!, key, st)) continue;
          if (!matched && ev !== null) addProp(ev, key);
          matched = true;
          step(st);
          if (!memberPasses(patternNodes[j]!, o[key], st, path, key)) {
            if (st.trace) traceChild(st, patternNodes[j]!, o[key], childPointer("", key));
            else if (st.mark) markFailure(st, token, o, key);
            if (st.stop) return false;
            ok = false;
          }
        }
        if (matched || additional === null) continue;
        if (forbidAdditional) {
          if (!st.collect) {
            if (st.trace) traceError(st, additionalLoc, additionalName, UNEXPECTED, childPointer("", key));
            else if (st.mark) markFailure(st, token, o, key);
            return false;
          }
          pushError(st, childPointer(path, key), additionalLoc, additionalName, UNEXPECTED);
          if (st.stop) return false;
          ok = false;
        } else if (!memberPasses(additional, o[key], st, path, key)) {
          if (st.trace) traceChild(st, additional, o[key], childPointer("", key));
          else if (st.mark) markFailure(st, token, o, key);
          if (st.stop) return false;
          ok = false;
        }
      }
      if (additional !== null && ev !== null) ev.allProps = true;
      return ok;
    };

    /**
     * Fast path (no errors, no annotations, no patternProperties): only a yes/no is needed,
     * so it returns at the first failure (traced when the pass traces, see traceChild).
     */
    const loop = (o: Record<string, unknown>, st: State, path: string): boolean => {
      let pos = 0;
      let count = 0;
      for (const key in o) {
        let i: number;
        if (pos < cacheSize) {
          if (seenKeys[pos] === key) i = seenIndex[pos]!;
          else {
            i = indexOf.get(key) ?? -1;
            seenKeys[pos] = key;
            seenIndex[pos] = i;
          }
          pos++;
        } else i = indexOf.get(key) ?? -1;
        count++;
        const v = o[key];
        // Members are counted for the instance limits (cover.ts); a container handed to a
        // schema that does not account for all of it marks the pass partial.
        const node = i >= 0 ? nodes[i]! : additional;
        if (typeof v === "object" && v !== null && (node === null || !(node.cover! >= 0))) st.partial = true;
        if (node === null) continue;
        if (i < 0 && forbidAdditional) {
          if (st.trace) traceError(st, additionalLoc, additionalName, UNEXPECTED, childPointer("", key));
          else if (st.mark) markFailure(st, token, o, key);
          return false;
        }
        const leaf = node.leaf;
        if (leaf !== null ? !leafPasses(leaf, v, st) : !node.validate(v, st, null, path)) {
          if (st.trace) traceChild(st, node, v, i >= 0 ? segment(i) : childPointer("", key));
          else if (st.mark) markFailure(st, token, o, key);
          return false;
        }
      }
      st.nodes += count;
      charge(st, count);
      return true;
    };

    /** undefined until generated (after GENERATE_AFTER calls); null when the closure loop serves. */
    let generated: ObjectFastPath | null | undefined;
    let calls = 0;
    const generateAfter = kc.generateAfter;
    const generate = (): ObjectFastPath | null =>
      keys.length > MAX_GENERATED_NAMES
        ? null
        : generateObjectFastPath({
            keys,
            nodes,
            additional,
            forbidAdditional,
            failed: (st, i, v, o) => {
              if (st.trace) traceChild(st, nodes[i]!, v, segment(i));
              else if (st.mark) markFailure(st, token, o, keys[i]!);
              return false;
            },
            failedExtra: (st, key, v, o) => {
              if (st.trace) {
                if (forbidAdditional) traceError(st, additionalLoc, additionalName, UNEXPECTED, childPointer("", key));
                else traceChild(st, additional!, v, childPointer("", key));
              } else if (st.mark) markFailure(st, token, o, key);
              return false;
            },
          });
    /** The collecting loop, generated like the fast one once the collecting pass uses it. */
    let collector: ObjectCollectPath | null | undefined;
    let collectCalls = 0;
    const annotate = (ev: Annotations): void => {
      if (keys.length > 0) addNamed(ev, indexOf);
      if (additional !== null) ev.allProps = true;
    };
    const collect = (inst: unknown, st: State, ev: Annotations | null, path: string): boolean => {
      if (collector === undefined) {
        if (++collectCalls <= generateAfter) return general(inst, st, ev, path);
        collector =
          keys.length > MAX_GENERATED_NAMES
            ? null
            : generateObjectCollectPath({
                keys,
                nodes,
                additional,
                forbidAdditional,
                additionalLoc,
                additionalName,
                unexpected: UNEXPECTED,
                annotate,
                patterns,
                patternNodes,
                token,
              });
      }
      return collector !== null ? collector(inst as Record<string, unknown>, st, ev, path) : general(inst, st, ev, path);
    };
    if (nPatterns > 0) return { check: (inst, st, ev, path) => (st.collect ? collect : general)(inst, st, ev, path), group: "object" };
    const check: Check = (inst, st, ev, path) => {
      if (st.collect) return collect(inst, st, ev, path);
      if (ev !== null) {
        // The annotations do not depend on the members' verdicts: a failure fails the node.
        if (keys.length > 0) addNamed(ev, indexOf);
        if (additional !== null) ev.allProps = true;
      }
      const o = inst as Record<string, unknown>;
      if (generated === undefined) {
        if (++calls <= generateAfter) return loop(o, st, path);
        generated = generate();
      }
      return generated !== null ? generated(o, st, path) : loop(o, st, path);
    };
    return { check, group: "object", cover: { iterates: "object", children: additional === null ? nodes : [...nodes, additional] } };
  };
}

export const compileProperties = makePropertiesCompiler("additionalProperties");

/** `propertyNames`: each key is validated as a string; errors point at the key, not its value. */
export const compilePropertyNames: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "propertyNames");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/propertyNames`, false);
  if (kc.checkOnly) return null;
  const loc = `${kc.at}/propertyNames`;
  const check: Check = (inst, st, _ev, path) => {
    const collect = st.collect;
    const saved = quiet(st);
    let ok = true;
    for (const key of Object.keys(inst as object)) {
      step(st);
      if (node.validate(key, st, null, path)) continue;
      ok = false;
      if (collect) pushError(st, childPointer(path, key), loc, "propertyNames", "Invalid property name");
      else if ((saved & 4) !== 0) traceError(st, loc, "propertyNames", "Invalid property name", childPointer("", key));
      if ((saved & 2) !== 0) break;
    }
    resume(st, saved);
    return ok;
  };
  return { check, group: "object" };
};
