/**
 * The grouped `recipe` tool end to end: a real daemon, the SDK Client over
 * streamable HTTP, every action and every constraint boundary of seed 000.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, makeTempDir, skillMd, startServer, writeTree, type RunningServer } from "./harness.js";

let running: RunningServer;
let client: Client;
let skillsRoot: string;

const MD = "# Modeling\n\n## Bevel edges\n\nSelect hard edges and run polyBevel3.\n\n## Freeze transforms\n\nFreeze and delete history.\n";
const PACK = `pack: modeling-pack
recipes:
  - name: build_pbr_material
    description: Build a PBR material network.
    inputs_schema: {type: object, required: [material_name], properties: {material_name: {type: string}}}
    steps:
      - tool: maya_materials__create
        arguments: {name: "\${material_name}"}
    output_contract: {type: object, required: [changed], properties: {changed: {const: true}}}
`;

beforeAll(async () => {
  skillsRoot = await makeTempDir("recipe-e2e-skills-");
  await writeTree(skillsRoot, {
    "modeling/SKILL.md": skillMd("modeling", "maya", ["RECIPES.md", "pack.yaml"]),
    "modeling/RECIPES.md": MD,
    "modeling/pack.yaml": PACK,
  });
  running = await startServer({ skillsPaths: [skillsRoot] });
  client = await connect(running.url);
});

afterAll(async () => {
  await client?.close();
  await running?.stop();
  await fs.rm(skillsRoot, { recursive: true, force: true });
});

let serial = 0;
function playbook(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  serial += 1;
  const base: Record<string, unknown> = {
    action: "create",
    title: `Playbook ${serial}`,
    summary: "Clean a scanned mesh before rigging.",
    whenToUse: "When scan data must deform.",
    steps: [{ title: "Decimate", detail: "Reduce to 200k triangles." }],
    acceptanceCriteria: ["All faces are quads"],
    tags: ["scan"],
    document: `# Playbook ${serial}\n`,
  };
  return { ...base, ...overrides };
}

/** Calls a tool and pages through every window; returns the parsed envelope and the window count. */
// `any`: the envelope is read deep and loosely, as a client would.
async function callWhole(c: Client, args: Record<string, unknown>): Promise<{ envelope: any; windows: number; totalChars: number }> {
  let text = "";
  let start = 0;
  let windows = 0;
  for (;;) {
    const result = (await c.callTool({ name: "recipe", arguments: { ...args, resultStart: start, resultEnd: start + 8000 } })) as {
      content: Array<{ text: string }>;
    };
    windows += 1;
    text += result.content[0]!.text;
    if (result.content.length < 2) break;
    const page = JSON.parse(result.content[1]!.text) as { nextResultStart: number | null; totalChars: number };
    if (page.nextResultStart === null) break;
    start = page.nextResultStart;
  }
  return { envelope: JSON.parse(text), windows, totalChars: text.length };
}

const repeat = (n: number, s = "x") => s.repeat(n);
const list = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

describe("recipe tool over MCP: listing", () => {
  it("tools/list advertises a passthrough schema with only action and the window", async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "recipe");
    expect(tool).toBeDefined();
    const schema = tool!.inputSchema as Record<string, any>;
    expect(Object.keys(schema.properties).sort()).toEqual(["action", "resultEnd", "resultStart"]);
    expect(schema.properties.action.enum).toEqual(["search", "get", "create", "update", "history", "restore", "delete"]);
    expect(schema.required).toEqual(["action"]);
    expect(schema.additionalProperties).toBe(true);
    expect(tool!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(tool!.description).toContain("AI Search is warming up; continue without recipes");
  });
});

