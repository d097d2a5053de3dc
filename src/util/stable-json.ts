/**
 * JSON values shared by every request: deep-frozen once (recipes are shared
 * by every request), and serialized deterministically, object keys sorted,
 * so a result window of one unchanged result always cuts at the same places
 * (docs/tools.md). Recipes keep the parts answers carry in this order
 * already (yaml-recipe.ts), so that a call only walks and serializes them.
 */

/** Freezes a value and everything it holds (recipes are shared by every request). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

/**
 * `value` with its object keys sorted, as stableStringify serializes it: the
 * value itself when it is already so, else a deep copy. It runs on every tool
 * result (serialized twice, as text and as structuredContent), so copies are
 * ordinary literal objects, which V8 keeps in fast mode, where null-prototype
 * ones start as dictionaries; a "__proto__" key is defined as own data, never
 * assigned.
 */
export function sortKeys(value: unknown): unknown {
  // Handlers build their answers in key order: most need no copy at all.
  return isCanonical(value) ? value : sortedCopy(value);
}

/**
 * JSON-shaped already as sortKeys would copy it: plain objects with keys in sorted order
 * and no undefined member, arrays, scalars. Walks without allocating.
 */
function isCanonical(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "undefined":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (!isCanonical(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  // This object's own keys first, so an unsorted one (a recipe entry as written in its
  // pack) is given up on before anything below it is walked.
  const o = value as Record<string, unknown>;
  let previous: string | null = null;
  for (const key in o) {
    if (!Object.hasOwn(o, key) || o[key] === undefined || (previous !== null && previous > key)) return false;
    previous = key;
  }
  for (const key in o) if (!isCanonical(o[key])) return false;
  return true;
}

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) out[i] = sortedCopy(value[i]);
    return out;
  }
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  // Most objects are small and many already sorted: check before sorting.
  for (let i = 1; i < keys.length; i += 1) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const child = source[key];
    if (child === undefined) continue;
    if (key === "__proto__") Object.defineProperty(out, key, { value: sortedCopy(child), enumerable: true, writable: true, configurable: true });
    else out[key] = sortedCopy(child);
  }
  return out;
}
