/** `prefixItems` and `items` (items applies after the prefix); both annotate for unevaluatedItems. */
import type { Check, KeywordCompiler, SchemaNode } from "../context.js";
import { own, pushError } from "../context.js";
import { childPointer } from "../pointer.js";
import { readSchemaArray } from "./util.js";

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
    if (prefix.length === 0 && items === null) return null;
    const forbidRest = itemsValue === false;
    const n = prefix.length;

    const check: Check = (inst, st, ev, path) => {
      const arr = inst as unknown[];
      const len = arr.length;
      let ok = true;
      const upto = len < n ? len : n;
      for (let i = 0; i < upto; i++) {
        if (!prefix[i]!.validate(arr[i], st, null, st.collect ? childPointer(path, i) : path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      if (items !== null) {
        if (forbidRest) {
          if (len > n) {
            if (!st.collect) return false;
            for (let i = n; i < len; i++) {
              pushError(st, childPointer(path, i), itemsLoc, itemsName, "Unexpected item");
              if (st.stop) return false;
            }
            ok = false;
          }
        } else {
          for (let i = n; i < len; i++) {
            if (!items.validate(arr[i], st, null, st.collect ? childPointer(path, i) : path)) {
              if (st.stop) return false;
              ok = false;
            }
          }
        }
        if (ev !== null) ev.allItems = true;
      } else if (ev !== null && upto > ev.items) ev.items = upto;
      return ok;
    };
    return { check, group: "array" };
  };
}

export const compileItems = makeItemsCompiler("items");
