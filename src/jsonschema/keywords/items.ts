/**
 * `prefixItems` and `items` (items applies after the prefix); both annotate for
 * unevaluatedItems. The fast pass runs a loop generated for the schema object once it is
 * in use (items-fast.ts); this file's closure loop serves before that, past the generated
 * size, and where code cannot be generated.
 */
import type { Annotations, Check, KeywordCompiler, SchemaNode, State } from "../context.js";
import { markFailure, own, pushError, skipTo, traceChild, traceError } from "../context.js";
import { charge } from "../steps.js";
import { leafPasses, memberPasses } from "../assemble.js";
import { childPointer } from "../pointer.js";
import { generateArrayCollectPath, generateArrayFastPath, MAX_GENERATED_PREFIX, type ArrayFastPath } from "./items-fast.js";
import { boundsOf, plural, readSchemaArray } from "./util.js";

/** minItems / maxItems when both are absent or valid; null otherwise (then nothing is folded). */
function readBounds(schema: Readonly<Record<string, unknown>>): { lo: number; hi: number } | null {
  const min = own(schema, "minItems");
  const max = own(schema, "maxItems");
  const valid = (v: unknown): boolean => v === undefined || (typeof v === "number" && Number.isInteger(v) && v >= 0);
  if (!valid(min) || !valid(max)) return null;
  return { lo: (min as number | undefined) ?? 0, hi: (max as number | undefined) ?? Infinity };
}

const UNEXPECTED = "Unexpected item";

/**
 * `restKeyword` lets a schema whose `unevaluatedItems` can only see prefixItems/items
 * annotations run it here, as a static check (see compile.ts).
 */
