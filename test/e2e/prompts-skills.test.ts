/**
 * Recipes as prompts and the Skills extension through a real daemon (real
 * watcher) and real clients over HTTP: the 1.32.2 SDK Client (stateful, with
 * its GET stream for list_changed), and the v2 client's SkillsClient on both
 * eras (2025-11-25, auto, pinned to 2026-07-28), which verifies every file it
 * reads against the manifest (size, digest, SKILL.md's frontmatter against
 * the entry).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { call, connect, until, EXAMPLE_SKILLS, makeTempDir, REAL_SKILLS, startDaemonIn } from "./harness.js";
import { requireShared } from "../helpers/shared.js";
import type { RecipeServer } from "../../src/compose/app.js";

interface Daemon {
  readonly server: RecipeServer;
  readonly url: string;
}

async function startDaemon(tmp: string, roots: readonly string[], dccs: readonly string[], watch: boolean, extra: readonly string[] = []): Promise<Daemon> {
  return startDaemonIn(tmp, [...dccs.flatMap((d) => ["--dcc", d]), ...roots.flatMap((r) => ["--skills-path", r]), ...(watch ? [] : ["--no-watch"]), ...extra]);
}

const Loose = z.object({}).passthrough();

async function allPrompts(client: Client): Promise<Array<{ name: string; title?: string; arguments?: Array<{ name: string; required?: boolean }> }>> {
  const prompts = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
    prompts.push(...page.prompts);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return prompts;
}

type Mode = "legacy" | "auto" | { pin: string };
const MODES: ReadonlyArray<[string, Mode]> = [["2025-11-25 (legacy mode)", "legacy"], ["auto mode", "auto"], ["pinned to 2026-07-28", { pin: "2026-07-28" }]];

async function connectV2(url: string, endpoint: string, mode: Mode): Promise<ClientV2> {
  const client = new ClientV2({ name: "e2e-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(`${url}${endpoint}`)));
  return client;
}

/** Loads every skill the endpoint lists with the SDK's own SkillsClient: every file read and verified. */
async function loadEverySkill(url: string, endpoint: string, mode: Mode): Promise<{ skills: string[]; files: number; version?: string }> {
  const client = await connectV2(url, endpoint, mode);
  try {
    const skills = new SkillsClient(client);
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    const listing = await skills.list();
    let files = 0;
    for (const skill of listing.skills) {
      if (skill.resources === "dynamic") throw new Error(`${skill.uri} is dynamic`);
      const manifest = await skills.read(skill);
      expect(manifest.verified).toBe(true);
      expect(manifest.frontmatter).toEqual(skill.frontmatter);
      for (const resource of skill.resources) {
        const file = await skills.read(skill, resource.uri);
        expect(file.verified).toBe(true);
        files += 1;
      }
      expect((await skills.get(skill.uri)).skill).toEqual(skill);
      const root = await skills.readDirectory(skill.uri.slice(0, -"/SKILL.md".length));
      expect(root.resources.map((r) => r.name)).toContain("SKILL.md");
    }
    const version = client.getNegotiatedProtocolVersion();
    return { skills: listing.skills.map((s) => s.frontmatter.name), files, ...(version !== undefined ? { version } : {}) };
  } finally {
    await client.close();
  }
}

