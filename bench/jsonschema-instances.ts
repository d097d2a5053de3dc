/**
 * Instances for the validator benches: every object `inputs_schema` / `output_contract` of
 * the real packs with a plausible valid instance synthesised from its keywords and a
 * plausible mistake, kept only where ajv agrees with both labels.
 */
import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { collectSchemas, findRecipeFiles } from "./lib/real-packs.js";

export interface LabelledSchema {
  /** Where it came from: pack directory and the schema's index in it. */
  readonly name: string;
  readonly schema: unknown;
  readonly valid: unknown;
  readonly invalid: unknown;
}

function resolveLocal(root: unknown, ref: string): unknown {
  let v = root;
  for (const t of ref.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    v = (v as Record<string, unknown>)[t.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return v;
}

/** A plausible valid instance: consts, first enum members, lower bounds, every property. */
function sample(schema: unknown, root: unknown, depth = 0): unknown {
  if (schema === true || schema === undefined || depth > 20) return null;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === "string") return sample(resolveLocal(root, s.$ref), root, depth + 1);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ("default" in s) return s.default;
  for (const k of ["oneOf", "anyOf"]) if (Array.isArray(s[k])) return sample((s[k] as unknown[])[0], root, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type ?? (s.properties ? "object" : undefined);
  switch (type) {
    case "object": {
      const o: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      for (const k of Object.keys(props)) o[k] = sample(props[k], root, depth + 1);
      for (const k of (s.required ?? []) as string[]) if (!(k in o)) o[k] = "x";
      return o;
    }
    case "array": {
      const prefix = (s.prefixItems ?? []) as unknown[];
      const out = prefix.map((p) => sample(p, root, depth + 1));
      const min = typeof s.minItems === "number" ? s.minItems : 1;
      while (out.length < min && s.items !== false) out.push(sampleDistinct(s.items, root, depth, out.length));
      return out;
    }
    case "string": {
      const min = typeof s.minLength === "number" ? s.minLength : 1;
      return "abcdefgh".repeat(Math.ceil(Math.max(min, 4) / 8)).slice(0, Math.max(min, 4));
    }
    case "integer":
    case "number": {
      const lo = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : 1;
      const hi = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - 1 : lo;
      return Math.min(lo, hi);
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

function sampleDistinct(items: unknown, root: unknown, depth: number, i: number): unknown {
  const v = sample(items, root, depth + 1);
  if (typeof v === "number") return v + i;
  if (typeof v === "string") return `${v}${i}`;
  return v;
}

/** A plausible mistake: a required property missing, or the wrong type at the root. */
function breakInstance(valid: unknown, schema: Record<string, unknown>): unknown {
  if (valid !== null && typeof valid === "object" && !Array.isArray(valid)) {
    const o = { ...(valid as Record<string, unknown>) };
    const required = (schema.required ?? []) as string[];
    const props = Object.keys((schema.properties ?? {}) as object);
    if (props.length > 0) o[props[props.length - 1]!] = { wrong: [1, 2, 3] };
    if (required.length > 0) delete o[required[0]!];
    return o;
  }
  return { wrong: true };
}

/**
 * As the daemon receives values: parsed JSON. (`breakInstance` deletes a key, and V8 keeps
 * an object that lost a key in slow dictionary mode, which no parsed input is.)
 */
export function asParsed(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

/** The real packs' object schemas with labelled instances; null when the packs are absent. */
export function realPackSchemas(realSkills: string): LabelledSchema[] | null {
  if (!fs.existsSync(realSkills)) {
    console.warn(`real skill packs not found at ${realSkills}; skipping them`);
    return null;
  }
  const ajv = new Ajv2020({ strict: false });
  const out: LabelledSchema[] = [];
  let found = 0;
  for (const file of findRecipeFiles(realSkills)) {
    const schemas: unknown[] = [];
    collectSchemas(parseYaml(fs.readFileSync(file, "utf8")), schemas);
    const pack = path.relative(realSkills, file).split(path.sep)[0]!;
    schemas.forEach((schema, i) => {
      // Object schemas only: instances are synthesised from their keywords.
      if (schema === null || typeof schema !== "object") return;
      found++;
      const v = sample(schema, schema);
      const bad = breakInstance(v, schema as Record<string, unknown>);
      const f = ajv.compile(structuredClone(schema) as object);
      if (f(v) && !f(bad)) out.push({ name: `${pack}#${i}`, schema, valid: asParsed(v), invalid: asParsed(bad) });
    });
  }
  console.log(`real packs: ${found} object schemas found, ${out.length} with synthesised instances ajv agrees on`);
  return out;
}

/**
 * Patterns as packs write them (names, versions, paths, ids, colours, dates) on 20 items,
 * plus patternProperties on the item keys: every validation runs ~180 pattern tests.
 */
export function patternHeavy(): { schema: Record<string, unknown>; valid: unknown; invalid: unknown } {
  const item = {
    type: "object",
    required: ["name", "version"],
    properties: {
      name: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" },
      version: { type: "string", pattern: "^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?$" },
      path: { type: "string", pattern: "^(?:/[^/\\s]+)+\\.(?:ma|mb|hip|blend|fbx|usd)$" },
      id: { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" },
      colour: { type: "string", pattern: "^#[0-9a-fA-F]{6}$" },
      date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
      component: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}:(Face|Edge|Vertex)[0-9]+$" },
      email: { type: "string", pattern: "^[^@\\s]+@[^@\\s]+$" },
    },
    patternProperties: { "^x-[a-z]+$": { type: "string" } },
    additionalProperties: false,
  };
  const good = (i: number): Record<string, unknown> => ({
    name: `pCube_${i}`,
    version: `1.${i}.0-rc.1`,
    path: `/projects/show/asset_${i}/model.usd`,
    id: "0f8fad5b-d9cb-469f-a165-70867728950e",
    colour: "#a0B1c2",
    date: "2026-12-01",
    component: `pCube${i}:Face${i * 7}`,
    email: `artist${i}@studio.example`,
    "x-note": "kept",
  });
  const valid = Array.from({ length: 20 }, (_, i) => good(i));
  const invalid = valid.map((v, i) => (i === 19 ? { ...v, date: "2026-12-1" } : v));
  return { schema: { type: "array", items: item, maxItems: 100 }, valid: asParsed(valid), invalid: asParsed(invalid) };
}