export function makeItemsCompiler(restKeyword: "items" | "unevaluatedItems"): KeywordCompiler {
  return (kc) => {
    const prefixValues = readSchemaArray(kc, "prefixItems");
    if (prefixValues === null) return null;
    const prefix: SchemaNode[] = (prefixValues ?? []).map((v, i) => kc.sub(v, `${kc.at}/prefixItems/${i}`, false));
    let itemsValue = own(kc.schema, "items");
    let itemsLoc = `${kc.at}/items`;
    let itemsName = "items";
    if (itemsValue === undefined && restKeyword === "unevaluatedItems") {
      itemsValue = own(kc.schema, "unevaluatedItems");
      itemsLoc = `${kc.at}/unevaluatedItems`;
      itemsName = "unevaluatedItems";
    }
    const items = itemsValue === undefined ? null : kc.sub(itemsValue, itemsLoc, false);
    if (kc.checkOnly) return null;
    if (prefix.length === 0 && items === null) return null;
    const forbidRest = itemsValue === false;
    const n = prefix.length;
    const bounds = readBounds(kc.schema);
    const lo = bounds?.lo ?? 0;
    const hi = bounds?.hi ?? Infinity;
    // The folded bounds' errors, as validation.ts compileArrayBounds reports them: checked
    // here first on a typed node's fast path, they are that node's first failure.
    /** This keyword's loop, as marks name it (context.ts markFailure). */
    const token = {};
    const refusal = boundsOf(kc.at, "minItems", "maxItems", (k) => plural(k, "item"), lo, hi);

    /**
     * The fast path also counts the items for the instance limits (cover.ts): an item that
     * is a container and goes to a schema that does not account for all of it, or items
     * past a prefix with no `items`, mark the pass partial.
     */
    const loop = (arr: readonly unknown[], st: State, ev: Annotations | null, path: string): boolean => {
      const len = arr.length;
      if (len < lo || len > hi) return refusal.refuse(st, path, len);
      charge(st, len);
      const upto = len < n ? len : n;
      for (let i = 0; i < upto; i++) {
        const v = arr[i];
        const node = prefix[i]!;
        if (typeof v === "object" && v !== null && !(node.cover! >= 0)) st.partial = true;
        const leaf = node.leaf;
        if (leaf !== null ? !leafPasses(leaf, v, st) : !node.validate(v, st, null, path)) {
          if (st.trace) traceChild(st, node, v, childPointer("", i));
          else if (st.mark) markFailure(st, token, arr, i);
          return false;
        }
      }
      if (items !== null) {
        if (forbidRest) {
          if (len > n) {
            if (st.trace) traceError(st, itemsLoc, itemsName, UNEXPECTED, childPointer("", n));
            else if (st.mark) markFailure(st, token, arr, n);
            return false;
          }
        } else {
          const covered = items.cover! >= 0;
          const leaf = items.leaf;
          if (leaf !== null) {
            for (let i = n; i < len; i++) {
              if (leafPasses(leaf, arr[i], st)) continue;
              if (st.trace) traceChild(st, items, arr[i], childPointer("", i));
              else if (st.mark) markFailure(st, token, arr, i);
              return false;
            }
          } else {
            for (let i = n; i < len; i++) {
              const v = arr[i];
              if (!covered && typeof v === "object" && v !== null) st.partial = true;
              if (items.validate(v, st, null, path)) continue;
              if (st.trace) traceChild(st, items, v, childPointer("", i));
              else if (st.mark) markFailure(st, token, arr, i);
              return false;
            }
          }
        }
        if (ev !== null) ev.allItems = true;
      } else {
        if (len > n) st.partial = true;
        if (ev !== null && upto > ev.items) ev.items = upto;
      }
      st.nodes += len;
      return true;
    };

    /** undefined until generated (after GENERATE_AFTER calls); null when the closure loop serves. */
    let generated: ArrayFastPath | null | undefined;
    let calls = 0;
    const generateAfter = kc.generateAfter;
    const generate = (): ArrayFastPath | null =>
      n > MAX_GENERATED_PREFIX
        ? null
        : generateArrayFastPath({
            prefix,
            items,
            forbidRest,
            lo,
            hi,
            failed: (st, i, v, arr) => {
              if (st.trace) traceChild(st, i < n ? prefix[i]! : items!, v, childPointer("", i));
              else if (st.mark) markFailure(st, token, arr, i);
              return false;
            },
            outOfBounds: (st, len) => refusal.refuse(st, "", len),
            forbidden: (st, i, arr) => {
              if (st.trace) traceError(st, itemsLoc, itemsName, UNEXPECTED, childPointer("", i));
              else if (st.mark) markFailure(st, token, arr, i);
              return false;
            },
          });
    /** The collecting loop, generated like the fast one once the collecting pass uses it. */
    let collector: ArrayFastPath | null | undefined;
    let collectCalls = 0;
    const collect: Check = (inst, st, ev, path) => {
      if (collector === undefined) {
        if (++collectCalls <= generateAfter) return collecting(inst, st, ev, path);
        collector =
          n > MAX_GENERATED_PREFIX
            ? null
            : generateArrayCollectPath({ prefix, items, forbidRest, itemsLoc, itemsName, unexpected: UNEXPECTED, token });
      }
      return collector !== null ? collector(inst as unknown[], st, ev, path) : collecting(inst, st, ev, path);
    };
    const fast: Check = (inst, st, ev, path) => {
      if (st.collect) return collect(inst, st, ev, path);
      const arr = inst as unknown[];
      if (generated === undefined) {
        if (++calls <= generateAfter) return loop(arr, st, ev, path);
        generated = generate();
      }
      return generated !== null ? generated(arr, st, ev, path) : loop(arr, st, ev, path);
    };

    const collecting: Check = (inst, st, ev, path) => {
      const arr = inst as unknown[];
      const len = arr.length;
      charge(st, len);
      let ok = true;
      const upto = len < n ? len : n;
      // Items before the fast pass's failure passed (context.ts skipTo).
      const from = (skipTo(st, token, arr) as number | undefined) ?? 0;
      for (let i = from; i < upto; i++) {
        if (!memberPasses(prefix[i]!, arr[i], st, path, i)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      if (items !== null) {
        if (forbidRest) {
          if (len > n) {
            if (!st.collect) return false;
            for (let i = n; i < len; i++) {
              pushError(st, childPointer(path, i), itemsLoc, itemsName, UNEXPECTED);
              if (st.stop) return false;
            }
            ok = false;
          }
        } else {
          for (let i = from > n ? from : n; i < len; i++) {
            if (!memberPasses(items, arr[i], st, path, i)) {
              if (st.stop) return false;
              ok = false;
            }
          }
        }
        if (ev !== null) ev.allItems = true;
      } else if (ev !== null && upto > ev.items) ev.items = upto;
      return ok;
    };
    if (items === null) return { check: fast, group: "array" };
    return { check: fast, group: "array", cover: { iterates: "array", children: forbidRest ? prefix : [...prefix, items] } };
  };
}

export const compileItems = makeItemsCompiler("items");
