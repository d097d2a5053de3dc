/**
 * The import rules of the house: no import circle
 * in src/, and imports point down — the validator knows nothing of the
 * project, the recipe and skill layers know nothing of the server, skills
 * know nothing of recipes. Type-only imports count (test/import-graph.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles, importGraph, layerViolations, type LayerRule } from "./import-graph.js";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src");

const RULES: LayerRule[] = [
  { from: "jsonschema/", never: [""], why: "src/jsonschema imports nothing of the project" },
  { from: "recipes/", never: ["server/"], why: "src/recipes never imports src/server" },
  { from: "skills/", never: ["server/", "recipes/"], why: "src/skills imports neither src/server nor src/recipes" },
];

/** The rest of the house: util at the bottom, config below every component, the composition root and the CLI on top. */
const HOUSE_RULES: LayerRule[] = [
  { from: "util/", never: ["skills/", "recipes/", "server/", "lint/", "config/", "cli/", "compose/"], why: "src/util imports only src/jsonschema" },
  { from: "config/", never: ["recipes/", "server/", "lint/", "cli/", "compose/"], why: "config resolution imports nothing above it" },
  { from: "skills/", never: ["lint/", "cli/", "compose/"], why: "src/skills is the discovery layer" },
  { from: "recipes/", never: ["lint/", "cli/", "compose/"], why: "src/recipes never imports the composition root or the CLI" },
  { from: "server/", never: ["cli/", "compose/"], why: "src/server never imports the composition root or the CLI" },
  { from: "lint/", never: ["server/", "cli/", "compose/"], why: "src/lint never imports the server, the composition root or the CLI" },
  { from: "compose/", never: ["cli/"], why: "the composition root never imports the CLI" },
];

describe("src/ import graph", () => {
  const graph = importGraph(SRC);

  it("reads the whole tree, and every relative import names a file", () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.edges.length).toBeGreaterThan(graph.files.length);
    expect(graph.unresolved).toEqual([]);
  });

  it("has no import circle", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("keeps the layer rules", () => {
    expect(layerViolations(graph, RULES)).toEqual([]);
  });

  it("keeps the house rules: util, config, components, composition root, CLI", () => {
    expect(layerViolations(graph, HOUSE_RULES)).toEqual([]);
  });
});

describe("the checker itself", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "import-graph-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  write("skills/a.ts", 'import { b } from "./b.js";\nexport const a = b;\n');
  write("skills/b.ts", 'import type { C } from "../recipes/c.js";\nexport const b = 1 as unknown as C;\n');
  write("recipes/c.ts", 'export type C = number;\nexport async function load() { return import("../skills/a.js"); }\n');
  write("recipes/d.ts", 'export { x } from "../server/x.js";\nexport type T = import("./missing.js").T;\n');
  write("server/x.ts", "export const x = 1;\n");

  it("names a circle through type-only and dynamic imports", () => {
    const cycles = importCycles(importGraph(dir));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatch(/^(skills\/a\.ts|skills\/b\.ts|recipes\/c\.ts) → .* → \1$/);
    expect(cycles[0]!.split(" → ")).toHaveLength(4);
  });

  it("names each broken layer rule and each unresolved import", () => {
    const graph = importGraph(dir);
    expect(layerViolations(graph, RULES)).toEqual([
      "recipes/d.ts → server/x.ts: src/recipes never imports src/server",
      "skills/b.ts → recipes/c.ts (type-only): src/skills imports neither src/server nor src/recipes",
    ]);
    expect(graph.unresolved).toEqual(["recipes/d.ts: ./missing.js"]);
  });
});
