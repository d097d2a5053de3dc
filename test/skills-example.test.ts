// Structural checks of the bundled example skill packs (skills-example/).
// They run on the raw files with the `yaml` package so the packs stay correct
// independently of the project's loaders; the loaders get their own check in
// the last block once they exist.
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";
import { parse, parseDocument } from "yaml";
import { loadSkillRecipes } from "../src/recipes/packs/loader.js";
import { materializeSteps } from "../src/recipes/api/materialize.js";
import type { Recipe, YamlRecipe } from "../src/recipes/types.js";
import { discoverSkills } from "../src/skills/discover.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const examplesDir = path.join(repoRoot, "skills-example");

/** Recipes per skill, by name, as the packs are written. */
const EXPECTED: Record<string, { dcc: string; recipes: string[] }> = {
  "maya-modeling": {
    dcc: "maya",
    recipes: [
      "Subdivide and relax",
      "Clean up non-manifold geometry",
      "Freeze transforms before export",
      "Mirror a half model",
      "Reduce polygon count for a game LOD",
      "Rig notes for C#",
      "Notes",
    ],
  },
  "houdini-fx": {
    dcc: "houdini",
    recipes: [
      // recipes/cache.yml sorts before recipes/fx.yaml
      "write_sim_cache",
      "verify_sim_cache",
      "load_sim_cache",
      "pyro_explosion",
      "rbd_fracture",
      "flip_tank",
    ],
  },
  "blender-lookdev": {
    dcc: "blender",
    recipes: ["pbr_material_from_textures", "three_point_light_rig", "turntable_camera"],
  },
  "scene-qa": {
    dcc: "any",
    recipes: [
      "check_scene_units",
      "validate_naming_convention",
      "find_missing_textures",
      "find_duplicate_names",
      "check_frame_range",
      "check_unsaved_changes",
    ],
  },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const PLACEHOLDER = /\$\{([^}]*)\}/g;

/** Follows a same-document `#/…` JSON Pointer `$ref` (the only kind the packs use). */
function deref(root: Obj, schema: Obj): Obj {
  let s = schema;
  for (let hops = 0; typeof s.$ref === "string" && hops < 32; hops++) {
    const ref = s.$ref as string;
    if (!ref.startsWith("#")) return s;
    let target: unknown = root;
    for (const raw of ref.slice(1).split("/").filter(Boolean)) {
      const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      target = isObj(target) ? target[seg] : undefined;
    }
    if (!isObj(target)) return s;
    // sibling keywords of $ref win over the referenced schema for our purpose
    const { $ref: _ignored, ...siblings } = s;
    s = { ...target, ...siblings };
  }
  return s;
}

/**
 * Why `${name}` (or dotted `${a.b}`) cannot be materialized from this
 * inputs_schema, or null when every segment is a declared property that is
 * required or has a default.
 */
function unresolvable(inputsSchema: unknown, name: string): string | null {
  if (!isObj(inputsSchema)) return "inputs_schema is not an object";
  let schema = deref(inputsSchema, inputsSchema);
  const segments = name.split(".");
  for (const [i, seg] of segments.entries()) {
    const props = schema.properties;
    const sub = isObj(props) && Object.hasOwn(props, seg) ? props[seg] : undefined;
    if (!isObj(sub)) return `"${segments.slice(0, i + 1).join(".")}" is not a declared input`;
    const required = Array.isArray(schema.required) && schema.required.includes(seg);
    const resolved = deref(inputsSchema, sub);
    if (!required && !Object.hasOwn(resolved, "default")) {
      return `"${segments.slice(0, i + 1).join(".")}" is neither required nor has a default`;
    }
    schema = resolved;
  }
  return null;
}

function* strings(v: unknown): Generator<string> {
  if (typeof v === "string") yield v;
  else if (Array.isArray(v)) for (const x of v) yield* strings(x);
  else if (isObj(v)) for (const x of Object.values(v)) yield* strings(x);
}