describe("prompts and skills, skills-example", () => {
  let tmp = "";
  let daemon: Daemon;
  let client: Client;

  beforeAll(async () => {
    tmp = await makeTempDir("prompts-skills-");
    daemon = await startDaemon(tmp, [EXAMPLE_SKILLS], ["maya", "houdini", "blender"], false);
    client = await connect(daemon.url, "/mcp/maya");
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.server.stop();
  });

  it("declares prompts with listChanged and the Skills extension with directoryRead", () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.prompts).toEqual({ listChanged: true });
    expect(capabilities?.resources).toEqual({ listChanged: true });
    expect(capabilities?.extensions).toEqual({ "io.modelcontextprotocol/skills": { directoryRead: true } });
  });

  it("lists every public recipe the endpoint serves as a prompt", async () => {
    const prompts = await allPrompts(client);
    const listed = await call(client, "recipes__list");
    const total = (listed.context.skills as Array<{ recipe_count: number }>).reduce((n, s) => n + s.recipe_count, 0);
    expect(prompts).toHaveLength(total);
    expect(new Set(prompts.map((p) => p.name)).size).toBe(total);
    for (const prompt of prompts) expect(prompt.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
  });

  it("gets a YAML recipe's prompt with validated arguments, and refuses bad ones with -32602", async () => {
    const prompts = await allPrompts(client);
    const withRequired = prompts.find((p) => p.arguments?.some((a) => a.required === true));
    expect(withRequired).toBeDefined();
    const required = withRequired!.arguments!.filter((a) => a.required === true);
    const failure = await client.getPrompt({ name: withRequired!.name, arguments: {} }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(-32602);
    expect((failure as McpError).message).toContain(`Missing required argument: ${required[0]!.name}`);
  });

  it("gets a Markdown recipe's prompt as its content", async () => {
    const prompts = await allPrompts(client);
    const markdown = prompts.find((p) => p.title?.startsWith("maya-modeling: "))!;
    const prompt = await client.getPrompt({ name: markdown.name });
    const anchor = markdown.title!.slice("maya-modeling: ".length);
    const got = await call(client, "recipes__get", { skill: "maya-modeling", anchor });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: got.context.content } }]);
  });

  it("answers skills/list, skills/get and skill files with the 1.32.2 client", async () => {
    const listing = (await client.request({ method: "skills/list", params: {} }, Loose)) as unknown as { skills: Array<{ uri: string; resources: Array<{ uri: string; size: number }> }> };
    expect(listing.skills.map((s) => s.uri)).toContain("skill://maya-modeling/SKILL.md");
    const entry = listing.skills.find((s) => s.uri === "skill://maya-modeling/SKILL.md")!;
    const recipes = entry.resources.find((r) => r.uri === "skill://maya-modeling/RECIPES.md")!;
    const read = await client.readResource({ uri: recipes.uri });
    expect(read.contents[0]).toMatchObject({ uri: recipes.uri, mimeType: "text/markdown" });
    expect((read.contents[0] as { text: string }).text).toBe(await readFile(path.join(EXAMPLE_SKILLS, "maya-modeling", "RECIPES.md"), "utf8"));
    const missing = await client.request({ method: "skills/get", params: { uri: "skill://nope/SKILL.md" } }, Loose).catch((e: unknown) => e);
    expect((missing as McpError).code).toBe(-32602);
  });

  it("lists each skill's SKILL.md beside the recipe resources, and still reads recipes", async () => {
    const listed = await client.listResources();
    const uris = listed.resources.map((r) => r.uri);
    expect(uris).toContain("skill://maya-modeling/SKILL.md");
    const recipe = uris.find((u) => u.startsWith("recipe://"))!;
    expect((await client.readResource({ uri: recipe })).contents[0]!.uri).toBe(recipe);
  });

  it.each(MODES.flatMap(([label, mode]) => ["/mcp/maya", "/mcp/houdini", "/mcp/blender"].map((endpoint) => [endpoint, label, mode] as const)))(
    "loads every skill of %s with the v2 SkillsClient, %s", async (endpoint, label, mode) => {
    const loaded = await loadEverySkill(daemon.url, endpoint, mode);
    expect(loaded.version).toBe(label === "2025-11-25 (legacy mode)" ? "2025-11-25" : "2026-07-28");
    const listed = await connect(daemon.url, endpoint);
    const served = ((await call(listed, "recipes__list")).context.skills as Array<{ name: string }>).map((s) => s.name).sort();
    await listed.close();
    expect(loaded.skills.sort()).toEqual(served);
    expect(loaded.files).toBeGreaterThan(served.length);
  });
});

const haveShared = requireShared(REAL_SKILLS, "loading the real skill packs with the v2 SkillsClient");

