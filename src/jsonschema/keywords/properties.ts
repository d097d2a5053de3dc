/**
 * `properties`, `patternProperties`, `additionalProperties`, in one pass over the instance's
 * own keys with a Map of declared names, so `__proto__`, `constructor` and `toString` are
 * ordinary names and inherited members never count as present.
 *
 * `additionalKeyword` lets a schema whose `unevaluatedProperties` can only ever see these
 * three keywords' annotations run it here, as a static check (see compile.ts).
 */
import type { Check, KeywordCompiler, SchemaNode, State } from "../context.js";
import { addProp, own, pushError, retraceHere, traceChild, traceError } from "../context.js";
import { leafPasses } from "../assemble.js";
import { isPlainObject } from "../json.js";
import { childPointer, escapeToken } from "../pointer.js";
import { readSchemaMap } from "./util.js";

const UNEXPECTED = "Unexpected property";

/** Positions of instance keys remembered by the fast path. */
const KEY_CACHE = 32;

/** Required names the properties loop can track, one bit each in a small integer. */
const MAX_FOLDED = 30;

/**
 * True when `required` is checked by the properties fast path: every required name is
 * declared in `properties`, none is named like a member of Object.prototype (those need
 * Object.hasOwn), and there are no patternProperties. `required` then skips its own check
 * whenever that fast path runs (no errors collected, no annotations): counting the names
 * the loop meets costs nothing, a lookup per name does (megamorphic keyed loads).
 */