/** Every structural problem of one YAML recipe pack text; empty when it is sound. */
function packProblems(text: string): string[] {
  const problems: string[] = [];
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) return doc.errors.map((e) => `parse: ${e.code}`);
  const top: unknown = doc.toJS({ maxAliasCount: 100 });
  if (!isObj(top) || !Array.isArray(top.recipes)) return ["top level has no recipes: list"];
  const seen = new Set<string>();
  top.recipes.forEach((entry: unknown, i: number) => {
    const at = `recipes[${i}]`;
    if (!isObj(entry)) return void problems.push(`${at}: not a mapping`);
    const name = entry.name;
    if (typeof name !== "string" || name.trim() === "") return void problems.push(`${at}: no name`);
    if (seen.has(name)) problems.push(`${name}: duplicate name`);
    seen.add(name);
    const steps = entry.steps;
    if (!Array.isArray(steps) || steps.length === 0) problems.push(`${name}: no steps`);
    else {
      steps.forEach((step: unknown, j: number) => {
        if (!isObj(step) || typeof step.tool !== "string" || step.tool === "") {
          problems.push(`${name}: steps[${j}] has no tool`);
        } else if (step.arguments !== undefined && !isObj(step.arguments)) {
          problems.push(`${name}: steps[${j}].arguments is not a mapping`);
        }
      });
      for (const s of strings(steps)) {
        for (const m of s.matchAll(PLACEHOLDER)) {
          // materialization replaces whole values only ("${x}"), never inside text
          if (m[0] !== s) problems.push(`${name}: placeholder ${m[0]} is not a whole value`);
          const why = unresolvable(entry.inputs_schema ?? {}, m[1] ?? "");
          if (why !== null) problems.push(`${name}: placeholder ${m[0]}: ${why}`);
        }
      }
    }
    const contract = entry.output_contract;
    if (isObj(contract)) {
      const required = contract.required;
      if (!Array.isArray(required) || required.length === 0) {
        problems.push(`${name}: output_contract has no required fields`);
      } else {
        const props = isObj(contract.properties) ? contract.properties : {};
        for (const r of required) {
          if (typeof r !== "string" || !Object.hasOwn(props, r)) {
            problems.push(`${name}: output_contract requires undeclared "${String(r)}"`);
          }
        }
      }
    } else if (contract !== undefined && typeof contract !== "string") {
      problems.push(`${name}: output_contract is neither a schema nor a label`);
    }
  });
  return problems;
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n/;
const SPEC_KEYS = new Set(["name", "description", "license", "compatibility", "metadata", "allowed-tools"]);

async function frontmatter(skill: string): Promise<Obj> {
  const text = await fs.readFile(path.join(examplesDir, skill, "SKILL.md"), "utf8");
  const m = FRONTMATTER.exec(text);
  if (!m) throw new Error(`${skill}/SKILL.md has no frontmatter`);
  const fm: unknown = parse(m[1] ?? "", { uniqueKeys: true });
  if (!isObj(fm)) throw new Error(`${skill}/SKILL.md frontmatter is not a mapping`);
  return fm;
}

/** `metadata.dcc-mcp.<key>`, nested winning over flat `metadata["dcc-mcp.<key>"]`. */
function dccMeta(fm: Obj, key: string): unknown {
  const meta = isObj(fm.metadata) ? fm.metadata : {};
  const nested = isObj(meta["dcc-mcp"]) ? meta["dcc-mcp"] : {};
  return Object.hasOwn(nested, key) ? nested[key] : meta[`dcc-mcp.${key}`];
}

async function recipeFiles(skill: string, fm: Obj): Promise<string[]> {
  const raw = dccMeta(fm, "recipes");
  const patterns = (Array.isArray(raw) ? raw : [raw]).map(String);
  const files = await fg(patterns, { cwd: path.join(examplesDir, skill), onlyFiles: true });
  return [...new Set(files)].sort();
}

async function allFiles(): Promise<string[]> {
  return (await fg("**/*", { cwd: examplesDir, onlyFiles: true, dot: true })).sort();
}

