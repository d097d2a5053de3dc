/**
 * output_contract checks (seed 001: "contracts that cannot fail are useless").
 * "Cannot fail" is decided by the validator itself: the compiled contract is
 * run against an empty receipt. "Mutating without a receipt" is a heuristic
 * over side_effects and the recipe name, so it only warns; a receipt is a
 * `const: true` flag, a count of at least 1, or a required `*_uuid` of what
 * was made.
 */
import type { YamlRecipe } from "../../recipes/types.js";
import { derefSchema, isRecord } from "../schema-walk.js";
import type { RuleHit } from "../types.js";

/** Values a tool that did nothing might return. */
const TRIVIAL: readonly unknown[] = [{}, [], null, "", 0, false];

export function contractRule(recipe: YamlRecipe): RuleHit[] {
  const c = recipe.outputContract;
  const name = recipe.name;
  if (c === undefined || c === null) {
    return [{ code: "contract_missing", message: `recipe "${name}" has no output_contract` }];
  }
  if (typeof c === "string") {
    return [
      {
        code: "contract_legacy_label",
        message: `recipe "${name}": output_contract is the label "${clip(c)}", which is documentation only and validates nothing`,
        at: ["output_contract"],
      },
    ];
  }
  const compiled = recipe.outputValidator;
  // A contract the validator refuses is already a schema_fails_closed error.
  if (compiled === null || !compiled.ok) return [];
  const accepts = (v: unknown): boolean => compiled.validator.validate(v).valid;
  if (TRIVIAL.every(accepts)) {
    return [
      {
        code: "contract_cannot_fail",
        message: `recipe "${name}": output_contract accepts any value, so it cannot fail`,
        at: ["output_contract"],
      },
    ];
  }
  const types = isRecord(c) ? ([] as unknown[]).concat(c["type"] ?? []) : [];
  const probes: Array<[unknown, string]> = [];
  if (types.length === 0 || types.includes("object")) probes.push([{}, "an empty receipt {}"]);
  if (types.includes("array")) probes.push([[], "an empty list []"]);
  const passing = probes.find(([v]) => accepts(v));
  if (passing !== undefined) {
    return [
      {
        code: "contract_cannot_fail",
        message: `recipe "${name}": ${passing[1]} satisfies output_contract (nothing is required), so a tool that did nothing passes`,
        at: ["output_contract"],
      },
    ];
  }
  return receiptRule(recipe);
}

const READ_ONLY_VERBS = new Set([
  "get", "list", "read", "check", "validate", "inspect", "find", "query", "count", "review", "verify", "describe",
  "search", "show", "report", "compare", "diff", "measure", "analyze", "analyse", "preview", "lint", "audit", "scan",
  "detect", "fetch", "lookup", "look", "explain", "evaluate", "estimate", "qa",
]);

const MUTATING_WORDS = new Set([
  "create", "build", "make", "add", "set", "assign", "apply", "delete", "remove", "mirror", "combine", "merge", "join",
  "split", "separate", "extrude", "bevel", "inset", "boolean", "triangulate", "cleanup", "clean", "fix", "repair",
  "rename", "move", "rotate", "scale", "translate", "freeze", "bake", "write", "export", "import", "publish", "save",
  "generate", "loft", "lathe", "array", "instance", "instances", "subdivide", "smooth", "weld", "bridge", "fill", "cut",
  "slice", "duplicate", "copy", "paint", "connect", "attach", "detach", "parent", "unparent", "group", "ungroup",
  "keyframe", "insert", "update", "replace", "reset", "transfer", "retopologize", "decimate", "reduce", "render",
  "submit", "cache", "simulate", "setup", "rig", "bind", "skin", "constrain", "project", "unwrap", "layout", "densify",
  "lighten", "shatter", "fracture", "emit", "spawn", "place", "snap", "align", "center", "centre", "straighten",
  "collapse", "dissolve", "flip", "reverse", "reverse", "uv", "uvs", "tag", "link", "unlink", "load", "unload", "open",
  "close", "new", "convert", "bake", "write", "drop", "clear", "purge", "optimize", "optimise",
]);

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/** Explicit `side_effects` wins; otherwise the recipe name's verbs decide. */
export function looksMutating(recipe: YamlRecipe): boolean {
  const fx = recipe.entry["side_effects"] ?? recipe.entry["side-effects"];
  if (isRecord(fx)) return ["modifies", "creates", "deletes"].some((k) => fx[k] === true);
  const w = words(recipe.name);
  if (w.length === 0 || READ_ONLY_VERBS.has(w[0]!)) return false;
  return w.some((x) => MUTATING_WORDS.has(x));
}

/**
 * An identifier of what the operation made (`object_uuid`, `history_uuid`):
 * a tool that changed nothing has no such node to name. maya-mesh-ops'
 * `loft_hull_from_sections` proves its hull this way.
 */
function isIdentifierReceipt(name: string, schema: unknown): boolean {
  if (!/(?:^|_)uuid$/i.test(name) || !isRecord(schema)) return false;
  const types = ([] as unknown[]).concat(schema["type"] ?? "string");
  return types.length === 1 && types[0] === "string";
}

/** A required `const: true` flag, or a required count bounded below by 1. */
function isReceipt(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (schema["const"] === true) return true;
  if (Array.isArray(schema["enum"]) && schema["enum"].length === 1 && schema["enum"][0] === true) return true;
  const min = schema["minimum"];
  const xmin = schema["exclusiveMinimum"];
  return (typeof min === "number" && min >= 1) || (typeof xmin === "number" && xmin >= 0 && (schema["type"] === "integer" || xmin >= 0.5));
}

function receiptRule(recipe: YamlRecipe): RuleHit[] {
  if (!looksMutating(recipe)) return [];
  const root = recipe.outputContract;
  const c = derefSchema(root, root);
  if (!isRecord(c)) return [];
  const required = Array.isArray(c["required"]) ? (c["required"] as unknown[]) : [];
  const props = isRecord(c["properties"]) ? c["properties"] : {};
  const ok = required.some((r) => {
    if (typeof r !== "string" || !Object.hasOwn(props, r)) return false;
    const prop = derefSchema(root, props[r]);
    return isReceipt(prop) || isIdentifierReceipt(r, prop);
  });
  if (ok) return [];
  return [
    {
      code: "contract_no_receipt",
      message: `recipe "${recipe.name}" looks mutating but its output_contract requires no receipt flag (const: true) or post-operation count (minimum >= 1): a tool that changed nothing can pass`,
      at: ["output_contract"],
      atKey: true,
    },
  ];
}

function clip(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}
