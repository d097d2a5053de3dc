import path from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, resolveConfig, type Config } from "../src/config.js";

const HOME = "/home/td";
const base = { homeDir: HOME, platform: "linux" as const, cwd: "/work" };

function serve(argv: string[], env: Record<string, string> = {}): Config {
  const result = resolveConfig({ argv, env, ...base });
  if (result.kind !== "serve") throw new Error(`expected serve, got ${JSON.stringify(result)}`);
  return result.config;
}

function usageError(argv: string[], env: Record<string, string> = {}): string {
  const result = resolveConfig({ argv, env, ...base });
  if (result.kind !== "error") throw new Error(`expected an error, got ${result.kind}`);
  return result.message;
}

describe("resolveConfig", () => {
  it("applies defaults", () => {
    const config = serve(["--dcc", "maya"]);
    expect(config).toMatchObject({ host: "127.0.0.1", port: 8765, token: null, stateless: false, watch: true, logLevel: "info" });
    expect(config.embeddings.kind).toBe("local");
    expect(config.dccs[0]?.privateDir).toBe(path.join(HOME, ".local/share/recipe-server/maya/private"));
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.dccs[0])).toBe(true);
  });

  it("lets flags win over environment and environment over defaults", () => {
    const env = { RECIPE_SERVER_PORT: "9000", RECIPE_SERVER_HOST: "127.0.0.2", LOG_LEVEL: "debug", RECIPE_SERVER_DCC: "houdini" };
    expect(serve([], env)).toMatchObject({ port: 9000, host: "127.0.0.2", logLevel: "debug" });
    expect(serve([], env).dccs.map((d) => d.name)).toEqual(["houdini"]);
    expect(serve(["--port", "9100", "--dcc", "maya"], env)).toMatchObject({ port: 9100 });
    expect(serve(["--dcc", "maya"], env).dccs.map((d) => d.name)).toEqual(["maya"]);
  });

  it("accepts repeatable --dcc, --skills-path and --allowed-origin in order", () => {
    const config = serve(["--dcc", "maya", "--dcc", "Houdini", "--skills-path", "a", "--skills-path", "/b", "--allowed-origin", "https://studio.example"], {
      DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1",
    });
    expect(config.dccs.map((d) => d.name)).toEqual(["maya", "houdini"]);
    expect(config.dccs[0]?.skillRoots).toEqual(["/work/a", "/b"]);
    expect(config.allowedOrigins).toEqual(["https://studio.example"]);
  });

  it("resolves skill roots in dcc-mcp-core order", () => {
    const config = serve(["--dcc", "maya", "--skills-path", "/x"], {
      DCC_MCP_MAYA_SKILL_PATHS: "/m1:/m2",
      DCC_MCP_SKILL_PATHS: "/g",
      XDG_DATA_HOME: "/data",
    });
    expect(config.dccs[0]?.skillRoots).toEqual([
      "/x",
      "/m1",
      "/m2",
      "/g",
      path.join(HOME, ".dcc-mcp/maya/skills"),
      "/data/dcc-mcp/skills/maya",
      "/data/dcc-mcp/skills",
    ]);
  });

  it("uses RECIPE_SERVER_PRIVATE_DIR and --private-dir", () => {
    expect(serve(["--dcc", "maya"], { RECIPE_SERVER_PRIVATE_DIR: "/p" }).dccs[0]?.privateDir).toBe("/p");
    expect(serve(["--dcc", "maya", "--private-dir", "q"], { RECIPE_SERVER_PRIVATE_DIR: "/p" }).dccs[0]?.privateDir).toBe("/work/q");
  });

  it("accepts port 0 and the port range edges", () => {
    expect(serve(["--dcc", "maya", "--port", "0"]).port).toBe(0);
    expect(serve(["--dcc", "maya", "--port", "65535"]).port).toBe(65535);
  });

  it.each([
    [["--port", "8765"], /--dcc is required/],
    [["--dcc", "maya", "--port", "65536"], /--port must be between 0 and 65535/],
    [["--dcc", "maya", "--port", "-1"], /--port/],
    [["--dcc", "maya", "--port", "12ab"], /--port must be an integer/],
    [["--dcc", "maya", "--port"], /--port/],
    [["--dcc", "../etc"], /not a valid DCC name/],
    [["--dcc", "maya", "--dcc", "MAYA"], /given twice/],
    [["--dcc", "maya", "--embeddings", "gpt"], /--embeddings must be one of/],
    [["--dcc", "maya", "--embeddings", "openai"], /--embeddings-url/],
    [["--dcc", "maya", "--log-level", "loud"], /--log-level/],
    [["--dcc", "maya", "--bogus"], /bogus/],
    [["--dcc", "maya", "stray"], /unexpected argument/],
    [["--dcc", "maya", "--host", "0.0.0.0"], /refusing to listen on non-loopback host 0\.0\.0\.0 without a token/],
    [["--dcc", "maya", "--skills-path", ""], /--skills-path must not be empty/],
    [["--dcc", "maya", "--max-sessions", "0"], /--max-sessions/],
  ])("refuses %j with one clear line", (argv, pattern) => {
    const message = usageError(argv as string[]);
    expect(message).toMatch(pattern);
    expect(message).not.toContain("\n");
  });

  it("allows a non-loopback bind with a token or the explicit override", () => {
    expect(serve(["--dcc", "maya", "--host", "0.0.0.0", "--token", "t"]).token).toBe("t");
    expect(serve(["--dcc", "maya", "--host", "0.0.0.0"], { RECIPE_SERVER_TOKEN: "e" }).token).toBe("e");
    expect(serve(["--dcc", "maya", "--host", "0.0.0.0", "--insecure-no-auth"]).insecureNoAuth).toBe(true);
  });

  it("answers --help and --version before validating the rest", () => {
    expect(resolveConfig({ argv: ["--help"], env: {}, ...base }).kind).toBe("help");
    expect(resolveConfig({ argv: ["--version", "--port", "x"], env: {}, ...base }).kind).toBe("version");
  });

  it("reads the embeddings key only from the environment", () => {
    const config = serve(["--dcc", "maya", "--embeddings", "openai", "--embeddings-url", "http://127.0.0.1:1234"], {
      RECIPE_SERVER_EMBEDDINGS_KEY: "sk-test",
    });
    expect(config.embeddings).toMatchObject({ kind: "openai", url: "http://127.0.0.1:1234", apiKey: "sk-test" });
  });
});

describe("isLoopbackHost", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["192.168.1.4", false],
    ["::", false],
  ])("%s → %s", (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe("--watch poll[:ms] (issue 24 item 6)", () => {
  it("polls at the default or the given interval; events by default", () => {
    expect(serve(["--dcc", "maya"]).watchPollMs).toBeNull();
    expect(serve(["--dcc", "maya", "--watch", "events"]).watchPollMs).toBeNull();
    expect(serve(["--dcc", "maya", "--watch", "poll"]).watchPollMs).toBe(1000);
    expect(serve(["--dcc", "maya", "--watch", "poll:250"]).watchPollMs).toBe(250);
  });

  it("refuses a malformed or out-of-range interval and a contradiction with --no-watch, naming the flag", () => {
    for (const value of ["poll:", "poll:abc", "poll:10", "poll:1e9", "inotify", "poll:250ms"]) {
      expect(usageError(["--dcc", "maya", "--watch", value]), value).toMatch(/--watch/);
    }
    expect(usageError(["--dcc", "maya", "--watch", "poll", "--no-watch"])).toMatch(/--watch and --no-watch/);
  });
});