describe("packProblems (the checker itself)", () => {
  const good = `recipes:
  - name: ok
    inputs_schema:
      $defs: { node: { type: string } }
      type: object
      required: [a, cache]
      properties:
        a: { $ref: "#/$defs/node" }
        b: { type: integer, default: 3 }
        cache:
          type: object
          required: [path]
          properties: { path: { type: string } }
    steps:
      - tool: t
        arguments: { a: "\${a}", b: "\${b}", p: "\${cache.path}" }
    output_contract: { type: object, required: [changed], properties: { changed: { const: true } } }
`;

  it("accepts a sound pack", () => {
    expect(packProblems(good)).toEqual([]);
  });

  it("flags a placeholder that is optional without a default", () => {
    const bad = good.replace("b: { type: integer, default: 3 }", "b: { type: integer }");
    expect(packProblems(bad)).toEqual([`ok: placeholder \${b}: "b" is neither required nor has a default`]);
  });

  it("flags an undeclared placeholder and an unresolvable dotted one", () => {
    const bad = good.replace('p: "${cache.path}"', 'p: "${cache.format}", q: "${nope}"');
    expect(packProblems(bad)).toEqual([
      `ok: placeholder \${cache.format}: "cache.format" is not a declared input`,
      `ok: placeholder \${nope}: "nope" is not a declared input`,
    ]);
  });

  it("flags a placeholder embedded in text", () => {
    const bad = good.replace('b: "${b}"', 'b: "frame_${b}"');
    expect(packProblems(bad)).toEqual([`ok: placeholder \${b} is not a whole value`]);
  });

  it("flags a contract without required fields, or requiring an undeclared one", () => {
    expect(packProblems(good.replace("required: [changed]", "required: []"))).toEqual([
      "ok: output_contract has no required fields",
    ]);
    expect(packProblems(good.replace("required: [changed]", "required: [changed, count]"))).toEqual([
      'ok: output_contract requires undeclared "count"',
    ]);
  });

  it("flags duplicate keys, a missing recipes list, nameless and stepless entries", () => {
    expect(packProblems("recipes: []\nrecipes: []\n")).toEqual(["parse: DUPLICATE_KEY"]);
    expect(packProblems("pack: {name: x}\n")).toEqual(["top level has no recipes: list"]);
    expect(packProblems("recipes:\n  - steps: [{tool: t}]\n  - name: s\n")).toEqual([
      "recipes[0]: no name",
      "s: no steps",
    ]);
  });
});

