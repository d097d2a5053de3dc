/** Real skill trees in a temp dir, linted with the real engine. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { lintRoots } from "../../src/lint/engine.js";
import type { LintFinding, LintReport } from "../../src/lint/types.js";

export const repoRoot = path.resolve(import.meta.dirname, "../..");

export function skillMd(name: string, recipes: string | string[] = "RECIPES.yaml", dcc = "maya"): string {
  const r = Array.isArray(recipes) ? `[${recipes.map((x) => JSON.stringify(x)).join(", ")}]` : JSON.stringify(recipes);
  return `---\nname: ${name}\ndescription: test skill ${name}\nmetadata:\n  dcc-mcp:\n    dcc: ${dcc}\n    recipes: ${r}\n---\n# ${name}\n`;
}

/** A recipe that passes every rule; tests change one thing at a time. */
export function goodRecipe(): Record<string, unknown> {
  return {
    name: "set_pivot",
    dcc: "maya",
    description: "Move an object's pivot.",
    inputs_schema: {
      type: "object",
      additionalProperties: false,
      required: ["object_name"],
      properties: {
        object_name: { type: "string", minLength: 1 },
        space: { type: "string", enum: ["world", "object"], default: "world" },
      },
    },
    steps: [{ tool: "maya__set_pivot", arguments: { object_name: "${object_name}", space: "${space}" } }],
    output_contract: {
      type: "object",
      required: ["object_name", "changed"],
      properties: { object_name: { type: "string" }, changed: { type: "boolean", const: true } },
    },
  };
}

export function pack(...recipes: unknown[]): string {
  return stringify({ recipes }, { lineWidth: 0 });
}

export type Tree = Record<string, string | Buffer>;

export async function makeTree(tree: Tree): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "lint-"));
  for (const [rel, content] of Object.entries(tree)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Lints `tree` laid out under a temp root (one skill per top-level dir). */
export async function lintTree(tree: Tree, roots: string[] = ["."]): Promise<LintReport> {
  const { dir, cleanup } = await makeTree(tree);
  try {
    return await lintRoots(roots, { cwd: dir, requireSkills: true });
  } finally {
    await cleanup();
  }
}

/** One skill `s` with one pack holding `recipes`. */
export async function lintPack(...recipes: unknown[]): Promise<LintFinding[]> {
  return (await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": pack(...recipes) })).findings;
}

export function codes(findings: readonly LintFinding[]): string[] {
  return findings.map((f) => f.code);
}

export function withCode(findings: readonly LintFinding[], code: string): LintFinding[] {
  return findings.filter((f) => f.code === code);
}
