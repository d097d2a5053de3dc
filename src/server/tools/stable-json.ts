/**
 * Deterministic JSON: object keys sorted, so a result window of one unchanged
 * result always cuts at the same places (SPEC §5.3).
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

/** A deep copy with sorted keys (null-prototype objects), as stableStringify serializes it. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const source = value as Record<string, unknown>;
    // A null-prototype target keeps a "__proto__" key as plain data.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(source).sort()) {
      const child = source[key];
      if (child !== undefined) out[key] = sortKeys(child);
    }
    return out;
  }
  return value;
}
