/**
 * Loads the server's CommonJS bundle (scripts/bundle.mjs) through vm.Script
 * with the V8 code cache the build wrote beside it. Node 20 has no compile
 * cache for ES modules: the server bundle (2 MB) was compiled from source at
 * every start, its top-level functions too, on the main thread before the
 * first load could begin. The cache holds what the build's run of the
 * bundle's top level compiled.
 *
 * A cache V8 rejects (another Node, other V8 flags) costs nothing but the
 * saving: the bundle is compiled from source as before.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";

export type CodeCacheUse = "used" | "rejected" | "none";

export interface LoadedBundle {
  readonly exports: Record<string, unknown>;
  readonly codeCache: CodeCacheUse;
}

export function codeCacheFileOf(bundleFile: string): string {
  return `${bundleFile}.cache`;
}

/**
 * The function the bundle's body is wrapped in: CommonJS's, plus the
 * bundle's own URL (what its modules read as import.meta.url). The same text
 * at build and at run time, or V8 rejects the cache. The body's own
 * "use strict" comes first in it, so the bundle runs strict, as ES modules do.
 */
const wrap = (source: string): string => `(function (exports, require, module, __filename, __dirname, __bundleUrl) {${source}\n})`;

function compile(file: string, source: string, cachedData: Buffer | undefined): vm.Script {
  return new vm.Script(wrap(source), {
    filename: file,
    ...(cachedData !== undefined ? { cachedData } : {}),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}

function run(script: vm.Script, file: string): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body(module.exports, createRequire(file), module, file, path.dirname(file), pathToFileURL(file).href);
  return module.exports;
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** The bundle's exports, or null when there is no such bundle (running from the TypeScript sources). */
export function loadCompiledBundle(bundle: URL): LoadedBundle | null {
  const file = fileURLToPath(bundle);
  const source = readOptional(file);
  if (source === undefined) return null;
  const cachedData = readOptional(codeCacheFileOf(file));
  const script = compile(file, source.toString("utf8"), cachedData);
  const codeCache: CodeCacheUse = cachedData === undefined ? "none" : script.cachedDataRejected === true ? "rejected" : "used";
  return { exports: run(script, file), codeCache };
}

/** Build step: runs the bundle's top level once and writes V8's code cache of it beside the bundle. */
export function writeCodeCache(bundleFile: string): number {
  const script = compile(bundleFile, readFileSync(bundleFile, "utf8"), undefined);
  run(script, bundleFile);
  const data = script.createCachedData();
  writeFileSync(codeCacheFileOf(bundleFile), data);
  return data.length;
}
