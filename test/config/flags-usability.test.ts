/**
 * What a person typing flags is told: an unknown flag names the closest known
 * one, and the log level's environment variable has the project's prefix
 * (LOG_LEVEL still read, below it; flags above both).
 */
import { describe, expect, it } from "vitest";
import { resolveConfig, type ConfigResult } from "../../src/config/resolve.js";
import { OPTIONS } from "../../src/config/options.js";

const run = (argv: string[], env: Record<string, string> = {}): ConfigResult =>
  resolveConfig({ argv: ["--dcc", "maya", ...argv], env, homeDir: "/nonexistent-home", platform: "linux", cwd: "/" });

const message = (r: ConfigResult): string => {
  if (r.kind !== "error") throw new Error(`expected a usage error, got ${r.kind}`);
  return r.message;
};

describe("unknown flags: did you mean", () => {
  it.each([
    ["--prot", "--port"],
    ["--skils-path", "--skills-path"],
    ["--stateles", "--stateless"],
    ["--log-levl=debug", "--log-level"],
    ["--tokne", "--token"],
    ["--embedings", "--embeddings"],
  ])("%s suggests %s", (flag, suggestion) => {
    const m = message(run([flag]));
    expect(m).toContain(`did you mean ${suggestion}?`);
    expect(m).not.toContain("\n");
  });

  it("says nothing close when nothing is", () => {
    const m = message(run(["--xyzzy-frobnicate"]));
    expect(m).toBe('unknown option "--xyzzy-frobnicate" (see --help)');
    expect(message(run(["-q"]))).toBe('unknown option "-q" (see --help)');
  });

  it("every suggestion is a real flag", () => {
    for (const name of Object.keys(OPTIONS)) {
      const typo = `--${name.slice(0, -1)}x`;
      if (Object.hasOwn(OPTIONS, typo.slice(2))) continue;
      const m = message(run([typo]));
      const suggested = /did you mean --([a-z-]+)\?/.exec(m)?.[1];
      if (suggested !== undefined) expect(Object.keys(OPTIONS)).toContain(suggested);
    }
  });

  it("hostile input: a 100,000-character flag or control characters give one short line", () => {
    const huge = message(run([`--${"a".repeat(100_000)}`]));
    expect(huge.length).toBeLessThan(200);
    expect(huge).not.toContain("did you mean");
    const control = message(run(["--po\u001b[2Jrt\n"]));
    expect(control).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe("RECIPE_SERVER_LOG_LEVEL", () => {
  const level = (argv: string[], env: Record<string, string>): string => {
    const r = run(argv, env);
    if (r.kind !== "serve") throw new Error(JSON.stringify(r));
    return r.config.logLevel;
  };

  it("sets the level; LOG_LEVEL is an alias below it; the flag beats both", () => {
    expect(level([], {})).toBe("info");
    expect(level([], { RECIPE_SERVER_LOG_LEVEL: "debug" })).toBe("debug");
    expect(level([], { LOG_LEVEL: "warn" })).toBe("warn");
    expect(level([], { RECIPE_SERVER_LOG_LEVEL: "error", LOG_LEVEL: "warn" })).toBe("error");
    expect(level(["--log-level", "trace"], { RECIPE_SERVER_LOG_LEVEL: "error", LOG_LEVEL: "warn" })).toBe("trace");
  });

  it("refuses a level that is not one, naming the flag", () => {
    expect(message(run([], { RECIPE_SERVER_LOG_LEVEL: "loud" }))).toMatch(/--log-level must be one of/);
  });

  it("the help text names the variable", async () => {
    const { HELP_TEXT } = await import("../../src/config/options.js");
    expect(HELP_TEXT).toContain("RECIPE_SERVER_LOG_LEVEL");
  });
});
