/**
 * Step materialization (docs/skill-packs.md), offered by `recipes__apply` with
 * `materialize: true`. The verbatim steps stay the contract; this is a service.
 *
 * What is materialized: the parameters of each step (`arguments`, `inputs`,
 * and their `fallback_` forms, as freecad's packs write them). Every string
 * found anywhere inside those is a candidate. Other step keys (`description`,
 * `scripting_fallback`, …) are prose and stay verbatim even when they
 * mention `${x}`.
 *
 * Real packs leave optional inputs out on purpose (freecad's `fem-review`
 * reads `fem_result.target_object` only when the bridge supplied it). So a
 * placeholder the inputs_schema declares, whose value is absent and has no
 * default, is kept verbatim and reported; only a placeholder nothing could
 * fill (the schema declares no such input and the inputs hold none) in a
 * step that is not `optional: true` refuses the materialization.
 */
import { isParameterKey, placeholderPath, PLACEHOLDER, scanPlaceholders, WHOLE_PLACEHOLDER, type PathStep } from "../packs/placeholders.js";
import { isPlainObject as isRecord } from "../../jsonschema/json.js";

/** Why a placeholder was left as written. */
type UnresolvedReason =
  /** The schema declares it, the inputs omit it, and it has no default. */
  | "input_absent"
  /** Neither the schema nor the inputs name it. */
  | "undeclared"
  /** A `${` that is not a placeholder the grammar reads. */
  | "malformed";

interface UnresolvedPlaceholder {
  /** 0-based index of the step. */
  readonly step: number;
  /** The step's `id`, when it has one. */
  readonly step_id?: string;
  /** Where inside the step, e.g. `inputs.object_name` or `fallback_inputs.object_name`. */
  readonly field: string;
  /** The placeholder as written (`${a.b}`), or the whole string for a malformed one. */
  readonly placeholder: string;
  readonly reason: UnresolvedReason;
  /** True when the step is marked `optional: true`. */
  readonly optional_step: boolean;
}

type MaterializeResult =
  | {
      readonly ok: true;
      readonly steps: unknown[];
      /** Every placeholder kept verbatim, in step order. */
      readonly unresolved: UnresolvedPlaceholder[];
      /** Indexes of `optional: true` steps holding an unresolved placeholder: the caller may skip them. */
      readonly skippable: number[];
    }
  | {
      readonly ok: false;
      /** The placeholders that block materialization (undeclared, in a step that is not optional). */
      readonly unresolved: UnresolvedPlaceholder[];
    };

const MISSING: unique symbol = Symbol("missing");

/** One path step into a value: own keys of objects, indexes of arrays (`[n]` or `.n`). */
function childValue(cur: unknown, step: PathStep): unknown {
  const index = "index" in step ? step.index : /^[0-9]+$/.test(step.key) && Array.isArray(cur) ? Number(step.key) : null;
  if (index !== null) return Array.isArray(cur) && index < cur.length ? cur[index] : MISSING;
  if (!("key" in step) || !isRecord(cur) || !Object.hasOwn(cur, step.key)) return MISSING;
  return cur[step.key];
}

function fromInputs(inputs: unknown, path: readonly PathStep[]): unknown {
  let cur: unknown = inputs;
  for (const step of path) {
    cur = childValue(cur, step);
    if (cur === MISSING) return MISSING;
  }
  return cur;
}

/** A same-document `$ref`, a few hops deep: packs written from older examples share definitions. */
function deref(root: unknown, schema: unknown): unknown {
  let cur = schema;
  for (let hops = 0; hops < 8 && isRecord(cur) && typeof cur["$ref"] === "string" && cur["$ref"].startsWith("#/"); hops++) {
    let target: unknown = root;
    for (const raw of cur["$ref"].slice(2).split("/")) {
      const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      target = isRecord(target) && Object.hasOwn(target, seg) ? target[seg] : undefined;
    }
    if (target === undefined) return cur;
    // Siblings of `$ref` (a `default` beside it) apply too, and win over the target's.
    const { $ref: _ref, ...siblings } = cur;
    cur = isRecord(target) ? { ...target, ...siblings } : target;
  }
  return cur;
}

