/**
 * The package as a user gets it: `npm pack` the built tree, install the
 * tarball into an empty folder (offline: from the tarball and the local npm
 * cache that `npm ci` filled), then run the installed binary: --version,
 * lint on the bundled examples, and a served tools/list through the SDK's
 * client. Also what the tarball must and must not hold.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, makeTempDir, REPO_ROOT } from "./harness.js";

const run = promisify(execFile);
const built = existsSync(path.join(REPO_ROOT, "dist/cli.js")) && existsSync(path.join(REPO_ROOT, "dist/THIRD_PARTY_NOTICES.md"));
if (!built) console.warn("package tests skipped: dist/ is not built (npm ci / npm run build makes it)");
const version = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

/**
 * An adopter's package.json and lock for the tarball: the package itself from
 * the file, its dependencies at the versions this repository's lock pins
 * (its non-dev entries). `npm ci` then needs only tarballs, which the
 * repository's own `npm ci` left in the npm cache, so the install runs
 * offline; an install without a lock would need registry metadata that
 * `npm ci` never fetches.
 */
async function writeAdopterLock(app: string, tarballName: string): Promise<void> {
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as Record<string, unknown>;
  const spec = `file:../${tarballName}`;
  const packages: Record<string, unknown> = {
    "": { name: "adopter", dependencies: { "recipe-server": spec } },
    "node_modules/recipe-server": { version: pkg.version, resolved: spec, license: pkg.license, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key !== "" && entry.dev !== true && entry.devOptional !== true) packages[key] = entry;
  }
  await fs.writeFile(path.join(app, "package.json"), JSON.stringify({ name: "adopter", private: true, dependencies: { "recipe-server": spec } }));
  await fs.writeFile(path.join(app, "package-lock.json"), JSON.stringify({ name: "adopter", lockfileVersion: 3, requires: true, packages }));
}

let tmp: string;
let tarball: string;
let files: string[];
let installed: string;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_UPDATE_NOTIFIER: "1", npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" });

describe.runIf(built)("the npm package", () => {
  beforeAll(async () => {
    tmp = await makeTempDir("package-");
    // --ignore-scripts: pack the dist/ this checkout built instead of building again.
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", tmp], { cwd: REPO_ROOT, env: env(), maxBuffer: 64 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(tmp, packed!.filename);
    files = packed!.files.map((f) => f.path);
    const app = path.join(tmp, "app");
    await fs.mkdir(app);
    await writeAdopterLock(app, path.basename(tarball));
    await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: app, env: env(), maxBuffer: 64 * 1024 * 1024 });
    installed = app;
  }, 600_000);
  afterAll(async () => {
    if (tmp !== undefined) await fs.rm(tmp, { recursive: true, force: true });
  });

  it("holds the licence, the notices, the changelog, server.json and every file --help names; no source maps", () => {
    for (const f of ["LICENSE", "README.md", "CHANGELOG.md", "server.json", "dist/THIRD_PARTY_NOTICES.md", "dist/cli.js", "dist/cli/serve.js", "docs/lint.md"]) expect(files, f).toContain(f);
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.some((f) => f.startsWith("src/") || f.startsWith("test/"))).toBe(false);
    expect(files.some((f) => f.startsWith("skills-example/"))).toBe(true);
  });

  it("names in --help only files it contains", async () => {
    const bin = path.join(installed, "node_modules/.bin/recipe-server");
    const help = [(await run(bin, ["--help"], { env: env() })).stdout, (await run(bin, ["lint", "--help"], { env: env() })).stdout].join("\n");
    const named = [...help.matchAll(/\b((?:docs|dist|skills-example)\/[\w./-]+\.\w+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const file of named) expect(existsSync(path.join(installed, "node_modules/recipe-server", file)), file).toBe(true);
  });

  it("npx recipe-server --version prints the package version", async () => {
    const { stdout } = await run("npx", ["--offline", "recipe-server", "--version"], { cwd: installed, env: env() });
    expect(stdout.trim()).toBe(version);
  });

  it("lint passes on the bundled examples", async () => {
    const examples = path.join(installed, "node_modules/recipe-server/skills-example");
    const { stdout } = await run("npx", ["--offline", "recipe-server", "lint", examples, "--format", "json"], { cwd: installed, env: env() });
    const report = JSON.parse(stdout) as { summary?: { errors?: number } } & Record<string, unknown>;
    expect(JSON.stringify(report)).not.toMatch(/"severity":"error"/);
  });

  it("serves tools/list from the installed package", { timeout: 60_000 }, async () => {
    const examples = path.join(installed, "node_modules/recipe-server/skills-example");
    const child = spawn(path.join(installed, "node_modules/.bin/recipe-server"), ["--dcc", "maya", "--port", "0", "--skills-path", examples, "--no-watch", "--embeddings", "none"], {
      cwd: installed,
      env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_DATA_HOME: path.join(tmp, "data"), DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      let stderr = "";
      child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        let buffered = "";
        child.stdout!.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? "";
          for (const line of lines) {
            const entry = JSON.parse(line) as { url?: unknown; level?: unknown };
            if (typeof entry.url === "string") resolve(entry.url.replace(/\/mcp$/, ""));
          }
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      const client = await connect(url);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("recipes__search");
      await client.close();
    } finally {
      if (child.exitCode === null) child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
