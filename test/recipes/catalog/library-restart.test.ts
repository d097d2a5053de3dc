/**
 * A restart reads the packs it parsed before from the parse cache and serves
 * exactly what a cold start serves; an edit made while it was down is parsed.
 */
import { Writable } from "node:stream";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CatalogSnapshot } from "../../../src/recipes/catalog/catalog.js";
import type { Recipe } from "../../../src/recipes/types.js";
import { RecipeLibrary } from "../../../src/recipes/catalog/library.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";

const pack = (...names: string[]): string =>
  `recipes:\n${names.map((n) => `  - name: ${n}\n    description: ${n} things\n    inputs_schema: { type: object, required: [target], properties: { target: { type: string } } }\n    steps: [{ tool: do_${n} }]\n`).join("")}`;

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "restart-")));
  for (const skill of ["modeling", "fx"]) {
    await fs.mkdir(path.join(tmp, "skills", skill), { recursive: true });
    await fs.writeFile(path.join(tmp, "skills", skill, "SKILL.md"), `---\nname: ${skill}\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: RECIPES.yaml\n---\n`);
    await fs.writeFile(path.join(tmp, "skills", skill, "RECIPES.yaml"), pack(`${skill}_a`, `${skill}_b`));
  }
  await fs.writeFile(path.join(tmp, "skills", "fx", "RECIPES.yaml"), pack("fx_a") + "  - name: fx_bad\n    inputs_schema: { pattern: 5 }\n");
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Loads a library over the temp tree; returns its snapshot and the parse cache figures it logged. */
async function start(): Promise<{ snapshot: CatalogSnapshot; cache: { hits: number; misses: number }; library: RecipeLibrary }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split("\n")) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const library = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots: [path.join(tmp, "skills")], privateDir: path.join(tmp, "private"), stateDir: path.join(tmp, "state") },
    search: createSearchEngine({ provider: null }),
    logger: pino({ level: "info" }, sink),
  });
  const snapshot = await library.load();
  await library.flush();
  const loaded = lines.find((l) => l.msg === "catalog loaded");
  return { snapshot, cache: loaded?.parseCache as { hits: number; misses: number }, library };
}

/** Everything a client can see of a snapshot, validators aside. */
function visible(snapshot: CatalogSnapshot): unknown {
  return {
    recipes: [...snapshot.recipes.values()].map((recipe) => {
      const { inputValidator: _i, outputValidator: _o, ...rest } = recipe as Recipe & { inputValidator?: unknown; outputValidator?: unknown };
      return rest;
    }),
    diagnostics: snapshot.diagnostics,
  };
}

describe("restart with the parse cache", () => {
  it("parses nothing twice and serves the same catalog, fail-closed verdicts included", async () => {
    const cold = await start();
    expect(cold.cache).toEqual({ hits: 0, misses: 2 });
    const warm = await start();
    expect(warm.cache).toEqual({ hits: 2, misses: 0 });
    expect(visible(warm.snapshot)).toEqual(visible(cold.snapshot));
    expect(warm.snapshot.diagnostics.map((d) => d.code)).toContain("schema_fails_closed");
    const recipe = warm.snapshot.recipes.get("modeling/modeling_a");
    expect(recipe?.format === "yaml" && recipe.inputValidator.ok && recipe.inputValidator.validator.validate({}).valid).toBe(false);
  });

  it("parses a pack edited while the daemon was down, and only that one", async () => {
    await start();
    await fs.writeFile(path.join(tmp, "skills", "modeling", "RECIPES.yaml"), pack("modeling_a", "modeling_c"));
    const warm = await start();
    expect(warm.cache).toEqual({ hits: 1, misses: 1 });
    expect([...warm.snapshot.recipes.keys()].filter((id) => id.startsWith("modeling/"))).toEqual(["modeling/modeling_a", "modeling/modeling_c"]);
  });

  it("starts cold, with the same catalog, over a corrupt cache", async () => {
    const cold = await start();
    await fs.writeFile(path.join(tmp, "state", "parsed-packs"), "garbage");
    const again = await start();
    expect(again.cache).toEqual({ hits: 0, misses: 2 });
    expect(visible(again.snapshot)).toEqual(visible(cold.snapshot));
  });

  it("reports a pack that stopped being UTF-8 while the daemon was down, though its old bytes are cached", async () => {
    await start();
    const file = path.join(tmp, "skills", "modeling", "RECIPES.yaml");
    await fs.writeFile(file, Buffer.concat([Buffer.from(pack("modeling_a")), Buffer.from([0xc3, 0x28, 0x0a])]));
    const warm = await start();
    expect(warm.cache).toEqual({ hits: 1, misses: 1 });
    expect(warm.snapshot.diagnostics.filter((d) => d.skill === "modeling").map((d) => d.code)).toEqual(["not_utf8"]);
    expect([...warm.snapshot.recipes.keys()].some((id) => id.startsWith("modeling/"))).toBe(false);
  });
});