/** The subschema a path step leads to: `properties`, else an array's `prefixItems`/`items`. */
function childSchema(root: unknown, cur: unknown, step: PathStep): unknown {
  const s = deref(root, cur);
  if (!isRecord(s)) return MISSING;
  if ("key" in step) {
    const props = s["properties"];
    if (isRecord(props) && Object.hasOwn(props, step.key)) return props[step.key];
    if (!/^[0-9]+$/.test(step.key)) return MISSING;
  }
  const index = "index" in step ? step.index : Number(step.key);
  const prefix = s["prefixItems"];
  if (Array.isArray(prefix) && index < prefix.length) return prefix[index];
  return isRecord(s["items"]) || s["items"] === true ? s["items"] : MISSING;
}

/** The schema at the end of the path, or MISSING when the schema does not declare it. */
function declared(schema: unknown, path: readonly PathStep[]): unknown {
  let cur: unknown = schema;
  for (const step of path) {
    cur = childSchema(schema, cur, step);
    if (cur === MISSING) return MISSING;
  }
  return deref(schema, cur);
}

type Lookup = { readonly value: unknown } | { readonly reason: "input_absent" | "undeclared" };

function lookup(name: string, inputs: unknown, schema: unknown): Lookup {
  const path = placeholderPath(name);
  const v = fromInputs(inputs, path);
  if (v !== MISSING) return { value: v };
  const at = declared(schema, path);
  if (at === MISSING) return { reason: "undeclared" };
  return isRecord(at) && Object.hasOwn(at, "default") ? { value: at["default"] } : { reason: "input_absent" };
}

function stringForm(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
}

interface Where {
  readonly note: (field: string, placeholder: string, reason: UnresolvedReason) => void;
  readonly inputs: unknown;
  readonly schema: unknown;
}

/** Deep copy of `value` with placeholders replaced; what stays is noted with its field. */
function substitute(value: unknown, field: string, w: Where): unknown {
  if (typeof value === "string") {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) {
      const found = lookup(whole[1]!, w.inputs, w.schema);
      if ("value" in found) return structuredClone(found.value);
      w.note(field, value, found.reason);
      return value;
    }
    const scan = scanPlaceholders(value);
    if (scan.malformed) w.note(field, value, "malformed");
    if (scan.names.length === 0) return value;
    return value.replace(PLACEHOLDER, (match, name: string) => {
      const found = lookup(name, w.inputs, w.schema);
      if ("value" in found) return stringForm(found.value);
      w.note(field, match, found.reason);
      return match;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, `${field}[${i}]`, w));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // defineProperty keeps a "__proto__" key as data instead of re-prototyping the copy.
      Object.defineProperty(out, k, { value: substitute(v, `${field}.${k}`, w), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

export function materializeSteps(steps: readonly unknown[], inputs: unknown, inputsSchema: unknown): MaterializeResult {
  const unresolved: UnresolvedPlaceholder[] = [];
  const out = steps.map((step, index) => {
    if (!isRecord(step)) return structuredClone(step);
    const id = typeof step["id"] === "string" ? step["id"] : undefined;
    const optional = step["optional"] === true;
    const where: Where = {
      inputs,
      schema: inputsSchema,
      note: (field, placeholder, reason) =>
        unresolved.push({ step: index, ...(id !== undefined ? { step_id: id } : {}), field, placeholder, reason, optional_step: optional }),
    };
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(step)) {
      const value = isParameterKey(k) ? substitute(v, k, where) : structuredClone(v);
      Object.defineProperty(copy, k, { value, enumerable: true, writable: true, configurable: true });
    }
    return copy;
  });
  const blocking = unresolved.filter((u) => u.reason === "undeclared" && !u.optional_step);
  if (blocking.length > 0) return { ok: false, unresolved: blocking };
  const skippable = [...new Set(unresolved.filter((u) => u.optional_step).map((u) => u.step))];
  return { ok: true, steps: out, unresolved, skippable };
}
