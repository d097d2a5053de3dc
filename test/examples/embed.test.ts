/** examples/embed.ts: an McpServer of the caller's with the recipe tools added. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEmbeddedServer } from "../../examples/embed.js";
import { makeTempDir } from "../e2e/harness.js";
import type { RecipesToolsHandle } from "../../src/index.js";

let client: Client;
let recipes: RecipesToolsHandle;

beforeAll(async () => {
  const built = await buildEmbeddedServer(undefined, await makeTempDir());
  recipes = built.recipes;
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await built.server.connect(serverSide);
  client = new Client({ name: "embed-test", version: "1.0.0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await recipes?.close();
});

function parse(result: unknown): { success: boolean; context: any } { // loosely-typed tool payload
  const content = (result as { content: Array<{ text: string }> }).content;
  return JSON.parse(content[0]!.text) as { success: boolean; context: any };
}

describe("examples/embed.ts", () => {
  it("lists the host's own tool beside the five recipe tools with their exact schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["maya__ping", "recipes__apply", "recipes__get", "recipes__list", "recipes__search", "recipes__validate"].sort(),
    );
    const get = tools.find((t) => t.name === "recipes__get")!;
    expect(get.inputSchema.required).toEqual(["skill", "anchor"]);
    expect(get.inputSchema.additionalProperties).toBe(false);
    expect(get.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(get.annotations?.readOnlyHint).toBe(true);
  });

  it("answers recipe calls from the scanned skills", async () => {
    const list = parse(await client.callTool({ name: "recipes__list", arguments: {} }));
    expect(list.success).toBe(true);
    const names = (list.context.skills as Array<{ name: string }>).map((s) => s.name);
    expect(names).toContain("maya-modeling");
    expect(names).not.toContain("houdini-fx");
    const search = parse(await client.callTool({ name: "recipes__search", arguments: { query: "mirror" } }));
    expect(search.context.recipes.length).toBeGreaterThan(0);
  });

  it("validates arguments with the project's validator, not zod", async () => {
    const result = await client.callTool({ name: "recipes__get", arguments: { skill: "maya-modeling" } });
    expect(result.isError).toBe(true);
    expect(parse(result)).toMatchObject({ success: false, error: "invalid_input" });
  });

  it("still serves the host's own tool", async () => {
    const result = await client.callTool({ name: "maya__ping", arguments: {} });
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe("pong");
  });
});