export function requiredFoldedIntoProperties(schema: Readonly<Record<string, unknown>>): boolean {
  const props = own(schema, "properties");
  const required = own(schema, "required");
  const patterns = own(schema, "patternProperties");
  if (!isPlainObject(props) || !Array.isArray(required) || required.length === 0) return false;
  // The loop keeps one bit per name (see MAX_FOLDED).
  if (new Set(required).size > MAX_FOLDED) return false;
  if (patterns !== undefined && (!isPlainObject(patterns) || Object.keys(patterns).length > 0)) return false;
  return required.every((k) => typeof k === "string" && Object.hasOwn(props, k) && !(k in Object.prototype));
}

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
    const patterns: RegExp[] = [];
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

    const folded = requiredFoldedIntoProperties(kc.schema);
    // Looked up by the declared keys' own strings: property keys, so internalized (a name
    // read from the required array may be a slice V8 would internalize on each lookup).
    const requiredNames = folded ? [...new Set(kc.schema.required as string[])].map((k) => keys[indexOf.get(k)!]!) : [];
    const nRequired = requiredNames.length;
    /** Bit j of a declared key that is the j-th required name; all of them together. */
    const requiredBit = new Array<number>(keys.length).fill(0);
    requiredNames.forEach((k, j) => (requiredBit[indexOf.get(k)!] = 1 << j));
    const allRequired = (1 << nRequired) - 1;
    const requiredLoc = `${kc.at}/required`;
    const requiredMessages = requiredNames.map((k) => `Missing required property: ${k}`);

    // Instances of one schema usually list their keys in one order: remember which
    // declared name each position held last time, so most keys cost one comparison.
    // Sized for the instances this schema describes: its names plus a few extra keys.
    const cacheSize = Math.min(KEY_CACHE, keys.length + 4);
    const seenKeys: string[] = new Array<string>(cacheSize).fill("");
    const seenIndex: number[] = new Array<number>(cacheSize).fill(-1);

    /** The declared index of the instance key at position `pos`, through the key cache. */
    const declaredIndex = (key: string, pos: number): number => {
      if (pos >= cacheSize) return indexOf.get(key) ?? -1;
      if (seenKeys[pos] === key) return seenIndex[pos]!;
      const i = indexOf.get(key) ?? -1;
      seenKeys[pos] = key;
      seenIndex[pos] = i;
      return i;
    };

    /**
     * Whether a folded required name is missing, as the required keyword reads it, after a
     * member failed: `seen` holds the bits of the first `from` keys, the ones the loop met
     * before it stopped; the rest are scanned for theirs (a lookup per name would be a
     * megamorphic keyed load). When the pass traces, that keyword's first error is the
     * collecting pass's first error here (it runs before properties), so it replaces what
     * the failing member traced.
     */
    const missing = (st: State, o: Record<string, unknown>, seen: number, from: number): boolean => {
      let present = seen;
      let pos = 0;
      for (const key in o) {
        if (pos < from) {
          pos++;
          continue;
        }
        const i = declaredIndex(key, pos++);
        if (i >= 0 && o[key] !== undefined) present |= requiredBit[i]!;
      }
      if (present === allRequired) return false;
      if (st.trace) retraceHere(st, requiredLoc, "required", requiredMessages[lowestBit(~present & allRequired)]!);
      return true;
    };

    // One for-in pass over the instance: V8 reads `o[key]` from the enum cache there, and
    // the key's hash is cached, so the Map lookup is cheap. JSON objects have no inherited
    // enumerable keys; one that did would be treated as an undeclared property.
    const general: Check = (inst, st, ev, path) => {
      const o = inst as Record<string, unknown>;
      // This path does not count members for the instance limits.
      if (!st.collect) st.partial = true;
      let ok = true;
      for (const key in o) {
        const at = indexOf.get(key);
        const node = at === undefined ? undefined : nodes[at];
        let matched = false;
        if (node !== undefined) {
          matched = true;
          if (ev !== null) addProp(ev, key);
          if (!node.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
            if (st.trace) traceChild(st, node, o[key], childPointer("", key));
            if (st.stop) return false;
            ok = false;
          }
        }
        for (let j = 0; j < nPatterns; j++) {
          if (!patterns[j]!.test(key)) continue;
          if (!matched && ev !== null) addProp(ev, key);
          matched = true;
          if (!patternNodes[j]!.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
            if (st.trace) traceChild(st, patternNodes[j]!, o[key], childPointer("", key));
            if (st.stop) return false;
            ok = false;
          }
        }
        if (matched || additional === null) continue;
        if (forbidAdditional) {
          if (!st.collect) {
            if (st.trace) traceError(st, additionalLoc, additionalName, UNEXPECTED, childPointer("", key));
            return false;
          }
          pushError(st, childPointer(path, key), additionalLoc, additionalName, UNEXPECTED);
          if (st.stop) return false;
          ok = false;
        } else if (!additional.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
          if (st.trace) traceChild(st, additional, o[key], childPointer("", key));
          if (st.stop) return false;
          ok = false;
        }
      }
      if (additional !== null && ev !== null) ev.allProps = true;
      return ok;
    };
    if (nPatterns > 0) return { check: general, group: "object" };

    /**
     * Fast path (no errors, no annotations, no patternProperties), also checking a folded
     * `required`: only a yes/no is needed, so it returns at the first failure (traced when
     * the pass traces, see traceChild).
     */
    const check: Check = (inst, st, ev, path) => {
      if (st.collect || ev !== null) return general(inst, st, ev, path);
      const o = inst as Record<string, unknown>;
      let pos = 0;
      let count = 0;
      let seen = 0;
      for (const key in o) {
        // declaredIndex, inline: a call here is an indirect call per key.
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
          if (st.trace && !(nRequired > 0 && missing(st, o, seen, count))) traceError(st, additionalLoc, additionalName, UNEXPECTED, childPointer("", key));
          return false;
        }
        if (i >= 0 && v !== undefined) seen |= requiredBit[i]!;
        const leaf = node.leaf;
        if (leaf !== null ? !leafPasses(leaf, v) : !node.validate(v, st, null, path)) {
          if (st.trace && !(nRequired > 0 && missing(st, o, seen, count))) traceChild(st, node, v, i >= 0 ? segment(i) : childPointer("", key));
          return false;
        }
      }
      if (seen !== allRequired) {
        // Every key was met: the lowest missing bit is the first name the required keyword reports.
        if (st.trace) retraceHere(st, requiredLoc, "required", requiredMessages[lowestBit(~seen & allRequired)]!);
        return false;
      }
      st.nodes += count;
      return true;
    };
    return { check, group: "object", cover: { iterates: "object", children: additional === null ? nodes : [...nodes, additional] } };
  };
}

export const compileProperties = makePropertiesCompiler("additionalProperties");

/** Index of the lowest set bit of a non-zero 31-bit mask. */
function lowestBit(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
}
