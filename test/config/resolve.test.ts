import path from "node:path";
import fs from "node:fs/promises";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackHost, resolveConfig, type Config } from "../../src/config/resolve.js";

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
  it("--users-file, its env twin and its config-file key (relative to the file); it stands in for --token off loopback", async () => {
    expect(serve(["--dcc", "maya"]).usersFile).toBeNull();
    expect(serve(["--dcc", "maya", "--users-file", "users.json"]).usersFile).toBe("/work/users.json");
    expect(serve(["--dcc", "maya"], { RECIPE_SERVER_USERS_FILE: "/etc/rs/users.json" }).usersFile).toBe("/etc/rs/users.json");
    expect(serve(["--dcc", "maya", "--users-file", "/a.json"], { RECIPE_SERVER_USERS_FILE: "/b.json" }).usersFile).toBe("/a.json");
    expect(serve(["--dcc", "maya", "--host", "0.0.0.0", "--users-file", "/a.json"]).token).toBeNull();
    expect(usageError(["--dcc", "maya", "--users-file", ""])).toMatch(/--users-file/);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cfg-users-"));
    try {
      const file = path.join(dir, "c.yaml");
      await fs.writeFile(file, "dcc: maya\nusers-file: secrets/users.json\n");
      const fromFile = resolveConfig({ argv: ["--config", file], env: {}, ...base });
      expect(fromFile.kind === "serve" && fromFile.config.usersFile).toBe(path.join(dir, "secrets/users.json"));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("--allow-promote: off by default; the flag, RECIPE_SERVER_ALLOW_PROMOTE and the config-file key turn it on", async () => {
    expect(serve(["--dcc", "maya"]).allowPromote).toBe(false);
    expect(serve(["--dcc", "maya", "--allow-promote"]).allowPromote).toBe(true);
    for (const on of ["1", "true", "YES"]) expect(serve(["--dcc", "maya"], { RECIPE_SERVER_ALLOW_PROMOTE: on }).allowPromote).toBe(true);
    for (const off of ["0", "false", "no", ""]) expect(serve(["--dcc", "maya"], { RECIPE_SERVER_ALLOW_PROMOTE: off }).allowPromote).toBe(false);
    expect(serve(["--dcc", "maya", "--allow-promote"], { RECIPE_SERVER_ALLOW_PROMOTE: "0" }).allowPromote).toBe(true);
    expect(usageError(["--dcc", "maya"], { RECIPE_SERVER_ALLOW_PROMOTE: "sure" })).toBe('RECIPE_SERVER_ALLOW_PROMOTE must be 1, true, yes, 0, false or no, got "sure"');
    expect(usageError(["--dcc", "maya", "--allow-promote=yes"])).toMatch(/allow-promote/);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cfg-promote-"));
    try {
      const file = path.join(dir, "c.yaml");
      await fs.writeFile(file, "dcc: maya\nallow-promote: true\n");
      expect(serve(["--config", file]).allowPromote).toBe(true);
      // The environment wins over the file, both ways.
      expect(serve(["--config", file], { RECIPE_SERVER_ALLOW_PROMOTE: "false" }).allowPromote).toBe(false);
      await fs.writeFile(file, "dcc: maya\nallow-promote: \"yes\"\n");
      expect(usageError(["--config", file])).toMatch(/allow-promote.*true or false/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

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

describe("resolveConfig with a config file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "recipe-config-"));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  async function write(name: string, text: string | Buffer): Promise<string> {
    const file = path.join(dir, name);
    await fs.writeFile(file, text);
    return file;
  }
  const cfg = (file: string, argv: string[] = [], env: Record<string, string> = {}) =>
    resolveConfig({ argv: ["--config", file, ...argv], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", ...env }, ...base });

  it("--history-limit sets the revisions kept per playbook, at least 2", () => {
    expect(serve(["--dcc", "maya", "--history-limit", "7"]).limits.historyLimit).toBe(7);
    expect(usageError(["--dcc", "maya", "--history-limit", "1"])).toContain("--history-limit");
    expect(usageError(["--dcc", "maya", "--history-limit", "lots"])).toContain("--history-limit");
  });

  it("takes any flag's value from YAML, with defaults < file < env < flags", async () => {
    const file = await write(
      "a.yaml",
      "dcc: [maya, houdini]\nport: 9001\nhost: 127.0.0.3\nskills-path: [skills, /abs]\nno-watch: true\nlog-level: debug\nmax-batch: 7\nembeddings: none\n",
    );
    const fromFile = cfg(file);
    expect(fromFile.kind).toBe("serve");
    if (fromFile.kind !== "serve") return;
    expect(fromFile.config).toMatchObject({ port: 9001, host: "127.0.0.3", watch: false, logLevel: "debug", configFile: file });
    expect(fromFile.config.limits.maxBatch).toBe(7);
    expect(fromFile.config.limits.historyLimit).toBe(50);
    expect(fromFile.config.embeddings.kind).toBe("none");
    expect(fromFile.config.dccs.map((d) => d.name)).toEqual(["maya", "houdini"]);
    // Relative paths in the file are relative to the file, not the working directory.
    expect(fromFile.config.dccs[0]?.skillRoots).toEqual([path.join(dir, "skills"), "/abs"]);
    const envWins = cfg(file, [], { RECIPE_SERVER_PORT: "9002", LOG_LEVEL: "warn" });
    expect(envWins.kind === "serve" && envWins.config).toMatchObject({ port: 9002, logLevel: "warn" });
    const flagWins = cfg(file, ["--port", "9003", "--dcc", "blender", "--skills-path", "x"], { RECIPE_SERVER_PORT: "9002" });
    expect(flagWins.kind === "serve" && flagWins.config).toMatchObject({ port: 9003 });
    if (flagWins.kind !== "serve") return;
    expect(flagWins.config.dccs.map((d) => d.name)).toEqual(["blender"]);
    expect(flagWins.config.dccs[0]?.skillRoots).toEqual(["/work/x"]);
  });

  it("reads JSON and RECIPE_SERVER_CONFIG", async () => {
    const file = await write("b.json", JSON.stringify({ dcc: "maya", port: 9100, stateless: true }));
    const result = resolveConfig({ argv: [], env: { RECIPE_SERVER_CONFIG: file }, ...base });
    expect(result.kind === "serve" && result.config).toMatchObject({ port: 9100, stateless: true });
  });

  it("validates file values like flags", async () => {
    const file = await write("c.yaml", "dcc: maya\nport: 70000\n");
    expect(cfg(file)).toEqual({ kind: "error", message: "--port must be between 0 and 65535, got 70000" });
  });

  it("refuses an unknown key naming the closest known one", async () => {
    const file = await write("d.yaml", "dcc: maya\nskill-path: skills\n");
    expect(cfg(file)).toEqual({ kind: "error", message: `config file ${file}: unknown key "skill-path"; did you mean "skills-path"?` });
    const far = await write("e.yaml", "dcc: maya\nfrobnicate: 1\n");
    expect(cfg(far)).toEqual({ kind: "error", message: `config file ${far}: unknown key "frobnicate"` });
    const proto = await write("f.json", '{"dcc": "maya", "__proto__": {"token": "x"}}');
    expect(cfg(proto)).toMatchObject({ kind: "error", message: expect.stringContaining('unknown key "__proto__"') });
    const nested = await write("f1.yaml", "dcc: maya\nconfig: other.yaml\n");
    expect(cfg(nested)).toEqual({ kind: "error", message: `config file ${nested}: "config" is a command-line option only` });
    const inherited = await write("f2.yaml", "dcc: maya\ntoString: x\n");
    expect(cfg(inherited)).toMatchObject({ kind: "error", message: expect.stringContaining('unknown key "toString"') });
    const control = await write("f3.yaml", 'dcc: maya\n"bad\\u001b[31mkey": 1\n');
    expect(cfg(control)).toMatchObject({ kind: "error", message: expect.stringContaining('unknown key "bad?[31mkey"') });
  });

  it.each([
    ["malformed YAML", "g.yaml", "dcc: [maya\n", /is not valid YAML/],
    ["malformed JSON", "h.json", '{"dcc": ', /is not valid JSON/],
    ["a list", "i.yaml", "- maya\n", /must be a mapping/],
    ["a wrong type", "j.yaml", "dcc: maya\nno-watch: yes please\n", /"no-watch" must be true or false/],
    ["a nested object", "k.yaml", "dcc: maya\nport: {a: 1}\n", /"port" must be a string or a number/],
    ["duplicate keys", "l.yaml", "dcc: maya\ndcc: houdini\n", /not valid YAML/],
    ["an alias bomb", "m.yaml", "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n", /not valid YAML/],
    ["binary", "n.yaml", Buffer.from([0x64, 0x63, 0x63, 0x00, 0xff]), /not a text file/],
    ["an oversized file", "o.yaml", `dcc: maya\n# ${"x".repeat(300 * 1024)}\n`, /more than the 262144/],
  ])("refuses %s with one line", async (_what, name, text, pattern) => {
    const file = await write(name, text);
    const result = cfg(file);
    expect(result.kind).toBe("error");
    if (result.kind !== "error") return;
    expect(result.message).toMatch(pattern);
    expect(result.message).not.toContain("\n");
  });

  it("refuses a missing file or a directory", () => {
    expect(cfg(path.join(dir, "nope.yaml"))).toMatchObject({ kind: "error", message: expect.stringMatching(/cannot read config file .*nope\.yaml \(ENOENT\)/) });
    expect(cfg(dir)).toMatchObject({ kind: "error", message: expect.stringMatching(/is not a regular file/) });
  });

  it("treats an empty file (or only comments) as no settings", async () => {
    const file = await write("p.yaml", "# nothing yet\n");
    expect(cfg(file, ["--dcc", "maya"]).kind).toBe("serve");
  });

  it("picks the log format: flag, then pretty on a terminal, json otherwise", () => {
    const at = (argv: string[], stderrIsTTY: boolean) => {
      const result = resolveConfig({ argv: ["--dcc", "maya", ...argv], env: {}, ...base, stderrIsTTY });
      return result.kind === "serve" ? result.config.logFormat : result;
    };
    expect(at([], true)).toBe("pretty");
    expect(at([], false)).toBe("json");
    expect(at(["--log-format", "json"], true)).toBe("json");
    expect(at(["--log-format", "xml"], true)).toMatchObject({ kind: "error", message: expect.stringMatching(/--log-format must be one of json, pretty/) });
  });

  it("answers -V with the version", () => {
    expect(resolveConfig({ argv: ["-V"], env: {}, ...base }).kind).toBe("version");
  });
});

describe("--watch poll[:ms]", () => {
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
