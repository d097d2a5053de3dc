/** The JSON Schemas that recipe packs carry, for the validator benches. */
import fs from "node:fs";
import path from "node:path";

/** Every RECIPES.yaml / RECIPES.yml under `dir`, depth first. */
export function findRecipeFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) findRecipeFiles(p, out);
    else if (/^RECIPES\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every `inputs_schema` and `output_contract` value in a parsed pack (boolean schemas included), in document order. */
export function collectSchemas(node: unknown, out: unknown[]): void {
  if (Array.isArray(node)) for (const x of node) collectSchemas(x, out);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "inputs_schema" || k === "output_contract") out.push(v);
      else collectSchemas(v, out);
    }
  }
}
