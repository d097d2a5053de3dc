/**
 * Step materialization (SPEC §4.4), offered by `recipes__apply` with
 * `materialize: true`. The verbatim steps stay the contract; this is a service.
 *
 * What is materialized: the `arguments` of each step, and `inputs` too, because
 * some packs (freecad's) name a step's parameters `inputs`. Every string found
 * anywhere inside those two values is a candidate. Other step keys
 * (`description`, `scripting_fallback`, …) are prose and stay verbatim even when
 * they mention `${x}`.
 */

export type MaterializeResult =
  | { readonly ok: true; readonly steps: unknown[] }
  | { readonly ok: false; readonly unresolved: string[] };

const PARAM_KEYS = ["arguments", "inputs"] as const;
const WHOLE = /^\$\{([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\}$/;
const EMBEDDED = /\$\{([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\}/g;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const MISSING: unique symbol = Symbol("missing");

/** `a.b.c` through nested inputs; own properties only. */
function fromInputs(inputs: unknown, path: readonly string[]): unknown {
  let cur: unknown = inputs;
  for (const key of path) {
    if (!isRecord(cur) || !Object.hasOwn(cur, key)) return MISSING;
    cur = cur[key];
  }
  return cur;
}

/** `a.b.c` through `properties` of nested schemas, then that schema's `default`. */
function fromDefaults(schema: unknown, path: readonly string[]): unknown {
  let cur: unknown = schema;
  for (const key of path) {
    if (!isRecord(cur)) return MISSING;
    const props = cur["properties"];
    if (!isRecord(props) || !Object.hasOwn(props, key)) return MISSING;
    cur = props[key];
  }
  return isRecord(cur) && Object.hasOwn(cur, "default") ? cur["default"] : MISSING;
}

function lookup(name: string, inputs: unknown, schema: unknown): unknown {
  const path = name.split(".");
  const v = fromInputs(inputs, path);
  return v !== MISSING ? v : fromDefaults(schema, path);
}

function stringForm(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
}

/** Deep copy of `value` with placeholders replaced; unresolved names collected. */
function substitute(value: unknown, inputs: unknown, schema: unknown, unresolved: Set<string>): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole) {
      const v = lookup(whole[1]!, inputs, schema);
      if (v === MISSING) {
        unresolved.add(whole[1]!);
        return value;
      }
      return structuredClone(v);
    }
    if (!value.includes("${")) return value;
    return value.replace(EMBEDDED, (match, name: string) => {
      const v = lookup(name, inputs, schema);
      if (v === MISSING) {
        unresolved.add(name);
        return match;
      }
      return stringForm(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, inputs, schema, unresolved));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // defineProperty keeps a "__proto__" key as data instead of re-prototyping the copy.
      Object.defineProperty(out, k, { value: substitute(v, inputs, schema, unresolved), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

export function materializeSteps(
  steps: readonly unknown[],
  inputs: unknown,
  inputsSchema: unknown,
): MaterializeResult {
  const unresolved = new Set<string>();
  const out = steps.map((step) => {
    if (!isRecord(step)) return structuredClone(step);
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(step)) {
      const value = (PARAM_KEYS as readonly string[]).includes(k)
        ? substitute(v, inputs, inputsSchema, unresolved)
        : structuredClone(v);
      Object.defineProperty(copy, k, { value, enumerable: true, writable: true, configurable: true });
    }
    return copy;
  });
  if (unresolved.size > 0) return { ok: false, unresolved: [...unresolved] };
  return { ok: true, steps: out };
}
