/**
 * Recipes as prompts over a real library (real files, real loader): listing,
 * paging, names, argument validation and the messages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPromptsProvider, promptIndex, type Prompt } from "../../../../src/server/protocol/prompts/provider.js";
import { INTERNAL_ERROR, INVALID_PARAMS } from "../../../../src/server/protocol/outcome.js";
import { libraryFixture, skillMd, type LibraryFixture } from "../surfaces/library-fixture.js";

const PACK = `pack: modeling-pack
tool_routing:
  mesh__bevel: maya_mesh__bevel
recipes:
  - name: bevel_edges
    description: Bevel the hard edges of a mesh.
    inputs_schema:
      type: object
      required: [mesh, segments]
      properties:
        mesh: {type: string, description: The mesh to bevel, minLength: 1}
        segments: {type: integer, minimum: 1, maximum: 12, description: Bevel segments}
        chamfer: {type: boolean}
        secret: {type: string, pattern: "^[a-z]+$"}
      additionalProperties: false
    steps:
      - tool: mesh__bevel
        arguments: {mesh: "\${mesh}", segments: "\${segments}"}
    output_contract:
      type: object
      required: [changed]
  - name: no_inputs
    steps: [{tool: maya_run}]
    output_contract: a label only
  - name: bad schema
    inputs_schema: {type: object, properties: {x: {$ref: "http://example.com/remote"}}}
    steps: []
`;

const HUGE_PROPERTIES = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: "integer", description: "d".repeat(i < 3 ? 5000 : 20) }]));
const HUGE_PACK = JSON.stringify({ recipes: [{ name: "huge", inputs_schema: { type: "object", properties: HUGE_PROPERTIES }, steps: [] }] });

const ANCHORS = "# R\n\n## Bind skin\n\nBind it.\n\n## a/b ?#% ``` fence\n\nOdd heading.\n";

let fx: LibraryFixture;

beforeAll(async () => {
  fx = await libraryFixture({
    "modeling/SKILL.md": skillMd("modeling", ["pack.yaml", "R.md"]),
    "modeling/pack.yaml": PACK,
    "modeling/R.md": ANCHORS,
    "big/SKILL.md": skillMd("big", "huge.yaml"),
    "big/huge.yaml": HUGE_PACK,
    "many/SKILL.md": skillMd("many", "many.md"),
    "many/many.md": Array.from({ length: 250 }, (_, i) => `## Step ${String(i).padStart(3, "0")}\n\nDo ${i}.\n`).join("\n"),
  });
});
afterAll(async () => fx.close());

function provider(options: { pageSize?: number; pageBytes?: number } = {}) {
  return createPromptsProvider({ source: fx.library, ...options });
}

function listAll(p: ReturnType<typeof provider>): Prompt[] {
  const seen: Prompt[] = [];
  let cursor: string | undefined;
  do {
    const page = p.list(cursor === undefined ? {} : { cursor });
    if (!page.ok) throw new Error(page.error.message);
    seen.push(...page.result.prompts);
    cursor = page.result.nextCursor;
  } while (cursor !== undefined);
  return seen;
}

function get(p: ReturnType<typeof provider>, name: string, args?: Record<string, string>) {
  return p.get(args === undefined ? { name } : { name, arguments: args });
}

describe("prompts/list", () => {
  it("lists every public recipe once, sorted, across pages", () => {
    const all = listAll(provider({ pageSize: 7 }));
    expect(all).toHaveLength(3 + 2 + 1 + 250);
    expect(all.map((p) => p.title)).toContain("modeling: bad schema");
    const names = all.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    expect(names).toContain("modeling.bevel_edges");
    expect(names).toContain("many.Step-000.".concat(names.find((n) => n.startsWith("many.Step-000."))!.split(".")[2]!));
  });

  it("gives YAML arguments from inputs_schema, required first, descriptions kept", () => {
    const bevel = listAll(provider()).find((p) => p.name === "modeling.bevel_edges")!;
    expect(bevel).toMatchObject({ title: "modeling: bevel_edges", description: "Bevel the hard edges of a mesh." });
    expect(bevel.arguments).toEqual([
      { name: "mesh", description: "The mesh to bevel", required: true },
      { name: "segments", description: "Bevel segments", required: true },
      { name: "chamfer" },
      { name: "secret" },
    ]);
    expect(listAll(provider()).find((p) => p.name === "modeling.no_inputs")!.arguments).toBeUndefined();
  });

  it("keeps a huge schema's listing bounded (100 arguments, 1000-character descriptions)", () => {
    const huge = listAll(provider()).find((p) => p.name === "big.huge")!;
    expect(huge.arguments).toHaveLength(100);
    expect(huge.arguments![0]!.description!.length).toBe(1000);
  });

  it("ends a page at its byte budget but always returns at least one prompt", () => {
    const p = provider({ pageBytes: 10 });
    const first = p.list({});
    expect(first.ok && first.result.prompts.length).toBe(1);
    expect(listAll(p)).toHaveLength(256);
  });

  it("answers an invalid cursor with -32602", () => {
    for (const cursor of ["not base64!", "eA", Buffer.from("resource:x").toString("base64url"), 12]) {
      const page = provider().list({ cursor });
      expect(page.ok).toBe(false);
      if (!page.ok) expect(page.error.code).toBe(INVALID_PARAMS);
    }
  });

  it("keeps a cursor meaningful across a reload (it names the last prompt, not a position)", async () => {
    const p = provider({ pageSize: 3 });
    const first = p.list({});
    if (!first.ok) throw new Error("list failed");
    await fx.reload();
    const second = p.list({ cursor: first.result.nextCursor });
    if (!second.ok) throw new Error("list failed");
    expect(second.result.prompts[0]!.name > first.result.prompts[2]!.name).toBe(true);
  });

  it("is empty before the catalog loads; get says it is loading", () => {
    const p = createPromptsProvider({ source: { current: () => null } });
    expect(p.list({})).toEqual({ ok: true, result: { prompts: [] } });
    const answer = p.get({ name: "modeling.bevel_edges" });
    expect(!answer.ok && answer.error.code).toBe(INTERNAL_ERROR);
  });
});

describe("prompts/get", () => {
  it("tells the agent which recipe to apply, with which inputs, the steps and the contract", () => {
    const answer = get(provider(), "modeling.bevel_edges", { mesh: "pCube1", segments: "3", chamfer: "true" });
    if (!answer.ok) throw new Error(answer.error.message);
    expect(answer.result.description).toBe("Bevel the hard edges of a mesh.");
    const text = answer.result.messages[0]!.content.text;
    expect(answer.result.messages[0]!.role).toBe("user");
    expect(text).toContain('Apply the recipe "modeling/bevel_edges" with the recipes__apply tool');
    expect(text).toContain(JSON.stringify({ skill: "modeling", recipe: "bevel_edges", inputs: { mesh: "pCube1", segments: 3, chamfer: true } }, null, 2));
    expect(text).toContain('"tool": "mesh__bevel"');
    expect(text).toContain("${mesh}");
    expect(text).toContain("Output contract: check the observed result against this JSON Schema");
    expect(text).toContain('"maya_mesh__bevel"');
  });

  it("says when the contract is a label or absent", () => {
    const answer = get(provider(), "modeling.no_inputs");
    expect(answer.ok && answer.result.messages[0]!.content.text).toContain("Output contract (a label, not a schema): a label only");
  });

  it("refuses a missing required argument with -32602 naming it", () => {
    const answer = get(provider(), "modeling.bevel_edges", { mesh: "pCube1" });
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.error.code).toBe(INVALID_PARAMS);
    expect(answer.error.message).toContain("Missing required argument: segments");
    expect(answer.error.data).toMatchObject({ fields: ["segments"] });
  });

  it("refuses invalid values naming the field, never echoing the value", () => {
    const hostile = "DROP-TABLE-<script>";
    const cases: Array<Record<string, string>> = [
      { mesh: "m", segments: hostile },
      { mesh: "m", segments: "40" },
      { mesh: "m", segments: "2", secret: hostile },
    ];
    for (const args of cases) {
      const answer = get(provider(), "modeling.bevel_edges", args);
      expect(answer.ok).toBe(false);
      if (answer.ok) continue;
      expect(answer.error.code).toBe(INVALID_PARAMS);
      expect(JSON.stringify(answer.error)).not.toContain("DROP-TABLE");
      expect((answer.error.data as { fields: string[] }).fields.length).toBeGreaterThan(0);
    }
    // An unknown argument is named (it is the field), bounded.
    const unknown = get(provider(), "modeling.bevel_edges", { mesh: "m", segments: "2", ["k".repeat(5000)]: "DROP-TABLE" });
    expect(!unknown.ok && JSON.stringify(unknown.error)).not.toContain("DROP-TABLE");
    expect(!unknown.ok && JSON.stringify(unknown.error).length).toBeLessThan(2000);
    const typed = get(provider(), "modeling.bevel_edges", { mesh: "m", segments: "many" });
    expect(!typed.ok && typed.error.message).toContain("$.segments");
  });

  it("refuses malformed params and oversized arguments", () => {
    const p = createPromptsProvider({ source: fx.library, maxArgumentBytes: 100 });
    for (const params of [undefined, null, "x", { name: 3 }, { name: "modeling.bevel_edges", arguments: [] }, { name: "modeling.bevel_edges", arguments: { mesh: 3 } }]) {
      const answer = p.get(params);
      expect(!answer.ok && answer.error.code).toBe(INVALID_PARAMS);
    }
    const big = p.get({ name: "modeling.bevel_edges", arguments: { mesh: "m".repeat(200), segments: "1" } });
    expect(!big.ok && big.error.message).toBe("Prompt arguments exceed 100 bytes");
  });

  it("answers an unknown prompt with -32602 and a bounded name", () => {
    const answer = get(provider(), "x".repeat(10_000));
    expect(!answer.ok && answer.error.code).toBe(INVALID_PARAMS);
    expect(!answer.ok && answer.error.message.length).toBeLessThan(300);
  });

  it("answers a recipe whose schema fails closed with -32603 and tells the observer", () => {
    const seen: string[] = [];
    const p = createPromptsProvider({ source: fx.library, onInvalidSchema: (id) => seen.push(id) });
    const name = listAll(p).find((x) => x.title === "modeling: bad schema")!.name;
    const answer = p.get({ name, arguments: { x: "1" } });
    expect(!answer.ok && answer.error.code).toBe(INTERNAL_ERROR);
    expect(seen).toEqual(["modeling/bad schema"]);
  });

  it("returns a Markdown recipe's content as its prompt, whatever its heading holds", () => {
    const p = provider();
    const odd = listAll(p).find((x) => x.title === "modeling: a/b ?#% ``` fence")!;
    expect(odd.name).toMatch(/^modeling\.a-b-fence\.[0-9a-f]{10}$/);
    const answer = p.get({ name: odd.name });
    expect(answer.ok && answer.result.messages).toEqual([{ role: "user", content: { type: "text", text: "## a/b ?#% ``` fence\n\nOdd heading." } }]);
  });

  it("validates against a huge schema", () => {
    const answer = get(provider(), "big.huge", { p1999: "5", p0: "x" });
    expect(!answer.ok && answer.error.message).toContain("$.p0");
  });
});

describe("prompt index collisions", () => {
  // A 40-bit hash collision cannot be produced on purpose: a naming that collides on purpose stands in.
  const colliding = { short: () => "same", full: (skill: string, recipe: string) => `${skill}.${recipe}.full` };
  const recipe = (skill: string, name: string) => ({ recipeId: `${skill}/${name}`, skill, name, visibility: "public", format: "markdown" }) as never;

  it("gives the recipe id that sorts later the full name, whatever the catalog order", () => {
    for (const order of [["a", "b"], ["b", "a"]]) {
      const index = promptIndex({ recipes: new Map(order.map((n) => [`s/${n}`, recipe("s", n)])) }, colliding);
      expect([...index.entries()].map(([name, r]) => `${name}=${(r as { name: string }).name}`).sort()).toEqual(["s.b.full=b", "same=a"]);
    }
  });

  it("leaves out a recipe whose full name collides too, and never a private one", () => {
    const always = { short: () => "same", full: () => "also-same" };
    const recipes = new Map([
      ["s/a", recipe("s", "a")],
      ["s/b", recipe("s", "b")],
      ["s/c", recipe("s", "c")],
      ["private/p", { ...(recipe("private", "p") as object), visibility: "private", format: "private" } as never],
    ]);
    expect([...promptIndex({ recipes }, always).keys()].sort()).toEqual(["also-same", "same"]);
  });
});
