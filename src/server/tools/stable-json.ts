/**
 * Deterministic JSON: object keys sorted, so a result window of one unchanged
 * result always cuts at the same places (SPEC §5.3).
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

/**
 * A deep copy with sorted keys, as stableStringify serializes it. It runs on
 * every tool result (and the copy is serialized twice, as text and as
 * structuredContent), so the copies are ordinary literal objects, which V8
 * keeps in fast mode, where null-prototype ones start as dictionaries; a
 * "__proto__" key is defined as own data, never assigned.
 */
export function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) out[i] = sortKeys(value[i]);
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
    if (key === "__proto__") Object.defineProperty(out, key, { value: sortKeys(child), enumerable: true, writable: true, configurable: true });
    else out[key] = sortKeys(child);
  }
  return out;
}
