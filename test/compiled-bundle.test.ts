/**
 * The server bundle is loaded through vm.Script with the code cache the
 * build wrote (src/compiled-bundle.ts): the cache must be taken when it
 * fits, ignored (not fatal) when it does not, and the bundle must run as
 * the ES modules it came from would: strict, with its own URL.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeCacheFileOf, loadCompiledBundle, writeCodeCache } from "../src/compiled-bundle.js";
import { REPO_ROOT } from "./e2e/harness.js";

const BUNDLE = `"use strict";
const path = require("node:path");
exports.strict = (function () { return this === undefined; })();
exports.url = __bundleUrl;
exports.dir = path.basename(__dirname);
exports.add = (a, b) => a + b;
`;

let tmp: string;
let bundle: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "compiled-bundle-")));
  bundle = path.join(tmp, "bundle.cjs");
  await fs.writeFile(bundle, BUNDLE);
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("compiled bundle", () => {
  it("runs the bundle strict, with its own URL and CommonJS names, with no cache beside it", () => {
    const loaded = loadCompiledBundle(pathToFileURL(bundle))!;
    expect(loaded.codeCache).toBe("none");
    expect(loaded.exports).toMatchObject({ strict: true, url: pathToFileURL(bundle).href, dir: path.basename(tmp) });
    expect((loaded.exports["add"] as (a: number, b: number) => number)(2, 3)).toBe(5);
  });

  it("takes the cache the build step wrote", () => {
    expect(writeCodeCache(bundle)).toBeGreaterThan(0);
    const loaded = loadCompiledBundle(pathToFileURL(bundle))!;
    expect(loaded.codeCache).toBe("used");
    expect(loaded.exports["strict"]).toBe(true);
  });

  it("ignores a cache that does not fit (damaged, or for another source) and runs the bundle all the same", async () => {
    await fs.writeFile(codeCacheFileOf(bundle), Buffer.from("not a v8 code cache"));
    expect(loadCompiledBundle(pathToFileURL(bundle))!.codeCache).toBe("rejected");
    writeCodeCache(bundle);
    await fs.appendFile(bundle, "exports.more = 1;\n");
    const changed = loadCompiledBundle(pathToFileURL(bundle))!;
    expect(changed.codeCache).toBe("rejected");
    expect(changed.exports["more"]).toBe(1);
  });

  it("is absent when there is no bundle (running from the TypeScript sources)", () => {
    expect(loadCompiledBundle(pathToFileURL(path.join(tmp, "missing.cjs")))).toBeNull();
  });

  const built = path.join(REPO_ROOT, "dist/serve.cjs");
  it.skipIf(!existsSync(built))("the built server bundle takes its cache in a plain node process, as the CLI runs it", () => {
    const script = `import { loadCompiledBundle } from ${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, "dist/compiled-bundle.js")).href)};
const loaded = loadCompiledBundle(new URL(${JSON.stringify(pathToFileURL(built).href)}));
console.log(JSON.stringify({ codeCache: loaded.codeCache, serve: typeof loaded.exports.serve }));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ codeCache: "used", serve: "function" });
  });
});
