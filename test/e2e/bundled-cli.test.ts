/**
 * The `recipe-server` binary as shipped: dist/cli.js, the server it loads
 * (dist/cli/serve.js), the linter and the parse worker are single-file bundles
 * (scripts/bundle.mjs). They must serve exactly as the modules do: the
 * worker found beside its old path, package.json read for the version, parse cache keys agreeing
 * between the bundled worker and the bundled main thread across a restart.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, connect, until, makeTempDir, REPO_ROOT, skillMd, writeTree } from "./harness.js";

const CLI = path.join(REPO_ROOT, "dist/cli.js");
const SERVE = path.join(REPO_ROOT, "dist/cli/serve.js");
const LINT = path.join(REPO_ROOT, "dist/lint/command.js");
const WORKER = path.join(REPO_ROOT, "dist/recipes/packs/parse-worker.js");
const built = [CLI, SERVE, LINT, WORKER].every((file) => existsSync(file));
if (!built) console.warn(`bundled CLI tests skipped: ${CLI} is missing (npm ci / npm run build makes it)`);

/** 70 skills: past the threshold from which a load parses on a worker. */
const SKILLS = 70;

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly logs: Array<Record<string, unknown>>;
}

async function startCli(tmp: string): Promise<Started> {
  const child = spawn(process.execPath, [CLI, "--dcc", "maya", "--port", "0", "--skills-path", path.join(tmp, "skills"), "--no-watch", "--embeddings", "none"], {
    env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_DATA_HOME: path.join(tmp, "data"), DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Array<Record<string, unknown>> = [];
  let buffered = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (typeof entry.url === "string") resolve(entry.url.replace(/\/mcp$/, ""));
      }
    });
    child.on("exit", (code) => reject(new Error(`the CLI exited ${code}: ${stderr}`)));
  });
  for (;;) {
    const response = await fetch(`${url}/readyz`);
    if (response.status === 200) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child, url, logs };
}

async function stopCli(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.on("exit", resolve));
  started.child.kill("SIGTERM");
  return exited;
}

let tmp: string;
beforeEach(async () => {
  tmp = await makeTempDir("bundled-cli-");
  const files: Record<string, string> = {};
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill${i}`;
    files[`skills/${name}/SKILL.md`] = skillMd(name, "maya", "RECIPES.yaml");
    files[`skills/${name}/RECIPES.yaml`] =
      `recipes:\n  - name: bevel_${i}\n    description: bevel the edges of part ${i}\n    inputs_schema: { type: object, required: [width], properties: { width: { type: number, minimum: 0 } } }\n    steps: [{ tool: bevel, args: { width: "{{width}}" } }]\n`;
  }
  await writeTree(tmp, files);
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!built)("the bundled CLI", () => {
  it("is one file per entry point: no relative module left to resolve at start", () => {
    const relativeImports = (file: string): string[] => {
      // Comments aside (dependencies' JSDoc mentions import('../x') types); bundles keep none, sources might.
      const code = readFileSync(file, "utf8").split("\n").filter((line) => !/^\s*(\*|\/\/)/.test(line)).join("\n");
      return [...code.matchAll(/(?:\bfrom|\bimport\(?|\brequire\()\s*["'](\.\.?\/[^"']*)["']/g)].map((m) => m[1]!);
    };
    // The CLI's own bundle loads the server (cli/serve.js: serving and `paths`) and the linter on demand, each one file of its own.
    expect([...new Set(relativeImports(CLI))].sort()).toEqual(["./cli/serve.js", "./lint/command.js"]);
    // The server loads one module on demand, never at start: the 2026-07-28 DCC session (the v2 client), for an endpoint that speaks only that.
    expect(relativeImports(SERVE)).toEqual(["../recipes/run/session-2026.js"]);
    for (const file of [LINT, WORKER]) expect(relativeImports(file)).toEqual([]);
  });

  it("serves a cold load parsed by the bundled worker, and a restart hits every pack it cached", async () => {
    const cold = await startCli(tmp);
    try {
      const client = await connect(cold.url);
      const search = await call(client, "recipes__search", { query: "bevel edges part 42" });
      expect(search.success).toBe(true);
      expect(search.context.recipes[0].recipeId).toBe("skill42/bevel_42");
      const check = await call(client, "recipes__validate", { skill: "skill3", recipe: "bevel_3", inputs: { width: -1 } });
      expect(check.context.valid).toBe(false);
      await client.close();
    } finally {
      expect(await stopCli(cold)).toBe(0);
    }
    // A first start: the load's parse workers (the bundled worker script) did the parsing.
    const workers = Math.min(3, availableParallelism() - 1);
    expect(cold.logs.find((l) => l.msg === "catalog loaded")).toMatchObject({
      recipes: SKILLS,
      parseCache: { hits: 0, misses: SKILLS },
      parseWorkers: workers,
    });

    const warm = await startCli(tmp);
    try {
      // Log lines are written in batches, a little after the fact.
      await until(() => warm.logs.some((l) => l.msg === "catalog loaded"));
      expect(warm.logs.find((l) => l.msg === "catalog loaded")).toMatchObject({
        recipes: SKILLS,
        parseCache: { hits: SKILLS, misses: 0 },
        parseWorkers: 0,
      });
    } finally {
      expect(await stopCli(warm)).toBe(0);
    }
  });

  it("prints the package's version", async () => {
    const version = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
    const child = spawn(process.execPath, [CLI, "--version"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    expect(out.trim()).toBe(version);
  });

  it("answers --help and usage errors from its own bundle, without the server's", async () => {
    // The CLI bundle alone in a directory: nothing to import beside it.
    const alone = path.join(tmp, "alone");
    await fs.mkdir(alone);
    copyFileSync(CLI, path.join(alone, "cli.js"));
    const run = async (args: string[]): Promise<{ code: unknown; out: string; err: string }> => {
      const child = spawn(process.execPath, [path.join(alone, "cli.js"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
      return { code: await new Promise((resolve) => child.on("exit", resolve)), out, err };
    };
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("--skills-path");
    const bad = await run(["--dcc", "maya", "--port", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split("\n")).toHaveLength(1);
    expect(bad.err).toMatch(/^recipe-server: .*--port/);
  });

  it("runs the linter from its own bundle", async () => {
    await writeTree(tmp, {
      "lint/s1/SKILL.md": skillMd("s1", "maya", "RECIPES.yaml"),
      "lint/s1/RECIPES.yaml": "recipes:\n  - name: [unclosed\n",
    });
    const child = spawn(process.execPath, [CLI, "lint", "--format", "json", path.join(tmp, "lint")], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(1);
    const findings = JSON.parse(out) as Array<{ code: string; skill: string; file: string }>;
    expect(findings.map((f) => [f.code, f.skill, f.file])).toEqual([["yaml_parse_error", "s1", "RECIPES.yaml"]]);
  });
});