describe("the real skill packs under ../shared", () => {
  it.skipIf(!haveShared)("loads every skill of every pack with the v2 SkillsClient", async () => {
    const roots = [
      "dcc-mcp-maya/src/dcc_mcp_maya/skills",
      "dcc-mcp-maya@aa6ca922/src/dcc_mcp_maya/skills",
      "dcc-mcp-core/skills",
      "dcc-pipeline-publish/skill",
      "dcc-mcp-freecad/src/dcc_mcp_freecad/skills",
      "dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills",
    ];
    // One daemon per root: the packs reuse skill names across versions.
    for (const root of roots) {
      const tmp = await makeTempDir("real-skills-");
      const daemon = await startDaemon(tmp, [path.join(REAL_SKILLS, root)], ["maya", "freecad"], false);
      let loadedSkills = 0;
      try {
        for (const endpoint of ["/mcp/maya", "/mcp/freecad"]) {
          const listed = await connect(daemon.url, endpoint);
          const served = ((await call(listed, "recipes__list")).context.skills as Array<{ name: string }>).map((s) => s.name).sort();
          await listed.close();
          for (const [label, mode] of MODES) {
            const loaded = await loadEverySkill(daemon.url, endpoint, mode);
            expect(loaded.skills.sort(), `${root} at ${endpoint}, ${label}`).toEqual(served);
            loadedSkills += loaded.skills.length;
          }
        }
        expect(loadedSkills, root).toBeGreaterThan(0);
      } finally {
        await daemon.server.stop();
      }
    }
  }, 60_000);
});

describe("prompts list_changed after an edit", () => {
  let tmp = "";
  let daemon: Daemon;
  let client: Client;
  let changes = 0;
  let resourceChanges = 0;

  beforeAll(async () => {
    tmp = await makeTempDir("prompts-reload-");
    const skills = path.join(tmp, "skills");
    await cp(path.join(EXAMPLE_SKILLS, "scene-qa"), path.join(skills, "scene-qa"), { recursive: true });
    daemon = await startDaemon(tmp, [skills], ["maya"], true);
    client = await connect(daemon.url, "/mcp/maya");
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void (changes += 1));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (resourceChanges += 1));
    // The GET stream that carries notifications opens after initialize; a call proves the session is live.
    await client.listPrompts();
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.server.stop();
  });

  it("tells the session and lists the changed prompt", async () => {
    const pack = path.join(tmp, "skills", "scene-qa", "qa.yaml");
    const before = await allPrompts(client);
    const text = await readFile(pack, "utf8");
    const next = text.replace(/^recipes:\n/m, "recipes:\n  - name: added_by_edit\n    description: Added while serving.\n    steps: [{tool: maya_run}]\n");
    expect(next).not.toBe(text);
    await writeFile(pack, next);
    await until(() => changes > 0, { stepMs: 25 });
    // One prompts notice per change, beside its resources notice (sent first, on the same stream).
    expect(changes).toBe(resourceChanges);
    const after = await allPrompts(client);
    expect(after.map((p) => p.name)).toContain("scene-qa.added_by_edit");
    expect(after).toHaveLength(before.length + 1);
  });

  it("follows an edited SKILL.md into skills/list, with a manifest of the new bytes", async () => {
    const file = path.join(tmp, "skills", "scene-qa", "SKILL.md");
    const text = await readFile(file, "utf8");
    const next = text.replace(/^description: >-\n(?: {2}.*\n)+/m, "description: Edited while serving.\n");
    expect(next).not.toBe(text);
    await writeFile(file, next);
    type Listing = { skills: Array<{ uri: string; frontmatter: { description: string }; resources: Array<{ uri: string; size: number }> }> };
    let entry: Listing["skills"][number] | undefined;
    await until(async () => {
      const listing = (await client.request({ method: "skills/list", params: {} }, Loose)) as unknown as Listing;
      entry = listing.skills.find((s) => s.uri === "skill://scene-qa/SKILL.md");
      return entry?.frontmatter.description === "Edited while serving.";
    }, { stepMs: 25 });
    const served = await client.readResource({ uri: "skill://scene-qa/SKILL.md" });
    const bytes = Buffer.byteLength((served.contents[0] as { text: string }).text);
    expect(entry!.resources.find((r) => r.uri === "skill://scene-qa/SKILL.md")!.size).toBe(bytes);
  });
});

describe("prompts and skills under --stateless", () => {
  it("answers the 1.32.2 client and the v2 SkillsClient without sessions", async () => {
    const tmp = await makeTempDir("prompts-stateless-");
    const daemon = await startDaemon(tmp, [EXAMPLE_SKILLS], ["maya"], false, ["--stateless"]);
    try {
      const client = await connect(daemon.url, "/mcp/maya");
      expect((await allPrompts(client)).length).toBeGreaterThan(0);
      await client.close();
      const loaded = await loadEverySkill(daemon.url, "/mcp/maya", "legacy");
      expect(loaded.skills.length).toBeGreaterThan(0);
    } finally {
      await daemon.server.stop();
    }
  });
});
