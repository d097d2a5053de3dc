#!/usr/bin/env node
/**
 * Second build step, after tsc: rewrites the daemon's entry points as
 * single-file bundles of themselves and their dependencies. Node then loads
 * one file instead of ~400 ESM and CommonJS modules (resolution,
 * package.json reads and per-module compiles), which was a third of the
 * main thread's cold start.
 *
 * - dist/cli.js: the command line alone (config, help); it loads the two below when it needs them, so `--help`, a
 *   usage error or `lint` never compile the server.
 * - dist/cli/serve.js: the server, everything the serve command loads.
 * - dist/lint/command.js: the pack linter.
 * - dist/recipes/packs/parse-worker.js: the parse worker.
 *
 * Bundles carry no comments and little whitespace: V8 reads and compiles
 * every byte of a module before it runs any of it, and the server's bundle
 * is the largest part of a start before the first load can begin
 * (3.3 MB as written, ~2.1 MB so; names are kept, for stack traces).
 * Without comments they are also pure ASCII (esbuild escapes non-ASCII in
 * code, never in comments): one non-ASCII character makes the whole source
 * a two-byte string for V8, slower to decode and to scan.
 *
 * Licence comments go too; the licences of every bundled package are
 * collected into dist/THIRD_PARTY_NOTICES.md instead (scripts/notices.mjs).
 *
 * Every other file tsc wrote stays as it is (the package's library exports
 * import them). Each bundled module keeps its own `import.meta.url`, so
 * paths it resolves relative to itself (the worker script, package.json,
 * the parse cache's code fingerprint) resolve as they did unbundled.
 */
import { build } from "esbuild";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeNotices } from "./notices.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const entries = ["cli.js", "cli/serve.js", "lint/command.js", "recipes/packs/parse-worker.js"];

/** The CLI's own bundle leaves the modules it loads on demand to theirs. */
const onDemand = new Set(["./cli/serve.js", "./lint/command.js"]);
const keepOnDemandApart = (outfile) => ({
  name: "keep-on-demand-apart",
  setup(b) {
    b.onResolve({ filter: /^\.\// }, (args) => {
      if (args.importer !== outfile || !onDemand.has(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
});

/**
 * Modules a bundle imports on demand (`await import(...)`) stay files of their
 * own, loaded from dist/ with their dependencies from node_modules only when
 * called: the v2 MCP client (about 0.8 s and 27 MB to load) is needed only
 * when a DCC endpoint speaks 2026-07-28 alone.
 */
const lazyModules = new Set([path.join(dist, "recipes/run/session-2026.js")]);
const keepLazyApart = (outfile) => ({
  name: "keep-lazy-apart",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const target = path.resolve(args.resolveDir, args.path);
      if (!lazyModules.has(target)) return undefined;
      const relative = path.relative(path.dirname(outfile), target).split(path.sep).join("/");
      return { path: relative.startsWith(".") ? relative : `./${relative}`, external: true };
    });
  },
});

/** Each dist module's `import.meta.url` becomes its own unbundled URL, relative to the bundle's. */
const ownImportMetaUrl = (outfile) => ({
  name: "own-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta.url")) return { contents: source, loader: "js" };
      const relative = path.relative(path.dirname(outfile), args.path).split(path.sep).join("/");
      const own = `new URL(${JSON.stringify(relative.startsWith(".") ? relative : `./${relative}`)}, import.meta.url).href`;
      return { contents: source.replaceAll("import.meta.url", own), loader: "js" };
    });
  },
});

const bundledInputs = new Set();
for (const entry of entries) {
  const outfile = path.join(dist, entry);
  const result = await build({
    entryPoints: [outfile],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    allowOverwrite: true,
    // The local embedding model (tfjs and 28 MB of weights) loads in its own worker, from node_modules.
    external: ["@energetic-ai/*"],
    // CommonJS dependencies (fastify, pino …) call require() for Node built-ins.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    plugins: [keepOnDemandApart(outfile), keepLazyApart(outfile), ownImportMetaUrl(outfile)],
    logLevel: "warning",
    metafile: true,
    legalComments: "none",
    minifyWhitespace: true,
    // RECIPE_SERVER_BUNDLE_MAPS=1 writes <bundle>.map beside each bundle for
    // bench/profile-layers.ts; "external" leaves the bundle's bytes as they are.
    sourcemap: process.env.RECIPE_SERVER_BUNDLE_MAPS === "1" ? "external" : false,
  });
  if (result.errors.length > 0) process.exit(1);
  for (const input of Object.keys(result.metafile.inputs)) bundledInputs.add(input);
}
writeNotices(path.join(dist, "THIRD_PARTY_NOTICES.md"), bundledInputs, process.cwd());