describe("skills-example", () => {
  it("holds exactly the expected skills", async () => {
    const dirs = (await fs.readdir(examplesDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(dirs).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [skill, expected] of Object.entries(EXPECTED)) {
    describe(skill, () => {
      it("has Agent Skills frontmatter with dcc-mcp metadata", async () => {
        const fm = await frontmatter(skill);
        expect(Object.keys(fm).filter((k) => !SPEC_KEYS.has(k))).toEqual([]);
        expect(fm.name).toBe(skill);
        expect(typeof fm.description).toBe("string");
        expect(fm.license).toBe("MIT");
        expect(dccMeta(fm, "dcc")).toBe(expected.dcc);
        expect(typeof dccMeta(fm, "version")).toBe("string");
        expect(typeof dccMeta(fm, "search-hint")).toBe("string");
        expect(Array.isArray(dccMeta(fm, "tags"))).toBe(true);
      });

      it("has structurally sound recipe files with the expected recipes", async () => {
        const fm = await frontmatter(skill);
        const files = await recipeFiles(skill, fm);
        expect(files.length).toBeGreaterThan(0);
        const names: string[] = [];
        for (const file of files) {
          const text = await fs.readFile(path.join(examplesDir, skill, file), "utf8");
          if (!/\.ya?ml$/.test(file)) {
            // Markdown anchors are checked through the real loader below
            expect(text).toMatch(/^## /m);
            continue;
          }
          expect({ file, problems: packProblems(text) }).toEqual({ file, problems: [] });
          const top = parse(text, { uniqueKeys: true }) as Obj;
          expect(isObj(top.pack) && isObj(top.tool_routing)).toBe(true);
          for (const r of top.recipes as Obj[]) {
            names.push(String(r.name));
            expect(r.dcc).toBe(expected.dcc);
            expect(typeof r.description).toBe("string");
            // a mutating or read-only receipt either way: the contract can fail
            if (isObj(r.output_contract)) {
              const props = r.output_contract.properties as Obj;
              expect(r.output_contract.required).toContain("changed");
              expect(isObj(props.changed) && Object.hasOwn(props.changed, "const")).toBe(true);
            }
          }
        }
        if (names.length > 0) expect(names).toEqual(expected.recipes);
      });
    });
  }

  it("uses the forms the brief asks to exercise", async () => {
    const houdini = await frontmatter("houdini-fx");
    expect(dccMeta(houdini, "recipes")).toBe("recipes/*.y*ml");
    expect(await recipeFiles("houdini-fx", houdini)).toEqual(["recipes/cache.yml", "recipes/fx.yaml"]);

    const blender = await frontmatter("blender-lookdev");
    const meta = blender.metadata as Obj;
    expect(meta["dcc-mcp"]).toBeUndefined();
    expect(meta["dcc-mcp.recipes"]).toBe("lookdev.yaml");

    const qa = parse(await fs.readFile(path.join(examplesDir, "scene-qa/qa.yaml"), "utf8")) as Obj;
    const labels = (qa.recipes as Obj[]).filter((r) => typeof r.output_contract === "string");
    expect(labels.map((r) => r.name)).toEqual(["check_frame_range"]);

    const md = await fs.readFile(path.join(examplesDir, "maya-modeling/RECIPES.md"), "utf8");
    expect(md).toMatch(/^```python\n(?:(?!```)[\s\S])*?^ *## /m); // `## ` comment inside a fence
    expect(md).toMatch(/^## Notes ##$/m);
    expect(md).toMatch(/^## Rig notes for C#$/m);
  });

  it("contains no absolute host paths", async () => {
    const hostPath = /(?:^|[\s"'`(=])(?:\/(?:home|Users|tmp|mnt|opt|srv|root|var|usr|etc|work)\/|[A-Za-z]:[\\/])/m;
    for (const file of await allFiles()) {
      const text = await fs.readFile(path.join(examplesDir, file), "utf8");
      expect({ file, match: hostPath.exec(text)?.[0] ?? null }).toEqual({ file, match: null });
    }
  });
});

/** Realistic inputs an artist's agent would send; each must validate. */
const EXAMPLE_INPUTS: Record<string, unknown> = {
  pyro_explosion: { source_node: "/obj/barrel", look: "smoke_only" },
  rbd_fracture: { object_path: "/obj/wall", material: "glass", pieces: 400 },
  flip_tank: { container_path: "/obj/glass", fill_level: 0.6 },
  write_sim_cache: { sop_path: "/obj/pyro/OUT", cache: { path: "$HIP/cache/pyro", format: "vdb" } },
  verify_sim_cache: { cache_path: "$JOB/cache/pyro/v001", first_frame: 1001, last_frame: 1096 },
  load_sim_cache: { cache_path: "$HIP/cache/flip", parent: "/obj/water" },
  pbr_material_from_textures: { object_name: "crate", texture_dir: "//textures/crate" },
  three_point_light_rig: { target: "helmet" },
  turntable_camera: { target: "sword", frames: 240 },
  check_scene_units: { linear_unit: "m", up_axis: "z" },
  validate_naming_convention: { suffixes: ["GEO", "JNT"] },
  find_missing_textures: {},
  find_duplicate_names: {},
  check_frame_range: { cut_in: 1001, cut_out: 1096 },
  check_unsaved_changes: {},
};

/** Inputs that each break one rule of the recipe's schema. */
const BAD_INPUTS: [recipe: string, inputs: unknown][] = [
  ["pyro_explosion", { source_node: "/obj/barrel", voxel_size: 0 }], // exclusiveMinimum
  ["pyro_explosion", { source_node: "/obj/barrel", look: "lasers" }], // enum
  ["rbd_fracture", { object_path: "/obj/wall", shards: 10 }], // unevaluatedProperties
  ["rbd_fracture", { object_path: "wall" }], // pattern through $ref
  ["rbd_fracture", { object_path: "/obj/wall", collider_path: "ground" }], // second $ref
  ["write_sim_cache", { sop_path: "/obj/pyro/OUT", cache: { path: "cache/pyro", format: "vdb" } }], // nested pattern
  ["write_sim_cache", { sop_path: "/obj/pyro/OUT", cache: { path: "$HIP/c" } }], // nested required
  ["write_sim_cache", { sop_path: "/obj/a", cache: { path: "$HIP/c", format: "abc" }, frame_range: [1, 2, 3] }],
  ["flip_tank", { container_path: "/obj/glass" }], // required
  ["check_frame_range", { cut_in: "1001", cut_out: 1096 }], // type
  ["validate_naming_convention", { suffixes: ["geo"] }], // $defs pattern
  ["check_unsaved_changes", { anything: true }], // additionalProperties
];

/** Receipts a tool could return: the first of each pair passes, the others must fail. */
const RECEIPTS: [recipe: string, ok: unknown, ...bad: unknown[]][] = [
  [
    "pyro_explosion",
    { source_path: "/obj/barrel/pyro_source", solver_path: "/obj/pyro_sim", changed: true, emitter_point_count: 5120 },
    { source_path: "/obj/barrel/pyro_source", solver_path: "/obj/pyro_sim", changed: false, emitter_point_count: 5120 },
    { source_path: "/obj/barrel/pyro_source", solver_path: "/obj/pyro_sim", changed: true, emitter_point_count: 0 },
  ],
  [
    "verify_sim_cache",
    { frames_checked: 96, missing_frames: [], suspicious_frames: [1040], changed: false },
    { frames_checked: 96, missing_frames: [1050], suspicious_frames: [], changed: false },
    { frames_checked: 0, missing_frames: [], suspicious_frames: [], changed: false },
  ],
  [
    "pbr_material_from_textures",
    { material_name: "M_crate", connected_maps: ["base_color", "normal"], changed: true },
    { material_name: "M_crate", connected_maps: [], changed: true },
  ],
  [
    "validate_naming_convention",
    { checked_count: 12, violations: [{ node: "pCube1", rule: "suffix" }], changed: false },
    { checked_count: 12, violations: [], changed: true },
  ],
];

describe("skills-example through the project's loaders", () => {
  let loaded: ReturnType<typeof loadOnce> | undefined;
  // one discovery + load shared by every case below (the catalog is immutable)
  const loadAll = () => (loaded ??= loadOnce());

  async function loadOnce(): Promise<{ recipes: Map<string, readonly Recipe[]>; diagnostics: unknown[] }> {
    const found = await discoverSkills([examplesDir]);
    const diagnostics: unknown[] = [...found.diagnostics];
    const recipes = new Map<string, readonly Recipe[]>();
    for (const skill of found.skills) {
      const r = await loadSkillRecipes(skill);
      diagnostics.push(...r.diagnostics);
      recipes.set(skill.name, r.recipes);
    }
    return { recipes, diagnostics };
  }

  function yamlRecipe(recipes: Map<string, readonly Recipe[]>, name: string): YamlRecipe {
    for (const list of recipes.values()) {
      const r = list.find((x) => x.name === name);
      if (r?.format === "yaml") return r;
    }
    throw new Error(`no YAML recipe ${name}`);
  }

  it("discovers every skill and loads every recipe without a diagnostic", async () => {
    const { recipes, diagnostics } = await loadAll();
    expect(diagnostics).toEqual([]);
    const got = Object.fromEntries([...recipes].map(([k, v]) => [k, v.map((r) => r.name)]));
    expect(got).toEqual(Object.fromEntries(Object.entries(EXPECTED).map(([k, v]) => [k, v.recipes])));
    const total = [...recipes.values()].reduce((n, l) => n + l.length, 0);
    expect(total).toBe(22);
    for (const [skill, list] of recipes) {
      for (const r of list) {
        expect(r.recipeId).toBe(`${skill}/${r.name}`);
        expect(r.dcc).toBe(EXPECTED[skill]?.dcc);
        expect(r.format).toBe(skill === "maya-modeling" ? "markdown" : "yaml");
      }
    }
  });

  it("reads Markdown anchors fence-aware, with closing sequences and a trailing #", async () => {
    const { recipes } = await loadAll();
    const md = new Map((recipes.get("maya-modeling") ?? []).map((r) => [r.name, r]));
    const subdivide = md.get("Subdivide and relax");
    expect(subdivide?.format === "markdown" && subdivide.content).toMatch(
      /^## Subdivide and relax\n[\s\S]*    ## 3\. report the result[\s\S]*### Variations[\s\S]*heavy meshes\.$/,
    );
    const mirror = md.get("Mirror a half model");
    expect(mirror?.format === "markdown" && mirror.content).toContain("## If the seam does not merge\n");
    expect(md.get("Notes")?.format === "markdown" && md.get("Notes")).toMatchObject({ line: expect.any(Number) });
    expect(md.has("Rig notes for C#")).toBe(true);
  });

  it("keeps pack-level keys, extra entry keys and the singular toolset_profile", async () => {
    const { recipes } = await loadAll();
    const write = yamlRecipe(recipes, "write_sim_cache");
    expect(write.toolsetProfiles).toEqual(["houdini-cache"]);
    expect(write.file).toBe("recipes/cache.yml");
    expect(write.entry.undo).toBe("manual");
    expect(Object.keys(write.pack).sort()).toEqual(["pack", "tool_routing"]);
    const rbd = yamlRecipe(recipes, "rbd_fracture");
    expect(rbd.toolsetProfiles).toEqual(["houdini-fx", "houdini-destruction"]);
    expect(rbd.entry.examplePrompts).toHaveLength(3);
    const legacy = yamlRecipe(recipes, "check_frame_range");
    expect(typeof legacy.outputContract).toBe("string");
    expect(legacy.outputValidator).toBeNull();
  });

  it("accepts realistic inputs and materializes every placeholder", async () => {
    const { recipes } = await loadAll();
    const yamlNames = [...recipes.values()].flat().filter((r) => r.format === "yaml").map((r) => r.name);
    expect(Object.keys(EXAMPLE_INPUTS).sort()).toEqual([...yamlNames].sort());
    for (const [name, inputs] of Object.entries(EXAMPLE_INPUTS)) {
      const r = yamlRecipe(recipes, name);
      expect(r.inputValidator.ok).toBe(true);
      if (!r.inputValidator.ok) continue;
      expect({ name, errors: r.inputValidator.validator.validate(inputs).errors }).toEqual({ name, errors: [] });
      const m = materializeSteps(r.steps, inputs, r.inputsSchema);
      expect({ name, m: m.ok }).toEqual({ name, m: true });
      if (m.ok) expect(JSON.stringify(m.steps)).not.toContain("${");
    }
    const cache = materializeSteps(
      yamlRecipe(recipes, "write_sim_cache").steps,
      EXAMPLE_INPUTS.write_sim_cache,
      yamlRecipe(recipes, "write_sim_cache").inputsSchema,
    );
    expect(cache.ok && cache.steps[0]).toMatchObject({
      arguments: { directory: "$HIP/cache/pyro", format: "vdb", frame_range: [1001, 1100] },
    });
  });

  it("rejects inputs that break the schemas", async () => {
    const { recipes } = await loadAll();
    for (const [name, inputs] of BAD_INPUTS) {
      const v = yamlRecipe(recipes, name).inputValidator;
      expect(v.ok && { name, inputs, valid: v.validator.validate(inputs).valid }).toEqual({ name, inputs, valid: false });
    }
  });

  it("has output contracts that can fail", async () => {
    const { recipes } = await loadAll();
    for (const r of [...recipes.values()].flat()) {
      if (r.format !== "yaml" || typeof r.outputContract === "string") continue;
      expect(r.outputValidator?.ok).toBe(true);
      if (r.outputValidator?.ok) expect({ name: r.name, valid: r.outputValidator.validator.validate({}).valid }).toEqual({ name: r.name, valid: false });
    }
    for (const [name, ok, ...bad] of RECEIPTS) {
      const v = yamlRecipe(recipes, name).outputValidator;
      if (!v?.ok) throw new Error(`${name} has no output validator`);
      expect({ name, errors: v.validator.validate(ok).errors }).toEqual({ name, errors: [] });
      for (const b of bad) expect({ name, b, valid: v.validator.validate(b).valid }).toEqual({ name, b, valid: false });
    }
  });
});