describe("a large cold load reads its packs where it parses them", () => {
  /** 70 skills (past the pool threshold), with every kind of bad pack among them. */
  async function largeTree(): Promise<void> {
    for (let i = 0; i < 70; i++) {
      const skill = `bulk${String(i).padStart(2, "0")}`;
      await fs.mkdir(path.join(tmp, "skills", skill), { recursive: true });
      await fs.writeFile(path.join(tmp, "skills", skill, "SKILL.md"), `---\nname: ${skill}\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: ${i >= 1 && i <= 6 ? "[RECIPES.yaml, MORE.yaml]" : "RECIPES.yaml"}\n---\n`);
      await fs.writeFile(path.join(tmp, "skills", skill, "RECIPES.yaml"), pack(`${skill}_a`, `${skill}_b`));
    }
    const more = (skill: string): string => path.join(tmp, "skills", skill, "MORE.yaml");
    await fs.writeFile(more("bulk01"), Buffer.concat([Buffer.from(pack("x")), Buffer.from([0xff, 0xfe, 0x0a])]));
    await fs.writeFile(more("bulk02"), "recipes: [unclosed\n");
    await fs.writeFile(more("bulk03"), `# ${"x".repeat(1024 * 1024)}\n`);
    await fs.mkdir(more("bulk04"));
    await fs.writeFile(more("bulk05"), pack("bulk05_a", "bulk05_c"));
    await fs.writeFile(path.join(tmp, "outside.yaml"), pack("stolen"));
    await fs.symlink(path.join(tmp, "outside.yaml"), more("bulk06"));
  }

  it("serves on a restart what it served cold, diagnostics included, hitting every pack it parsed", async () => {
    await largeTree();
    const cold = await start();
    expect(cold.cache.hits).toBe(0);
    // modeling's and fx's two each, two per bulk skill, and bulk05_c (its bulk05_a repeats).
    expect(cold.snapshot.recipes.size).toBe(2 * 2 + 70 * 2 + 1);
    const codes = cold.snapshot.diagnostics.map((d) => `${d.skill}:${d.code}`);
    expect(codes.filter((c) => c.startsWith("bulk")).sort()).toEqual(
      ["bulk01:not_utf8", "bulk02:yaml_parse_error", "bulk03:file_too_large", "bulk04:recipe_path_missing", "bulk05:duplicate_recipe", "bulk06:recipe_path_escapes"],
    );
    // The keys a cold load computed off the calling thread are the ones a restart looks up.
    // (The non-UTF-8 pack is keyed and looked up before it is refused: one miss at every restart.)
    const warm = await start();
    expect(warm.cache).toEqual({ hits: cold.cache.misses, misses: 1 });
    // Parsed: modeling, fx, 70 RECIPES.yaml, and the MORE.yaml of bulk02 (its syntax error is cached too) and bulk05.
    expect(cold.cache.misses).toBe(2 + 70 + 2);
    expect(visible(warm.snapshot)).toEqual(visible(cold.snapshot));
  });

  it("parses on a restart only the packs changed while it was down, and reports those that broke", async () => {
    await largeTree();
    await start();
    const dir = (skill: string): string => path.join(tmp, "skills", skill);
    await fs.writeFile(path.join(dir("bulk10"), "RECIPES.yaml"), pack("bulk10_a", "bulk10_new"));
    await fs.writeFile(path.join(dir("bulk11"), "RECIPES.yaml"), `# ${"x".repeat(1024 * 1024)}\n`);
    await fs.writeFile(path.join(dir("bulk12"), "RECIPES.yaml"), Buffer.from([0xc3, 0x28, 0x0a]));
    await fs.rm(path.join(dir("bulk13"), "RECIPES.yaml"));
    await fs.writeFile(path.join(dir("bulk02"), "MORE.yaml"), pack("bulk02_fixed"));
    const warm = await start();
    // Of the 74 packs parsed before, five changed: bulk11's and bulk13's are never looked up (too large,
    // gone); bulk10's, bulk12's and bulk02's MORE.yaml miss, as does bulk01's MORE.yaml (never UTF-8).
    expect(warm.cache).toEqual({ hits: 74 - 5, misses: 4 });
    const ids = [...warm.snapshot.recipes.keys()];
    expect(ids).toEqual(expect.arrayContaining(["bulk10/bulk10_a", "bulk10/bulk10_new", "bulk02/bulk02_fixed"]));
    expect(ids.filter((id) => /^bulk1[123]\//.test(id))).toEqual([]);
    const codes = warm.snapshot.diagnostics.map((d) => `${d.skill}:${d.code}`);
    expect(codes).toEqual(expect.arrayContaining(["bulk11:file_too_large", "bulk12:not_utf8", "bulk13:recipe_path_missing"]));
    expect(codes).not.toContain("bulk02:yaml_parse_error");
  });
});
