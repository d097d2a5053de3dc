/**
 * metadata/depends.md is part of a skill as dcc-mcp-core reads it: an edit to
 * it alone, seen by the real watcher, reaches recipes__list (real daemon,
 * SDK client, temp dirs; every assertion polls, never a fixed sleep).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRecipeServer, type RecipeServer } from "../../src/compose/app.js";
import { resolveConfig } from "../../src/config/resolve.js";
import { call, connect, until, makeTempDir, skillMd, writeTree } from "./harness.js";

let tmp = "";
let server: RecipeServer;
let client: Client;

async function depends(): Promise<unknown> {
  const answer = await call(client, "recipes__list", { skill: "fem" });
  return answer.context.depends;
}

beforeAll(async () => {
  tmp = await makeTempDir();
  const skills = path.join(tmp, "skills");
  await writeTree(skills, {
    "fem/SKILL.md": skillMd("fem", "maya", "R.md", "    depends: [analysis]\n"),
    "fem/R.md": "## Review\n\nRead the solve.\n",
  });
  const resolved = resolveConfig({
    argv: ["--dcc", "maya", "--port", "0", "--embeddings", "none", "--private-dir", path.join(tmp, "private"), "--skills-path", skills],
    env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data") },
    homeDir: tmp,
  });
  if (resolved.kind !== "serve") throw new Error(`bad test config: ${JSON.stringify(resolved)}`);
  server = createRecipeServer(resolved.config, { logger: pino({ level: "silent" }) });
  const { url } = await server.start();
  await server.ready();
  await Promise.all([...server.libraries.values()].map((l) => l.watch()));
  client = await connect(url);
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await rm(tmp, { recursive: true, force: true });
});

describe("metadata/depends.md", () => {
  it("an edit to it alone is merged into depends on reload, and its removal undone", async () => {
    expect(await depends()).toEqual(["analysis"]);
    await writeTree(path.join(tmp, "skills"), { "fem/metadata/depends.md": "# Depends\n\n- mesh-tools\n- analysis\nprose line\n" });
    await until(async () => JSON.stringify(await depends()) === JSON.stringify(["analysis", "mesh-tools"]));
    await writeFile(path.join(tmp, "skills/fem/metadata/depends.md"), "- solver\n");
    await until(async () => JSON.stringify(await depends()) === JSON.stringify(["analysis", "solver"]));
    await rm(path.join(tmp, "skills/fem/metadata"), { recursive: true });
    await until(async () => JSON.stringify(await depends()) === JSON.stringify(["analysis"]));
  });
});
