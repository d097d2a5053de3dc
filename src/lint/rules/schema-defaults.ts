/**
 * `default` values and `required` names checked against the schema they sit in.
 * Callers materialize `${x}` from defaults (docs/skill-packs.md), so a default its own
 * schema refuses ships an invalid argument to a tool.
 */
import { compileSchema, type CompileResult } from "../../jsonschema/index.js";
import { isRecord, walkSchema, type SchemaPath } from "../schema-walk.js";
import type { RuleHit } from "../types.js";
import { pointer } from "./schema-keywords.js";

/**
 * The subschema as a standalone schema: the root's `$defs` come along so
 * `#/$defs/…` refs still resolve. Other refs leave it uncompilable: skipped.
 */
function standalone(root: unknown, sub: Record<string, unknown>): Record<string, unknown> {
  const { default: _omit, ...rest } = sub;
  if (isRecord(root) && isRecord(root["$defs"]) && !Object.hasOwn(rest, "$defs")) return { ...rest, $defs: root["$defs"] };
  return rest;
}

/**
 * Packs repeat small property schemas (`{type: boolean, default: true}`):
 * one lint run shares compiled validators by JSON text, bounded in size.
 */
export class CompileCache {
  private readonly byText = new Map<string, CompileResult>();
  constructor(private readonly max = 4096) {}

  compile(schema: Record<string, unknown>): CompileResult {
    let key: string;
    try {
      key = JSON.stringify(schema);
    } catch {
      return compileSchema(schema);
    }
    let hit = this.byText.get(key);
    if (hit === undefined) {
      hit = compileSchema(schema);
      if (this.byText.size >= this.max) this.byText.clear();
      this.byText.set(key, hit);
    }
    return hit;
  }
}

export function defaultsRule(
  schema: unknown,
  where: string,
  base: readonly (string | number)[],
  recipeName: string,
  cache: CompileCache = new CompileCache(),
): RuleHit[] {
  const hits: RuleHit[] = [];
  walkSchema(schema, (s, path: SchemaPath) => {
    if (!Object.hasOwn(s, "default")) return;
    const compiled = cache.compile(standalone(schema, s as Record<string, unknown>));
    if (!compiled.ok) return;
    const result = compiled.validator.validate(s["default"]);
    if (result.valid) return;
    const first = result.errors[0];
    const why = first === undefined ? "" : `: ${first.instancePath === "" ? "" : `${first.instancePath} `}${first.message}`;
    hits.push({
      code: "default_invalid",
      message: `recipe "${recipeName}": ${where}${pointer(path)} default does not validate against its own schema${why}`,
      at: [...base, ...path, "default"],
    });
  });
  return hits;
}

export function requiredRule(schema: unknown, where: string, base: readonly (string | number)[], recipeName: string): RuleHit[] {
  const hits: RuleHit[] = [];
  walkSchema(schema, (s, path: SchemaPath) => {
    const required = s["required"];
    const props = s["properties"];
    // Without `properties` here, `required` usually completes a parent's (allOf branches): nothing to compare.
    if (!Array.isArray(required) || !isRecord(props)) return;
    const patterns = isRecord(s["patternProperties"]) ? Object.keys(s["patternProperties"]) : [];
    const closed = s["additionalProperties"] === false || s["unevaluatedProperties"] === false;
    required.forEach((name, i) => {
      if (typeof name !== "string" || Object.hasOwn(props, name)) return;
      if (patterns.some((p) => safeTest(p, name))) return;
      hits.push({
        code: "required_not_in_properties",
        severity: closed ? "error" : "warning",
        message: closed
          ? `recipe "${recipeName}": ${where}${pointer(path)} requires "${name}" but additionalProperties is false and properties does not declare it: nothing can pass`
          : `recipe "${recipeName}": ${where}${pointer(path)} requires "${name}", which properties does not declare`,
        at: [...base, ...path, "required", i],
      });
    });
  });
  return hits;
}

function safeTest(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, "u").test(name);
  } catch {
    return false;
  }
}
