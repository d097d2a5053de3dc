/**
 * The dcc-mcp-core compatible recipes__* tools, end to end: real daemon,
 * real files, the SDK Client over streamable HTTP.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import { call, connect, makeTempDir, skillMd, startServer, writeTree, type RunningServer } from "./harness.js";

const MD = `# Modeling recipes

Intro text that is not an anchor.

## Subdivide and relax

Smooth a low-poly mesh.

\`\`\`python
## not an anchor: inside a fence
cmds.polySmooth(mesh, divisions=2)
\`\`\`

## Notes ##

Closing sequence removed.

## Rig notes for C#

Keeps its hash.
`;

const PACK = `pack:
  name: fx
tool_routing:
  tools:
    make_smoke:
      houdini: houdini_fx__smoke
recipes:
  - name: make_smoke
    dcc: houdini
    description: Build a smoke simulation.
    inputs_schema:
      type: object
      required: [container]
      properties:
        container: { type: string, minLength: 1 }
        voxel_size: { type: number, exclusiveMinimum: 0, default: 0.1 }
        cache: { type: object, properties: { path: { type: string, default: "/tmp/cache" } } }
        pivot: { type: array, items: { type: number } }
      additionalProperties: false
    steps:
      - tool: fx__make_smoke
        arguments:
          container: "\${container}"
          voxel_size: "\${voxel_size}"
          cache_path: "\${cache.path}"
    output_contract:
      type: object
      required: [changed, voxel_count]
      properties:
        changed: { const: true }
        voxel_count: { type: integer, minimum: 1 }
    undo: delete the container
  - name: legacy_label
    description: Old pack with a label contract.
    steps: [{ tool: x__y, arguments: {} }]
    output_contract: "a smoke container"
  - name: needs_missing
    inputs_schema: { type: object, properties: { a: { type: string } } }
    steps: [{ tool: x__y, arguments: { a: "\${a}" } }]
  - name: closed_schema
    inputs_schema: { $id: "https://example.com/x", type: object }
    steps: []
  - name: names_nothing
    inputs_schema: { type: object, properties: { a: { type: string } } }
    steps: [{ tool: x__y, arguments: { b: "\${b}" } }]
`;

let running: RunningServer;
let client: Client;
let skillsRoot: string;

beforeAll(async () => {
  skillsRoot = await makeTempDir();
  await writeTree(skillsRoot, {
    "maya-model/SKILL.md": skillMd("maya-model", "maya", "RECIPES.md"),
    "maya-model/RECIPES.md": MD,
    "fx/SKILL.md": skillMd("fx", "any", "packs/*.yaml"),
    "fx/packs/fx.yaml": PACK,
    "legacy/SKILL.md": "---\nname: legacy\ndcc: maya\ntags: [a]\n---\nbody\n",
    "broken/SKILL.md": skillMd("broken", "maya", "bad.yaml"),
    "broken/bad.yaml": "recipes: [\n  - name: x\n",
    "generic/SKILL.md": "---\nname: generic\ndescription: no host named\nmetadata:\n  dcc-mcp:\n    recipes: G.md\n---\n",
    "generic/G.md": "## Publish the turntable\nGeneric pipeline step.\n",
  });
  running = await startServer({ dccs: ["maya", "houdini"], skillsPaths: [skillsRoot] });
  client = await connect(running.url);
});

afterAll(async () => {
  await client?.close();
  await running?.stop();
  await fs.rm(skillsRoot, { recursive: true, force: true });
});

describe("tools/list", () => {
  it("advertises the five tools with Draft 2020-12 schemas, window fields and annotations", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["recipes__list", "recipes__search", "recipes__get", "recipes__validate", "recipes__apply"]));
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.properties).toHaveProperty("resultStart");
      expect(tool.inputSchema.properties).toHaveProperty("resultEnd");
      expect(tool.annotations).toBeDefined();
    }
    expect(tools.find((t) => t.name === "recipes__get")?.annotations?.readOnlyHint).toBe(true);
  });
});

describe("recipes__list", () => {
  it("lists every skill with counts and diagnostics, without absolute paths", async () => {
    const answer = await call(client, "recipes__list");
    expect(answer.success).toBe(true);
    const skills = answer.context.skills as Array<{ name: string; recipe_count: number }>;
    expect(skills.map((s) => s.name).sort()).toEqual(["broken", "fx", "generic", "maya-model"]);
    expect(skills.find((s) => s.name === "maya-model")?.recipe_count).toBe(3);
    const codes = (answer.context.diagnostics as Array<{ code: string }>).map((d) => d.code);
    expect(codes).toContain("non_spec_top_level_keys");
    expect(codes).toContain("yaml_parse_error");
    expect(JSON.stringify(answer.raw)).not.toContain(skillsRoot);
    expect(JSON.stringify(answer.raw)).not.toContain(running.tmp);
    expect(typeof answer.revision).toBe("number");
  });

  it("lists one skill's anchors, recipes and skill-relative paths", async () => {
    const md = await call(client, "recipes__list", { skill: "maya-model" });
    expect(md.context.anchors).toEqual(["Subdivide and relax", "Notes", "Rig notes for C#"]);
    expect(md.context.paths).toEqual(["RECIPES.md"]);
    const fx = await call(client, "recipes__list", { skill: "fx" });
    expect(fx.context.recipes.map((r: { name: string }) => r.name)).toEqual(["make_smoke", "legacy_label", "needs_missing", "closed_schema", "names_nothing"]);
    expect(fx.context.paths).toEqual(["packs/fx.yaml"]);
  });

  it("answers not_found with close names for an unknown skill", async () => {
    const answer = await call(client, "recipes__list", { skill: "maya-modle" });
    expect(answer).toMatchObject({ success: false, error: "not_found", isError: true });
    expect(answer.context.suggestions).toContain("maya-model");
  });
});

describe("recipes__get", () => {
  it("returns a Markdown anchor's content, fence-aware", async () => {
    const answer = await call(client, "recipes__get", { skill: "maya-model", anchor: "Subdivide and relax" });
    expect(answer.success).toBe(true);
    expect(answer.context.content).toContain("## not an anchor: inside a fence");
    expect(answer.context.content.startsWith("## Subdivide and relax")).toBe(true);
    expect(answer.context.content.endsWith("```")).toBe(true);
  });

  it("returns a YAML recipe with extra keys and pack-level tool_routing", async () => {
    const answer = await call(client, "recipes__get", { skill: "fx", anchor: "make_smoke" });
    expect(answer.context.recipe.undo).toBe("delete the container");
    expect(answer.context.pack.tool_routing.tools.make_smoke.houdini).toBe("houdini_fx__smoke");
    expect(answer.context.content).toContain("name: make_smoke");
  });

  it("suggests close anchors when one is missing", async () => {
    const answer = await call(client, "recipes__get", { skill: "maya-model", anchor: "Subdivide and relx" });
    expect(answer.error).toBe("not_found");
    expect(answer.context.suggestions).toEqual(["Subdivide and relax"]);
  });
});

describe("recipes__search", () => {
  it("ranks by query and reports the mode", async () => {
    const answer = await call(client, "recipes__search", { query: "smoke simulation" });
    expect(answer.context.mode).toBe("lexical");
    expect(answer.context.recipes[0]).toMatchObject({ recipeId: "fx/make_smoke", skill: "fx", format: "yaml" });
  });

  it("filters by dcc (any matches) and skill, and honours limit", async () => {
    const maya = await call(client, "recipes__search", { query: "notes", dcc: "maya" });
    expect(maya.context.recipes.every((r: { dcc: string }) => r.dcc === "maya" || r.dcc === "any")).toBe(true);
    const houdini = await call(client, "recipes__search", { query: "smoke", dcc: "houdini" });
    expect(houdini.context.recipes.map((r: { recipeId: string }) => r.recipeId)).toContain("fx/make_smoke");
    // A skill naming no host (dcc python) is served to every DCC, and the dcc filter keeps it.
    const generic = await call(client, "recipes__search", { query: "turntable", dcc: "maya" });
    expect(generic.context.recipes.map((r: { recipeId: string }) => r.recipeId)).toContain("generic/Publish the turntable");
    const limited = await call(client, "recipes__search", { skill: "fx", limit: 2 });
    expect(limited.context.recipes).toHaveLength(2);
  });

  it("rejects a limit out of range as invalid_input naming the field", async () => {
    const answer = await call(client, "recipes__search", { query: "x", limit: 51 });
    expect(answer).toMatchObject({ success: false, error: "invalid_input" });
    expect(answer.message).toContain("limit");
    // regression: answers the handler never saw still carry the catalog revision
    expect(typeof answer.revision).toBe("number");
  });

  it("survives hostile queries", async () => {
    for (const query of ["((((", "\\", "🙂".repeat(500), "a".repeat(2000), "*?[]", "__proto__"]) {
      const answer = await call(client, "recipes__search", { query });
      expect(answer.success).toBe(true);
    }
  });
});

describe("recipes__validate", () => {
  it("reports valid inputs and path-oriented errors without echoing values", async () => {
    const good = await call(client, "recipes__validate", { skill: "fx", recipe: "make_smoke", inputs: { container: "pyro" } });
    expect(good.context).toMatchObject({ valid: true, errors: [] });
    const bad = await call(client, "recipes__validate", {
      skill: "fx",
      recipe: "make_smoke",
      inputs: { voxel_size: "SECRET-VALUE", pivot: [1, "SECRET2"] },
    });
    expect(bad.success).toBe(true);
    expect(bad.context.valid).toBe(false);
    expect(bad.context.errors.join("\n")).toContain("container");
    expect(bad.context.errors.some((e: string) => e.startsWith("$.pivot[1]"))).toBe(true);
    expect(JSON.stringify(bad.raw)).not.toContain("SECRET");
  });

  it("checks an observed output against the output_contract", async () => {
    const pass = await call(client, "recipes__validate", {
      skill: "fx",
      recipe: "make_smoke",
      inputs: { container: "c" },
      output: { changed: true, voxel_count: 10 },
    });
    expect(pass.context.output_valid).toBe(true);
    const failed = await call(client, "recipes__validate", {
      skill: "fx",
      recipe: "make_smoke",
      inputs: { container: "c" },
      output: { changed: false, voxel_count: 0 },
    });
    expect(failed.context.output_valid).toBe(false);
    expect(failed.context.output_errors.length).toBeGreaterThanOrEqual(2);
    const missing = await call(client, "recipes__validate", { skill: "fx", recipe: "make_smoke", inputs: { container: "c" }, output: {} });
    // regression: contract failures speak of output fields, not inputs
    expect(missing.context.output_errors).toContain("Missing required output field: changed");
    const label = await call(client, "recipes__validate", { skill: "fx", recipe: "legacy_label", inputs: {}, output: {} });
    expect(label.context.output_valid).toBeNull();
  });

  it("answers invalid_input for a Markdown recipe and for a schema that fails closed", async () => {
    const md = await call(client, "recipes__validate", { skill: "maya-model", recipe: "Notes", inputs: {} });
    expect(md).toMatchObject({ success: false, error: "invalid_input" });
    expect(md.message).toContain("requires a structured YAML recipe");
    const closed = await call(client, "recipes__validate", { skill: "fx", recipe: "closed_schema", inputs: {} });
    expect(closed).toMatchObject({ success: false, error: "invalid_input" });
    expect(closed.context.errors).toEqual(["$: Recipe input schema is invalid"]);
  });
});

describe("recipes__apply", () => {
  it("returns steps verbatim, output contract and provenance", async () => {
    const answer = await call(client, "recipes__apply", { skill: "fx", recipe: "make_smoke", inputs: { container: "pyro" }, target: "shot010" });
    expect(answer.success).toBe(true);
    expect(answer.context.steps[0].arguments.container).toBe("${container}");
    expect(answer.context.target).toBe("shot010");
    expect(answer.context.output_contract.required).toEqual(["changed", "voxel_count"]);
    expect(answer.context.provenance).toMatchObject({ recipeId: "fx/make_smoke", file: "packs/fx.yaml" });
    expect(answer.context.materialized_steps).toBeUndefined();
  });

  it("materializes placeholders from inputs, defaults and dotted paths", async () => {
    const answer = await call(client, "recipes__apply", {
      skill: "fx",
      recipe: "make_smoke",
      inputs: { container: "pyro", cache: { path: "/cache/a" } },
      materialize: true,
    });
    expect(answer.context.materialized_steps[0].arguments).toEqual({ container: "pyro", voxel_size: 0.1, cache_path: "/cache/a" });
    expect(answer.context.steps[0].arguments.container).toBe("${container}");
  });

  it("keeps an optional input's placeholder verbatim and lists it with its step and field", async () => {
    const answer = await call(client, "recipes__apply", { skill: "fx", recipe: "needs_missing", inputs: {}, materialize: true });
    expect(answer.success).toBe(true);
    expect(answer.context.materialized_steps[0].arguments).toEqual({ a: "${a}" });
    expect(answer.context.unresolved_placeholders).toEqual([
      { step: 0, field: "arguments.a", placeholder: "${a}", reason: "input_absent", optional_step: false },
    ]);
    expect(answer.context.skippable_steps).toEqual([]);
  });

  it("names a placeholder no input could fill as invalid_input", async () => {
    const answer = await call(client, "recipes__apply", { skill: "fx", recipe: "names_nothing", inputs: {}, materialize: true });
    expect(answer).toMatchObject({ success: false, error: "invalid_input" });
    expect(answer.message).toContain("${b}");
    expect(answer.context.unresolved[0]).toMatchObject({ field: "arguments.b", reason: "undeclared" });
  });

  it("refuses invalid inputs with context.errors and Markdown recipes", async () => {
    const bad = await call(client, "recipes__apply", { skill: "fx", recipe: "make_smoke", inputs: { extra: 1 } });
    expect(bad).toMatchObject({ success: false, error: "invalid_input" });
    expect(bad.context.errors.length).toBeGreaterThan(0);
    const md = await call(client, "recipes__apply", { skill: "maya-model", recipe: "Notes", inputs: {} });
    expect(md.message).toContain("requires a structured YAML recipe");
  });
});

describe("result windows", () => {
  it("pages a large result into windows that concatenate to the full text", async () => {
    const full = await client.callTool({ name: "recipes__list", arguments: { resultEnd: 8000 } });
    const whole = (full.content as Array<{ text: string }>)[0]!.text;
    let text = "";
    let start: number | null = 0;
    let pages = 0;
    while (start !== null) {
      const result = await client.callTool({ name: "recipes__list", arguments: { resultStart: start, resultEnd: start + 100 } });
      const content = result.content as Array<{ text: string }>;
      text += content[0]!.text;
      const page = JSON.parse(content[1]!.text) as { nextResultStart: number | null; totalChars: number };
      expect(page.totalChars).toBe(whole.length);
      expect(result.structuredContent).toBeUndefined();
      start = page.nextResultStart;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    expect(text).toBe(whole);
  });

  it("puts the whole object in structuredContent when it fits", async () => {
    const result = await client.callTool({ name: "recipes__get", arguments: { skill: "fx", anchor: "make_smoke" } });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(result.structuredContent).toEqual(JSON.parse(text));
    expect(result.content).toHaveLength(1);
  });

  it("refuses windows over 8000 characters or inverted", async () => {
    const wide = await call(client, "recipes__list", { resultStart: 0, resultEnd: 8001 });
    expect(wide).toMatchObject({ success: false, error: "invalid_input" });
    const shifted = await client.callTool({ name: "recipes__list", arguments: { resultStart: 10, resultEnd: 8010 } });
    expect(shifted.isError).toBe(false);
    const inverted = await client.callTool({ name: "recipes__list", arguments: { resultStart: 5, resultEnd: 5 } });
    expect(inverted.isError).toBe(true);
  });
});

describe("protocol errors", () => {
  it("answers an unknown tool with a JSON-RPC error, not a result", async () => {
    await expect(client.callTool({ name: "nope__nothing", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("rejects unknown arguments as invalid_input", async () => {
    const answer = await call(client, "recipes__list", { skil: "fx" });
    expect(answer).toMatchObject({ success: false, error: "invalid_input" });
    expect(answer.message).toContain("skil");
  });
});

describe("several DCCs on one daemon", () => {
  it("serves /mcp/<dcc> for each DCC with its own catalog", async () => {
    const houdini = await connect(running.url, "/mcp/houdini");
    try {
      const answer = await call(houdini, "recipes__list");
      const names = (answer.context.skills as Array<{ name: string }>).map((s) => s.name);
      expect(names).toContain("fx");
      expect(names).not.toContain("maya-model");
      expect(answer.context.dcc).toBe("houdini");
    } finally {
      await houdini.close();
    }
  });
});