describe("recipe tool over MCP: constraint boundaries", () => {
  const createCases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
    ["title 200 vs 201", { title: repeat(200, "t") }, { title: repeat(201, "t") }, "$.title"],
    ["summary 2000 vs 2001", { summary: repeat(2000) }, { summary: repeat(2001) }, "$.summary"],
    ["whenToUse 8000 vs 8001", { whenToUse: repeat(8000) }, { whenToUse: repeat(8001) }, "$.whenToUse"],
    ["steps 80 vs 81", { steps: list(80, (i) => ({ title: `s${i}`, detail: "d" })) }, { steps: list(81, (i) => ({ title: `s${i}`, detail: "d" })) }, "$.steps"],
    ["steps 1 vs 0", { steps: [{ title: "s", detail: "d" }] }, { steps: [] }, "$.steps"],
    ["step title 200 vs 201", { steps: [{ title: repeat(200), detail: "d" }] }, { steps: [{ title: repeat(201), detail: "d" }] }, "$.steps[0].title"],
    ["step detail 8000 vs 8001", { steps: [{ title: "s", detail: repeat(8000) }] }, { steps: [{ title: "s", detail: repeat(8001) }] }, "$.steps[0].detail"],
    ["acceptanceCriteria 1 vs 0", { acceptanceCriteria: ["ok"] }, { acceptanceCriteria: [] }, "$.acceptanceCriteria"],
    ["acceptanceCriteria 80 vs 81", { acceptanceCriteria: list(80, (i) => `c${i}`) }, { acceptanceCriteria: list(81, (i) => `c${i}`) }, "$.acceptanceCriteria"],
    ["tags 40 vs 41", { tags: list(40, (i) => `t${i}`) }, { tags: list(41, (i) => `t${i}`) }, "$.tags"],
    ["document 80000 vs 80001", { document: repeat(80_000, "d") }, { document: repeat(80_001, "d") }, "$.document"],
    ["document 1 vs 0", { document: "d" }, { document: "" }, "$.document"],
  ];
  for (const [name, good, bad, where] of createCases) {
    it(`create ${name}`, async () => {
      const accepted = await call(client, "recipe", playbook(good));
      expect(accepted.success, accepted.message).toBe(true);
      const field = Object.keys(good)[0]!;
      // The accepted value comes back whole.
      const got = await callWhole(client, { action: "get", recipeId: accepted.context.recipeId });
      expect(got.envelope.context[field]).toEqual(good[field]);
      const refused = await call(client, "recipe", playbook(bad));
      expect(refused.isError).toBe(true);
      expect(refused.error).toBe("invalid_input");
      expect(refused.context.errors).toHaveLength(1);
      expect(refused.context.errors[0].startsWith(`${where}:`)).toBe(true);
      expect(refused.message).toContain(where);
      // And the same rule on update.
      const update = await call(client, "recipe", { action: "update", recipeId: accepted.context.recipeId, ...bad });
      expect(update.error).toBe("invalid_input");
      expect(update.context.errors[0].startsWith(`${where}:`)).toBe(true);
    });
  }

  it("tags default to [] and are optional", async () => {
    const args = playbook();
    delete args.tags;
    const created = await call(client, "recipe", args);
    expect(created.success).toBe(true);
    expect((await call(client, "recipe", { action: "get", recipeId: created.context.recipeId })).context.tags).toEqual([]);
  });

  it("search limit 20 vs 21 and 1 vs 0; query 1 vs 0 characters", async () => {
    expect((await call(client, "recipe", { action: "search", query: "playbook", limit: 20 })).success).toBe(true);
    expect((await call(client, "recipe", { action: "search", query: "playbook", limit: 1 })).context.recipes).toHaveLength(1);
    const over = await call(client, "recipe", { action: "search", query: "playbook", limit: 21 });
    expect(over.error).toBe("invalid_input");
    expect(over.context.errors[0]).toMatch(/^\$\.limit:/);
    expect((await call(client, "recipe", { action: "search", query: "playbook", limit: 0 })).error).toBe("invalid_input");
    expect((await call(client, "recipe", { action: "search", query: "q" })).success).toBe(true);
    expect((await call(client, "recipe", { action: "search", query: "" })).context.errors[0]).toMatch(/^\$\.query:/);
  });

  it("resultEnd - resultStart 8000 vs 8001, and resultEnd <= resultStart", async () => {
    const narrow = (await client.callTool({ name: "recipe", arguments: { action: "search", query: "q", resultStart: 100, resultEnd: 8100 } })) as {
      isError?: boolean;
    };
    expect(narrow.isError).toBeFalsy();
    const wide = await call(client, "recipe", { action: "search", query: "q", resultStart: 100, resultEnd: 8101 });
    expect(wide.error).toBe("invalid_input");
    expect(wide.message).toContain("8000");
    expect((await call(client, "recipe", { action: "search", query: "q", resultStart: 5, resultEnd: 5 })).error).toBe("invalid_input");
    expect((await call(client, "recipe", { action: "search", query: "q", resultStart: -1 })).error).toBe("invalid_input");
  });

  it("visibility outside the enum, unknown fields and misplaced fields are invalid_input naming the field", async () => {
    const vis = await call(client, "recipe", { action: "get", recipeId: "modeling/Bevel edges", visibility: "secret" });
    expect(vis.context.errors[0]).toMatch(/^\$\.visibility:/);
    const stray = await call(client, "recipe", { action: "search", query: "q", colour: "red" });
    expect(stray.context.errors).toEqual(["$.colour: is not a field of any recipe action"]);
    const misplaced = await call(client, "recipe", playbook({ recipeId: "private/x" }));
    expect(misplaced.context.errors[0]).toContain('not a field of action "create"');
    expect((await call(client, "recipe", { action: "remove", recipeId: "private/x" })).error).toBe("invalid_input");
  });

  it("messages name the rule, never the value", async () => {
    const secret = "SECRET-TOKEN-abcdef";
    const refused = await call(client, "recipe", playbook({ title: secret.repeat(20), summary: 42 }));
    expect(refused.error).toBe("invalid_input");
    expect(JSON.stringify(refused.raw)).not.toContain(secret);
  });
});

