import path from "node:path";
import fs from "node:fs/promises";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig, type Config } from "../../src/config/resolve.js";
import { publicEndpoint } from "../../src/config/dcc-endpoints.js";

const base = { homeDir: "/home/td", platform: "linux" as const, cwd: "/work" };

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

describe("--dcc-endpoint", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "cfg-endpoints-"));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  async function fromFile(text: string, argv: string[] = [], env: Record<string, string> = {}): Promise<ReturnType<typeof resolveConfig>> {
    const file = path.join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
    await fs.writeFile(file, text);
    return resolveConfig({ argv: ["--config", file, ...argv], env, ...base });
  }

  it("is empty without the flag, and takes NAME=URL per DCC (repeatable, names case-folded)", () => {
    expect(serve(["--dcc", "blender"]).dccEndpoints).toEqual([]);
    const config = serve(["--dcc", "blender", "--dcc", "maya", "--dcc-endpoint", "Blender=http://127.0.0.1:9876/mcp", "--dcc-endpoint", "maya=https://studio.example/mcp"]);
    expect(config.dccEndpoints).toEqual([
      { dcc: "blender", url: "http://127.0.0.1:9876/mcp", headers: {} },
      { dcc: "maya", url: "https://studio.example/mcp", headers: {} },
    ]);
    expect(Object.isFrozen(config.dccEndpoints)).toBe(true);
    expect(Object.isFrozen(config.dccEndpoints[0])).toBe(true);
  });

  it("reads RECIPE_SERVER_DCC_ENDPOINT comma-separated; flags win over it", () => {
    const env = { RECIPE_SERVER_DCC_ENDPOINT: "blender=http://127.0.0.1:1/mcp, maya=http://127.0.0.1:2/mcp" };
    expect(serve(["--dcc", "blender", "--dcc", "maya"], env).dccEndpoints.map((e) => e.url)).toEqual(["http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"]);
    expect(serve(["--dcc", "blender", "--dcc", "maya", "--dcc-endpoint", "maya=http://127.0.0.1:3/mcp"], env).dccEndpoints.map((e) => e.dcc)).toEqual(["maya"]);
  });

  it("refuses malformed entries, other schemes and credentials in the URL", () => {
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "blender"])).toMatch(/must be NAME=URL/);
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "=http://x/mcp"])).toMatch(/must be NAME=URL/);
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "blender=not a url"])).toMatch(/is not a URL/);
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "blender=file:///etc/passwd"])).toMatch(/must be http/);
    const leaked = usageError(["--dcc", "blender", "--dcc-endpoint", "blender=http://me:hunter2@127.0.0.1/mcp"]);
    expect(leaked).toMatch(/credentials/);
    expect(leaked).not.toContain("hunter2");
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "blender=http://x/\u0007bell", "--dcc-endpoint", "blender"])).not.toContain("\u0007");
  });

  it("refuses a duplicate DCC and a DCC the server does not serve", () => {
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "blender=http://a/mcp", "--dcc-endpoint", "BLENDER=http://b/mcp"])).toMatch(/given twice/);
    expect(usageError(["--dcc", "blender", "--dcc-endpoint", "maya=http://a/mcp"])).toMatch(/does not serve.*--dcc blender/);
    expect(usageError(["--dcc", "blender"], { RECIPE_SERVER_DCC_ENDPOINT: "houdini=http://a/mcp" })).toMatch(/RECIPE_SERVER_DCC_ENDPOINT "houdini"/);
  });

  it("takes a list in the config file, whose mappings alone carry headers; the headers never appear in what may be shown", async () => {
    const result = await fromFile(
      [
        "dcc: [blender, maya]",
        "dcc-endpoint:",
        "  - dcc: blender",
        "    url: http://127.0.0.1:9876/mcp",
        "    headers: {Authorization: Bearer s3cret-token}",
        "  - maya=http://127.0.0.1:9877/mcp",
      ].join("\n"),
    );
    if (result.kind !== "serve") throw new Error(JSON.stringify(result));
    const [blender, maya] = result.config.dccEndpoints;
    expect(blender).toEqual({ dcc: "blender", url: "http://127.0.0.1:9876/mcp", headers: { Authorization: "Bearer s3cret-token" } });
    expect(maya?.headers).toEqual({});
    expect(JSON.stringify(publicEndpoint(blender!))).not.toContain("s3cret");
    expect(publicEndpoint(blender!).headers).toEqual(["Authorization"]);
    // A single string is a one-entry list, like every list key of the file.
    const one = await fromFile("dcc: blender\ndcc-endpoint: blender=http://127.0.0.1:1/mcp\n");
    expect(one.kind === "serve" && one.config.dccEndpoints.length).toBe(1);
  });

  it("refuses hostile config-file entries without echoing header values", async () => {
    const bad = async (text: string): Promise<string> => {
      const result = await fromFile(`dcc: blender\n${text}`);
      if (result.kind !== "error") throw new Error(`expected an error for ${text}`);
      return result.message;
    };
    expect(await bad("dcc-endpoint: [{url: http://a/mcp}]")).toMatch(/needs "dcc"/);
    expect(await bad("dcc-endpoint: [{dcc: blender}]")).toMatch(/needs "url"/);
    expect(await bad("dcc-endpoint: [{dcc: blender, url: http://a/mcp, token: x}]")).toMatch(/unknown key "token"/);
    expect(await bad('dcc-endpoint: [{dcc: blender, url: http://a/mcp, "__proto__": {x: 1}}]')).toMatch(/unknown key "__proto__"/);
    expect(await bad("dcc-endpoint: [{dcc: blender, url: http://a/mcp, headers: [a]}]")).toMatch(/headers must be a mapping/);
    expect(await bad("dcc-endpoint: [{dcc: blender, url: http://a/mcp, headers: {Mcp-Session-Id: x}}]")).toMatch(/set by the MCP client/);
    expect(await bad('dcc-endpoint: [{dcc: blender, url: http://a/mcp, headers: {"bad name": x}}]')).toMatch(/not a header name/);
    const split = await bad('dcc-endpoint: [{dcc: blender, url: http://a/mcp, headers: {Authorization: "Bearer top\\nsecret"}}]');
    expect(split).toMatch(/single-line/);
    expect(split).not.toContain("secret");
    expect(await bad("dcc-endpoint: [7]")).toMatch(/must be NAME=URL/);
    expect(await bad(`dcc-endpoint: [${Array.from({ length: 1001 }, () => '"x"').join(",")}]`)).toMatch(/more than 1000/);
  });

  it("flags win over the config file's list", async () => {
    const result = await fromFile("dcc: blender\ndcc-endpoint: [{dcc: blender, url: http://a/mcp, headers: {X-Key: k}}]\n", ["--dcc-endpoint", "blender=http://b/mcp"]);
    expect(result.kind === "serve" && result.config.dccEndpoints).toEqual([{ dcc: "blender", url: "http://b/mcp", headers: {} }]);
  });
});
