/**
 * The start-up report reads the libraries' own state. The libraries here are
 * stand-ins whose load and warm-up can be held at any point (a real load of
 * the size that takes seconds would take those seconds of a shared machine);
 * the banner and root checks run on real directories.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resolveConfig, type Config } from "../../src/config/resolve.js";
import { startStartupReport } from "../../src/cli/startup-report.js";
import type { RecipeLibrary } from "../../src/recipes/catalog/library.js";
import type { SearchStatus } from "../../src/recipes/search/engine.js";
import { makeTempDir } from "../e2e/harness.js";

interface Line {
  level: number;
  msg: string;
  progress?: Record<string, unknown>;
  banner?: Record<string, unknown>;
  root?: string;
}

function capture() {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  return { lines, logger: pino({ level: "info" }, stream) };
}

function stubLibrary(dcc: string) {
  const state = { loading: true, skills: 0, recipes: 0, status: { lexical: "empty", semantic: "off", embedded: 0, total: 0, revision: 0 } as SearchStatus };
  const library = {
    dcc,
    loadProgress: () => ({ loading: state.loading, skills: state.skills, recipes: state.recipes }),
    search: { status: () => state.status },
    current: () => null,
  } as unknown as RecipeLibrary;
  return { state, library };
}

describe("startStartupReport", () => {
  let tmp: string;
  let config: Config;
  beforeEach(async () => {
    vi.useFakeTimers();
    tmp = await makeTempDir();
    await fs.mkdir(path.join(tmp, "skills"));
    const result = resolveConfig({
      argv: ["--dcc", "maya", "--skills-path", "skills", "--skills-path", "typo-skils", "--token", "t"],
      env: {},
      homeDir: tmp,
      platform: "linux",
      cwd: tmp,
    });
    if (result.kind !== "serve") throw new Error(JSON.stringify(result));
    config = result.config;
  });
  afterEach(() => vi.useRealTimers());

  it("prints the banner, warns about a configured root that does not exist (not about built-in defaults), then progress at most once a second", async () => {
    const { lines, logger } = capture();
    const { state, library } = stubLibrary("maya");
    let t = 0;
    let finish!: () => void;
    const loaded = new Promise<void>((resolve) => (finish = resolve));
    const report = startStartupReport({ config, version: "9.9.9", url: "http://127.0.0.1:1", libraries: new Map([["maya", library]]), logger, loaded, now: () => t });

    expect(lines[0]?.msg).toContain("recipe-server 9.9.9");
    expect(lines[0]?.msg).toContain("maya: MCP http://127.0.0.1:1/mcp and http://127.0.0.1:1/mcp/maya");
    expect(lines[0]?.msg).toContain(`1. ${path.join(tmp, "skills")}  [found]`);
    expect(lines[0]?.msg).toContain(`2. ${path.join(tmp, "typo-skils")}  [missing]`);
    expect(lines[0]?.msg).toMatch(/3\. .*\.dcc-mcp\/maya\/skills {2}\[missing, built-in default\]/);
    expect(lines[0]?.msg).toContain("auth: bearer token (--token)");
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings.map((w) => w.root)).toEqual([path.join(tmp, "typo-skils")]);

    // A load under a second says nothing.
    state.skills = 10;
    t = 500;
    vi.advanceTimersByTime(1000);
    expect(lines.filter((l) => l.progress !== undefined)).toHaveLength(0);
    t = 1500;
    state.skills = 40;
    state.recipes = 800;
    vi.advanceTimersByTime(1000);
    const progress = lines.filter((l) => l.progress !== undefined);
    expect(progress.map((l) => l.msg)).toEqual(["loading maya: 40 skills, 800 recipes so far"]);

    // Warm-up: done/total, then an ETA once a rate is measurable.
    state.loading = false;
    finish();
    await Promise.resolve();
    state.status = { ...state.status, semantic: "warming", embedded: 100, total: 1000 };
    t = 2500;
    vi.advanceTimersByTime(1000);
    state.status = { ...state.status, embedded: 400 };
    t = 3500;
    vi.advanceTimersByTime(1000);
    const warm = lines.filter((l) => l.progress?.phase === "semantic").map((l) => l.msg);
    expect(warm).toEqual(["semantic warm-up maya: 100/1000 recipes embedded, ETA measuring", "semantic warm-up maya: 400/1000 recipes embedded, ETA 2 s"]);
    expect(lines.some((l) => l.msg.startsWith("maya ready: 0 skills"))).toBe(true);

    // Done: no more lines.
    state.status = { ...state.status, semantic: "ready", embedded: 1000 };
    const before = lines.length;
    vi.advanceTimersByTime(3000);
    expect(lines.length).toBe(before);
    report.stop();
  });
});
