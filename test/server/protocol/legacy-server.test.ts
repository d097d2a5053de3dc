/**
 * Prompts and the Skills extension on a 1.32.2 `Server`, through the SDK's
 * real Client over its in-memory transport, beside the recipe resources.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { legacyServers } from "../../../src/server/protocol/legacy-server.js";
import { createPromptsProvider } from "../../../src/server/protocol/prompts/provider.js";
import { createSkillsProvider } from "../../../src/server/protocol/skills-extension/provider.js";
import { createSurface } from "../../../src/server/protocol/surface.js";
import { libraryFixture, skillMd, type LibraryFixture } from "./surfaces/library-fixture.js";

let fx: LibraryFixture;
let client: Client;

beforeAll(async () => {
  fx = await libraryFixture({
    "rig/SKILL.md": skillMd("rig", ["R.md", "pack.yaml"]),
    "rig/R.md": "## Bind skin\n\nBind it.\n",
    "rig/pack.yaml": "recipes:\n  - name: weights\n    inputs_schema: {type: object, required: [joint], properties: {joint: {type: string}}}\n    steps: []\n",
  });
  const catalog = fx.library;
  const surface = createSurface({ catalog, prompts: createPromptsProvider({ source: catalog }), skills: createSkillsProvider({ source: catalog }) });
  const server = legacyServers(surface, { name: "t", version: "1" }).create();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: "c", version: "1" });
  await client.connect(b);
});
afterAll(async () => {
  await client.close();
  await fx.close();
});

describe("prompts and the Skills extension on the 1.32.2 leg", () => {
  it("declares prompts, resources and the extension", () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.prompts).toEqual({ listChanged: true });
    expect(capabilities?.resources).toEqual({ listChanged: true });
    expect(capabilities?.extensions).toEqual({ "io.modelcontextprotocol/skills": { directoryRead: true } });
  });

  it("answers prompts and turns error data into JSON-RPC errors", async () => {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name).sort();
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^rig\.Bind-skin\.[0-9a-f]{10}$/);
    expect(names[1]).toBe("rig.weights");
    const error = await client.getPrompt({ name: "rig.weights", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).data).toMatchObject({ fields: ["joint"] });
  });

  it("lists SKILL.md on the first resources page beside the recipes and routes reads by scheme", async () => {
    const { resources } = await client.listResources();
    expect(resources[0]).toMatchObject({ uri: "skill://rig/SKILL.md", name: "rig", mimeType: "text/markdown" });
    const recipe = resources.find((r) => r.uri.startsWith("recipe://"))!;
    expect((await client.readResource({ uri: recipe.uri })).contents[0]!.uri).toBe(recipe.uri);
    expect(((await client.readResource({ uri: "skill://rig/R.md" })).contents[0] as { text: string }).text).toBe("## Bind skin\n\nBind it.\n");
    for (const uri of ["skill://rig/nope.md", "recipe://maya/rig/nope"]) {
      const miss = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(miss).toBeInstanceOf(McpError);
    }
  });

  it("answers skills/list, skills/get and resources/directory/read", async () => {
    const Loose = z.object({}).passthrough();
    const list = (await client.request({ method: "skills/list", params: {} }, Loose)) as { skills?: Array<{ uri: string }> };
    expect(list.skills?.map((s) => s.uri)).toEqual(["skill://rig/SKILL.md"]);
    const got = (await client.request({ method: "skills/get", params: { uri: "skill://rig/SKILL.md" } }, Loose)) as { skill?: { uri: string } };
    expect(got.skill?.uri).toBe("skill://rig/SKILL.md");
    const dir = (await client.request({ method: "resources/directory/read", params: { uri: "skill://rig" } }, Loose)) as { resources?: Array<{ name: string }> };
    expect(dir.resources?.map((r) => r.name)).toEqual(["R.md", "SKILL.md", "pack.yaml"]);
    const bad = await client.request({ method: "resources/directory/read", params: { uri: "skill://rig/R.md" } }, Loose).catch((e: unknown) => e);
    expect((bad as McpError).code).toBe(-32602);
  });
});
