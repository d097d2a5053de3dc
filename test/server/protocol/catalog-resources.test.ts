/**
 * The catalog as MCP resources, through a real SDK client over the SDK's
 * in-memory transport (the HTTP path is covered by test/e2e/hot-reload).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { buildSnapshot, type CatalogSnapshot } from "../../../src/recipes/catalog/catalog.js";
import type { MarkdownRecipe } from "../../../src/recipes/types.js";
import { listResourcesFor, readResourceFor, recipeUri, type CatalogSource } from "../../../src/server/protocol/catalog-resources.js";
import { legacyServers } from "../../../src/server/protocol/legacy-server.js";
import type { Outcome } from "../../../src/server/protocol/outcome.js";
import { createSurface } from "../../../src/server/protocol/surface.js";
import type { SkillInfo } from "../../../src/skills/types.js";

function md(skill: string, name: string): MarkdownRecipe {
  return {
    format: "markdown", recipeId: `${skill}/${name}`, skill, name, dcc: "maya", description: `${name} it`, tags: [],
    file: "R.md", line: 1, visibility: "public", content: `## ${name}\n\nBody of ${name}.`,
  };
}

function snapshot(count: number): CatalogSnapshot {
  const info = { name: "rig", dir: "/x/rig", root: "/x", rootIndex: 0, description: "", dcc: "maya", tags: [], recipePatterns: [], dccMetadata: {}, metadata: {}, body: "" } as SkillInfo;
  const recipes = Array.from({ length: count }, (_, i) => md("rig", `Recipe ${String(i).padStart(4, "0")}`));
  recipes.push(md("rig", "a/b ?#%"));
  return buildSnapshot({ dcc: "maya", revision: 1, skills: [{ info, recipes, diagnostics: [], files: [] }], discoveryDiagnostics: [], privateRecipes: [], privateDiagnostics: [] });
}

let client: Client | null = null;

/** A neutral outcome as the 1.32.2 leg answers it: the result, or the McpError it sends. */
function answered<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.result;
  throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
}

async function connect(current: CatalogSnapshot | null): Promise<{ client: Client; server: Server }> {
  const server = legacyServers(createSurface({ catalog: { dcc: "maya", current: () => current } }), { name: "t", version: "1" }).create();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: "c", version: "1" });
  await client.connect(b);
  return { client, server };
}

afterEach(async () => {
  await client?.close();
  client = null;
});

describe("catalog resources", () => {
  it("declares resources.listChanged and pages through every recipe", async () => {
    const { client } = await connect(snapshot(1200));
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      seen.push(...page.resources.map((r) => r.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toHaveLength(1201);
    expect(new Set(seen).size).toBe(1201);
  });

  it("reads a recipe by URI, also one whose name needs percent-encoding", async () => {
    const { client } = await connect(snapshot(2));
    const uri = recipeUri("maya", { skill: "rig", name: "a/b ?#%" });
    const read = await client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ uri, mimeType: "text/markdown", text: "## a/b ?#%\n\nBody of a/b ?#%." });
  });

  it("unknown, foreign-DCC, malformed and hostile URIs are 'Resource not found'; a bad cursor is invalid params", async () => {
    const { client } = await connect(snapshot(2));
    for (const uri of ["recipe://maya/rig/nope", "recipe://houdini/rig/Recipe%200000", "recipe://maya/rig/%E0%A4%A", "file:///etc/passwd", `recipe://maya/${"x".repeat(5000)}/y`]) {
      const error = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32002);
      expect((error as McpError).message).not.toContain("x".repeat(600));
    }
    for (const cursor of ["-1", "abc", "1e3", "0x10"]) {
      const error = await client.listResources({ cursor }).catch((e: unknown) => e);
      expect((error as McpError).code).toBe(-32602);
    }
  });

  it("lists nothing before the catalog has loaded", async () => {
    const { client } = await connect(null);
    expect((await client.listResources()).resources).toEqual([]);
  });
});

describe("catalog resources with a users file (each user's own playbooks)", () => {
  function ownSnapshot(names: string[]): CatalogSnapshot {
    const info = { name: "private", dir: "/p", root: "/p", rootIndex: 0, description: "", dcc: "maya", tags: [], recipePatterns: [], dccMetadata: {}, metadata: {}, body: "" } as SkillInfo;
    return buildSnapshot({ dcc: "maya", revision: 1, skills: [{ info, recipes: names.map((n) => md("private", n)), diagnostics: [], files: [] }], discoveryDiagnostics: [], privateRecipes: [], privateDiagnostics: [] });
  }
  const publicRecipes = snapshot(600);
  const owned: Record<string, CatalogSnapshot> = { alice: ownSnapshot(["alice one", "alice two"]), bob: ownSnapshot(["bob one"]) };
  const source = (loaded: Promise<unknown> = Promise.resolve(), ready = true): CatalogSource => ({
    dcc: "maya",
    current: () => publicRecipes,
    playbooksOf: (user) => ({ current: () => (ready ? owned[user] ?? null : null), loaded: loaded.then(() => (ready = true)) }),
  });
  const all = async (from: CatalogSource, user: string | undefined): Promise<string[]> => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = answered(await listResourcesFor(from, cursor, user));
      names.push(...page.resources.map((r) => r.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return names;
  };

  it("lists the public recipes and the caller's own, sorted and paged as one list; nobody else's", async () => {
    const alice = await all(source(), "alice");
    expect(alice).toHaveLength(603);
    expect(alice).toEqual([...alice].sort());
    expect(alice.filter((n) => n.startsWith("private/"))).toEqual(["private/alice one", "private/alice two"]);
    expect((await all(source(), "bob")).filter((n) => n.startsWith("private/"))).toEqual(["private/bob one"]);
    expect(await all(source(), "carol")).toHaveLength(601);
    // No user (single-user mode, or a users file's caller unknown to the source): the public catalog only, answered at once.
    expect(listResourcesFor(source(), undefined, undefined)).not.toBeInstanceOf(Promise);
  });

  it("reads the caller's own playbook; another user's URI, however spelled, is the unknown-URI answer", async () => {
    const uri = recipeUri("maya", { skill: "private", name: "alice one" });
    expect(answered(await readResourceFor(source(), uri, "alice")).contents[0]?.text).toBe("## alice one\n\nBody of alice one.");
    for (const spelling of [uri, uri.replace("private", "%70rivate"), uri.replace("/private/", "/private/..%2Falice%2F"), uri.replace("recipe://maya", "recipe://alice@maya")]) {
      const error = await Promise.resolve()
        .then(async () => answered(await readResourceFor(source(), spelling, "bob")))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect({ code: (error as McpError).code, message: (error as McpError).message }).toEqual({ code: -32002, message: "MCP error -32002: Resource not found" });
    }
  });

  it("a user's first request waits for their playbooks' first load", async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = listResourcesFor(source(gate, false), undefined, "alice");
    expect(pending).toBeInstanceOf(Promise);
    release();
    expect(answered(await pending).resources.map((r) => r.name)).toContain("private/alice one");
  });
});