describe("recipe tool over MCP: the actions together", () => {
  it("create → search finds it → update → get shows the patch, across sessions", async () => {
    const other = await connect(running.url);
    try {
      const created = await call(client, "recipe", {
        action: "create",
        title: "Unwrap UVs for a hero prop",
        summary: "Seams, unfold and layout for a hero prop with texel density checks.",
        whenToUse: "Hero props that get 4K textures.",
        steps: [{ title: "Seams", detail: "Cut along hard edges." }, { title: "Layout", detail: "Pack at 10.24 px/cm." }],
        acceptanceCriteria: ["No overlapping UVs", "uv_count >= 1"],
        tags: ["uv", "hero"],
        document: "# Hero UVs\n\nLong notes.\n",
      });
      expect(created.success).toBe(true);
      const recipeId = created.context.recipeId as string;
      expect(recipeId).toBe("private/unwrap-uvs-for-a-hero-prop");
      expect(created.context.revision).toBe(1);
      expect(Array.isArray(created.context.similar)).toBe(true);
      expect(typeof created.revision).toBe("number");

      // Another session sees it on its very next search.
      const found = await call(other, "recipe", { action: "search", query: "hero prop uv unwrap" });
      expect(found.context.recipes[0]).toMatchObject({ recipeId, title: "Unwrap UVs for a hero prop", visibility: "private", tags: ["uv", "hero"] });
      expect(found.context.mode).toBe("lexical");
      expect(found.revision).toBeGreaterThanOrEqual(created.revision!);

      const updated = await call(other, "recipe", { action: "update", recipeId, summary: "Seams, unfold, layout; checked texel density.", expectedRevision: 1 });
      expect(updated.success).toBe(true);
      expect(updated.context).toMatchObject({ recipeId, revision: 2, updated: ["summary"] });

      const got = await call(client, "recipe", { action: "get", recipeId });
      expect(got.context).toMatchObject({
        recipeId,
        visibility: "private",
        title: "Unwrap UVs for a hero prop",
        summary: "Seams, unfold, layout; checked texel density.",
        whenToUse: "Hero props that get 4K textures.",
        acceptanceCriteria: ["No overlapping UVs", "uv_count >= 1"],
        document: "# Hero UVs\n\nLong notes.\n",
        revision: 2,
        usage: { get: 1, uses: 1 },
      });
      expect(got.revision).toBeGreaterThanOrEqual(updated.revision!);

      // A second playbook on the same theme lists the first as similar.
      const twin = await call(client, "recipe", playbook({ title: "Unwrap UVs for a hero prop, fast", summary: "Hero prop UV unwrap with seams and layout.", whenToUse: "Hero props." }));
      expect(twin.context.similar.map((s: { recipeId: string }) => s.recipeId)).toContain(recipeId);

      const stale = await call(client, "recipe", { action: "update", recipeId, title: "late", expectedRevision: 1 });
      expect(stale.error).toBe("conflict");
      expect(stale.context.currentRevision).toBe(2);
    } finally {
      await other.close();
    }
  });

  it("public recipes: search and get map them; update is read_only; unknown ids not_found", async () => {
    const found = await call(client, "recipe", { action: "search", query: "bevel edges", visibility: "public" });
    expect(found.context.recipes[0]).toMatchObject({ recipeId: "modeling/Bevel edges", title: "Bevel edges", visibility: "public", skill: "modeling" });

    const md = await call(client, "recipe", { action: "get", recipeId: "modeling/Bevel edges" });
    expect(md.context).toMatchObject({ title: "Bevel edges", steps: [], acceptanceCriteria: [], format: "markdown" });
    expect(md.context.document).toBe("## Bevel edges\n\nSelect hard edges and run polyBevel3.");

    const yaml = await call(client, "recipe", { action: "get", recipeId: "modeling/build_pbr_material" });
    expect(yaml.context).toMatchObject({ format: "yaml", title: "build_pbr_material", summary: "Build a PBR material network." });
    expect(yaml.context.inputs_schema.required).toEqual(["material_name"]);
    expect(yaml.context.steps[0].tool).toBe("maya_materials__create");
    expect(yaml.context.output_contract.required).toEqual(["changed"]);
    expect(yaml.context.document).toContain("name: build_pbr_material");

    const readOnly = await call(client, "recipe", { action: "update", recipeId: "modeling/Bevel edges", title: "mine" });
    expect(readOnly.error).toBe("read_only");
    expect(readOnly.isError).toBe(true);
    expect((await call(client, "recipe", { action: "update", recipeId: "modeling/nope", title: "x" })).error).toBe("not_found");
    expect((await call(client, "recipe", { action: "update", recipeId: "private/nope", title: "x" })).error).toBe("not_found");
    expect((await call(client, "recipe", { action: "get", recipeId: "modeling/Bevel edges", visibility: "private" })).error).toBe("not_found");
    const unknown = await call(client, "recipe", { action: "get", recipeId: "modeling/Bevel edgs" });
    expect(unknown.error).toBe("not_found");
    expect(unknown.context.suggestions).toContain("modeling/Bevel edges");
  });

  it("a large document is paged through windows back to the exact text", async () => {
    // Escapes, astral characters, CRLF, a frontmatter-looking fence: everything JSON and the file format must carry.
    const unit = 'Line "quoted" \\ back\tslash — 😀 日本\r\n---\ntitle: not frontmatter\n';
    const unitPoints = [...unit].length;
    const copies = Math.floor(80_000 / unitPoints);
    const document = unit.repeat(copies) + "x".repeat(80_000 - copies * unitPoints);
    expect([...document].length).toBe(80_000);
    const created = await call(client, "recipe", playbook({ document }));
    expect(created.success, created.message).toBe(true);
    const recipeId = created.context.recipeId as string;

    const first = (await client.callTool({ name: "recipe", arguments: { action: "get", recipeId } })) as {
      content: Array<{ text: string }>;
      structuredContent?: unknown;
      isError?: boolean;
    };
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toBeUndefined();
    const page = JSON.parse(first.content[1]!.text) as { resultStart: number; resultEnd: number; totalChars: number; nextResultStart: number | null };
    expect(page).toMatchObject({ resultStart: 0, resultEnd: 8000, nextResultStart: 8000 });
    let text = first.content[0]!.text;
    let next = page.nextResultStart;
    let windows = 1;
    while (next !== null) {
      const window = (await client.callTool({ name: "recipe", arguments: { action: "get", recipeId, resultStart: next, resultEnd: next + 8000 } })) as {
        content: Array<{ text: string }>;
      };
      const meta = JSON.parse(window.content[1]!.text) as { nextResultStart: number | null; totalChars: number };
      expect(meta.totalChars).toBe(page.totalChars);
      text += window.content[0]!.text;
      next = meta.nextResultStart;
      windows += 1;
    }
    expect(text.length).toBe(page.totalChars);
    expect(windows).toBe(Math.ceil(page.totalChars / 8000));
    const whole = JSON.parse(text) as { success: boolean; context: { document: string; usage: { get: number } } };
    expect(whole.success).toBe(true);
    expect(whole.context.document).toBe(document);
    expect(whole.context.usage.get).toBe(1);
    // And on disk, byte for byte after the frontmatter.
    const file = await fs.readFile(path.join(running.privateDir, `${recipeId.slice("private/".length)}.md`), "utf8");
    expect(file.endsWith(document)).toBe(true);
  });

  it("recipes__get counts one use per read: its later windows are not uses", async () => {
    const count = async (): Promise<number> => (await call(client, "recipe", { action: "get", recipeId: "modeling/Freeze transforms" })).context.usage.get as number;
    const before = await count();
    await call(client, "recipes__get", { skill: "modeling", anchor: "Freeze transforms" });
    for (const resultStart of [20, 40]) {
      const window = await client.callTool({ name: "recipes__get", arguments: { skill: "modeling", anchor: "Freeze transforms", resultStart, resultEnd: resultStart + 20 } });
      expect((window as { isError?: boolean }).isError).toBe(false);
    }
    // One use by the first recipes__get, one by the count read before this one.
    expect(await count()).toBe(before + 2);
  });

  it("concurrent gets of one recipe from several sessions all count", async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => connect(running.url)));
    try {
      const before = (await call(client, "recipe", { action: "get", recipeId: "modeling/Freeze transforms" })).context.usage.get as number;
      await Promise.all(clients.flatMap((c) => Array.from({ length: 10 }, () => call(c, "recipe", { action: "get", recipeId: "modeling/Freeze transforms" }))));
      const after = (await call(client, "recipe", { action: "get", recipeId: "modeling/Freeze transforms" })).context.usage.get as number;
      expect(after).toBe(before + 41);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
