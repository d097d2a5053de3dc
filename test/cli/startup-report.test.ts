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
import { createStatusLine } from "../../src/cli/status-line.js";
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

  it("prints the banner with each fact once, warns about a configured root that does not exist (not about built-in defaults)", async () => {
    const { lines, logger } = capture();
    const { library } = stubLibrary("maya");
    const report = startStartupReport({ config, version: "9.9.9", nodeVersion: "24.0.0", url: "http://127.0.0.1:1", libraries: new Map([["maya", library]]), logger, loaded: new Promise(() => undefined), now: () => 0 });
    const banner = lines[0]!.msg;
    expect(banner).toContain("recipe-server 9.9.9 on Node 24.0.0");
    expect(banner).toContain("maya: MCP http://127.0.0.1:1/mcp and http://127.0.0.1:1/mcp/maya");
    expect(banner).toContain(`1. ${path.join(tmp, "skills")}  [found]`);
    expect(banner).toContain(`2. ${path.join(tmp, "typo-skils")}  [missing]`);
    // Absent built-in defaults: named once, under their own heading, not numbered under the DCC.
    const defaultRoot = path.join(tmp, ".dcc-mcp/maya/skills");
    expect(banner.split(defaultRoot).length - 1).toBe(1);
    expect(banner).toContain("built-in default roots, searched once they exist:");
    expect(banner).toContain("auth: bearer token (--token)");
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings.map((w) => w.root)).toEqual([path.join(tmp, "typo-skils")]);
    report.stop();
  });

  it("names a built-in default shared by several DCCs once, and the ready lines list only roots that exist", async () => {
    const result = resolveConfig({ argv: ["--dcc", "maya", "--dcc", "houdini", "--skills-path", "skills"], env: {}, homeDir: tmp, platform: "linux", cwd: tmp });
    if (result.kind !== "serve") throw new Error(JSON.stringify(result));
    const { lines, logger } = capture();
    const maya = stubLibrary("maya");
    const houdini = stubLibrary("houdini");
    const report = startStartupReport({
      config: result.config, version: "9.9.9", url: "http://127.0.0.1:1",
      libraries: new Map([["maya", maya.library], ["houdini", houdini.library]]), logger, loaded: Promise.resolve(), now: () => 0,
    });
    await Promise.resolve();
    await Promise.resolve();
    const banner = lines[0]!.msg;
    const shared = path.join(tmp, ".local/share/dcc-mcp/skills");
    expect(banner.split(`${shared}\n`).length - 1).toBe(1);
    const ready = lines.filter((l) => / ready: /.test(l.msg)).map((l) => l.msg);
    expect(ready).toHaveLength(2);
    for (const msg of ready) {
      expect(msg).not.toContain("missing");
      expect(msg).not.toContain(shared);
      expect(msg).toContain(path.join(tmp, "skills"));
    }
    report.stop();
  });

  it("without a terminal: progress as one line for all DCCs, at most one per 10 s", async () => {
    const { lines, logger } = capture();
    const maya = stubLibrary("maya");
    const houdini = stubLibrary("houdini");
    let t = 0;
    let finish!: () => void;
    const loaded = new Promise<void>((resolve) => (finish = resolve));
    const report = startStartupReport({ config, version: "9.9.9", url: "http://127.0.0.1:1", libraries: new Map([["maya", maya.library], ["houdini", houdini.library]]), logger, loaded, now: () => t });
    const progress = () => lines.filter((l) => l.progress !== undefined);

    // A load under a second says nothing.
    maya.state.skills = 10;
    t = 500;
    vi.advanceTimersByTime(1000);
    expect(progress()).toHaveLength(0);
    t = 1500;
    maya.state.skills = 40;
    maya.state.recipes = 800;
    houdini.state.skills = 3;
    vi.advanceTimersByTime(1000);
    expect(progress().map((l) => l.msg)).toEqual(["loading: maya 40 skills, 800 recipes; houdini 3 skills, 0 recipes so far"]);
    // Nine more seconds of loading: no second line.
    for (let i = 0; i < 9; i++) {
      t += 1000;
      maya.state.skills += 1;
      vi.advanceTimersByTime(1000);
    }
    expect(progress()).toHaveLength(1);

    maya.state.loading = false;
    houdini.state.loading = false;
    finish();
    await Promise.resolve();
    maya.state.status = { ...maya.state.status, semantic: "warming", embedded: 100, total: 1000 };
    houdini.state.status = { ...houdini.state.status, semantic: "warming", embedded: 0, total: 100 };
    // 20 s of warm-up, a look every second: two lines.
    for (let i = 0; i < 20; i++) {
      t += 1000;
      maya.state.status = { ...maya.state.status, embedded: maya.state.status.embedded + 30 };
      houdini.state.status = { ...houdini.state.status, embedded: houdini.state.status.embedded + 3 };
      vi.advanceTimersByTime(1000);
    }
    const warm = progress().filter((l) => l.progress?.phase === "semantic");
    expect(warm.length).toBe(2);
    expect(warm[0]!.msg).toMatch(/^semantic warm-up: maya \d+\/1000, houdini \d+\/100 recipes embedded, ETA /);
    const etas = warm.map((l) => l.progress?.etaSeconds as number | null).filter((e): e is number => e !== null);
    for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeLessThanOrEqual(etas[i - 1]!);

    // Done: no more lines.
    maya.state.status = { ...maya.state.status, semantic: "ready", embedded: 1000 };
    houdini.state.status = { ...houdini.state.status, semantic: "ready", embedded: 100 };
    const before = lines.length;
    t += 30_000;
    vi.advanceTimersByTime(30_000);
    expect(lines.length).toBe(before);
    report.stop();
  });

  it("on a terminal: progress rewrites one status line and logs no progress lines", async () => {
    const { lines, logger } = capture();
    const writes: string[] = [];
    const statusLine = createStatusLine({ write: (s: string) => writes.push(s), columns: 100 });
    const { state, library } = stubLibrary("maya");
    let t = 0;
    const report = startStartupReport({ config, version: "9.9.9", url: "http://127.0.0.1:1", libraries: new Map([["maya", library]]), logger, loaded: Promise.resolve(), now: () => t, statusLine });
    await Promise.resolve();
    state.loading = false;
    state.status = { ...state.status, semantic: "warming", embedded: 0, total: 500 };
    for (let i = 0; i < 5; i++) {
      t += 1000;
      state.status = { ...state.status, embedded: state.status.embedded + 50 };
      vi.advanceTimersByTime(1000);
    }
    expect(lines.filter((l) => l.progress !== undefined)).toEqual([]);
    expect(writes.length).toBe(5);
    for (const w of writes) {
      expect(w.startsWith("\r\u001b[2K")).toBe(true);
      expect(w).not.toContain("\n");
    }
    expect(writes.at(-1)).toContain("semantic warm-up: maya 250/500 recipes embedded, ETA 5 s");
    state.status = { ...state.status, semantic: "ready", embedded: 500 };
    t += 1000;
    vi.advanceTimersByTime(1000);
    expect(writes.at(-1)).toBe("\r\u001b[2K");
    report.stop();
  });
});
