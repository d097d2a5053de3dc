/**
 * openCatalogs + createRecipeServer({ catalogs }): the CLI's two-phase start
 * (load first, server stack second) as an embedder can use it. The server
 * serves the catalogs it was given, reports not-ready until their one load
 * finishes, and closes them on stop.
 */
import fs from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecipeServer } from "../../src/compose/app.js";
import { createEmbeddingProvider, openCatalogs } from "../../src/compose/catalogs.js";
import { resolveConfig, type Config } from "../../src/config/resolve.js";
import { call, connect, makeTempDir, skillMd, writeTree } from "../e2e/harness.js";

let tmp: string;
let config: Config;
beforeEach(async () => {
  tmp = await makeTempDir("catalogs-");
  await writeTree(tmp, {
    "skills/fx/SKILL.md": skillMd("fx", "maya", "RECIPES.yaml"),
    "skills/fx/RECIPES.yaml": "recipes:\n  - name: make_smoke\n    description: make a smoke container\n    steps: [{ tool: smoke }]\n",
  });
  const resolved = resolveConfig({
    argv: ["--dcc", "maya", "--dcc", "houdini", "--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", path.join(tmp, "private"), "--skills-path", path.join(tmp, "skills")],
    env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data") },
    homeDir: tmp,
  });
  if (resolved.kind !== "serve") throw new Error("bad test config");
  config = resolved.config;
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("openCatalogs", () => {
  it("loads once however often asked, and the server given them serves that load", async () => {
    const logger = pino({ level: "silent" });
    const catalogs = openCatalogs(config, logger);
    expect([...catalogs.libraries.keys()]).toEqual(["maya", "houdini"]);
    expect(catalogs.loaded()).toBe(false);
    const first = catalogs.load();
    expect(catalogs.load()).toBe(first);
    await first;
    expect(catalogs.loaded()).toBe(true);
    const revision = catalogs.libraries.get("maya")!.current()!.revision;

    const server = createRecipeServer(config, { logger, catalogs });
    expect(server.libraries).toBe(catalogs.libraries);
    const { url } = await server.start();
    try {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      const client = await connect(url);
      const answer = await call(client, "recipes__search", { query: "smoke" });
      expect(answer.context.recipes.map((r: { recipeId: string }) => r.recipeId)).toEqual(["fx/make_smoke"]);
      // start() did not load the catalogs a second time.
      expect(answer.revision).toBe(revision);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it("catalogs nobody loaded yet are loaded by the server's start, and /readyz follows that load", async () => {
    const logger = pino({ level: "silent" });
    const catalogs = openCatalogs(config, logger);
    const server = createRecipeServer(config, { logger, catalogs });
    expect(catalogs.loaded()).toBe(false);
    const { url } = await server.start();
    try {
      await server.ready();
      expect(catalogs.loaded()).toBe(true);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe("createEmbeddingProvider", () => {
  it("none is null: lexical only", () => {
    expect(createEmbeddingProvider("none")).toBeNull();
  });

  it("openai needs its endpoint settings and names url and model in its id", async () => {
    expect(() => createEmbeddingProvider("openai")).toThrow(/needs options.openai/);
    const p = createEmbeddingProvider("openai", { openai: { url: "http://127.0.0.1:11434", model: "nomic-embed-text", apiKey: "k" } });
    expect(p?.id).toBe("openai:http://127.0.0.1:11434:nomic-embed-text");
    await p?.close();
  });
});
