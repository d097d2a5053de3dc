#!/usr/bin/env node
/**
 * Second build step, after tsc: rewrites the daemon's two entry points,
 * dist/cli.js and dist/recipes/parse-worker.js, as single-file bundles of
 * themselves and their dependencies. Node then loads one file instead of
 * ~400 ESM and CommonJS modules (resolution, package.json reads and
 * per-module compiles), which was a third of the main thread's cold start.
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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const entries = ["cli.js", "recipes/parse-worker.js"];

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
    plugins: [ownImportMetaUrl(outfile)],
    logLevel: "warning",
    legalComments: "none",
  });
  if (result.errors.length > 0) process.exit(1);
}
