/**
 * Bearer-token auth end to end (every route but /healthz), and the refusal to
 * bind a non-loopback host without a token — including the container's own
 * environment and command line from the Dockerfile.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { call, connect, EXAMPLE_SKILLS, REPO_ROOT, startServer, type RunningServer } from "./harness.js";

const TOKEN = "correct-horse-battery-staple";
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "auth", version: "1" } },
});

let running: RunningServer;

beforeAll(async () => {
  running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], env: { RECIPE_SERVER_TOKEN: TOKEN } });
});
afterAll(async () => {
  await running?.stop();
});

describe("with a token (from RECIPE_SERVER_TOKEN)", () => {
  it("refuses missing and wrong tokens with 401, WWW-Authenticate and a JSON-RPC body, on every route but the probes", async () => {
    const wrong: Array<Record<string, string>> = [{}, { authorization: "Bearer nope" }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }];
    for (const headers of wrong) {
      for (const [method, route] of [["POST", "/mcp"], ["POST", "/mcp/maya"], ["GET", "/mcp"], ["DELETE", "/mcp"], ["GET", "/status"], ["GET", "/metrics"], ["GET", "/nope"]] as const) {
        const response = await fetch(`${running.url}${route}`, {
          method,
          headers: { ...MCP_HEADERS, ...headers },
          ...(method === "POST" ? { body: INITIALIZE } : {}),
        });
        expect(response.status, `${method} ${route}`).toBe(401);
        expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="recipe-server"/);
        const body = (await response.json()) as { error: { code: number } };
        expect(body.error.code).toBe(-32002);
      }
    }
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    // A probe needs no token and learns ready or not, nothing more.
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true });
  });

  it("serves /status and /metrics with the token", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const status = await fetch(`${running.url}/status`, { headers: auth });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ ready: true, dccs: [{ dcc: "maya" }] });
    const metrics = await fetch(`${running.url}/metrics`, { headers: auth });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^recipe_server_catalog_ready\{dcc="maya"\} 1$/m);
  });

  it("lets an SDK client with the token work, and refuses one without", async () => {
    const client = await connect(running.url, "/mcp", { authorization: `Bearer ${TOKEN}` });
    expect((await call(client, "recipes__list", {})).success).toBe(true);
    await client.close();
    await expect(connect(running.url)).rejects.toThrow(/401|Unauthorized/);
  });
});

describe("non-loopback bind", () => {
  const base = { env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, homeDir: "/nonexistent-home" };

  it("is refused at config time without a token, with a message naming the way out", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com"]) {
      const resolved = resolveConfig({ ...base, argv: ["--dcc", "maya", "--host", host] });
      expect(resolved).toEqual({
        kind: "error",
        message: `refusing to listen on non-loopback host ${host} without a token: set --token or RECIPE_SERVER_TOKEN (or pass --insecure-no-auth)`,
      });
    }
  });

  it("is allowed with --token, RECIPE_SERVER_TOKEN or --insecure-no-auth; loopback needs nothing", () => {
    const ok = (argv: string[], env: Record<string, string> = {}) =>
      resolveConfig({ ...base, argv: ["--dcc", "maya", ...argv], env: { ...base.env, ...env } }).kind;
    expect(ok(["--host", "0.0.0.0", "--token", "t"])).toBe("serve");
    expect(ok(["--host", "0.0.0.0"], { RECIPE_SERVER_TOKEN: "t" })).toBe("serve");
    expect(ok(["--host", "0.0.0.0", "--insecure-no-auth"])).toBe("serve");
    expect(ok(["--host", "127.0.0.1"])).toBe("serve");
    expect(ok(["--host", "localhost"])).toBe("serve");
    expect(ok(["--host", "::1"])).toBe("serve");
  });

  it("the Dockerfile's default command refuses to start without RECIPE_SERVER_TOKEN and starts with it", async () => {
    const dockerfile = await fs.readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8");
    const env: Record<string, string> = {};
    const envBlock = /^ENV\s+((?:.*\\\n)*.*)$/gm;
    for (const match of dockerfile.matchAll(envBlock)) {
      for (const pair of (match[1] ?? "").replace(/\\\n/g, " ").matchAll(/(\w+)=(\S+)/g)) env[pair[1]!] = pair[2]!;
    }
    const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(dockerfile);
    expect(cmd, "Dockerfile has an exec-form CMD").not.toBeNull();
    const words = JSON.parse(cmd![1]!) as string[];
    // Drop "node", its own flags and the script: what is left is the daemon's argv.
    const argv = words.slice(words.indexOf("dist/cli.js") + 1);
    expect(words[0]).toBe("node");
    expect(env.RECIPE_SERVER_HOST).toBe("0.0.0.0");
    const without = resolveConfig({ ...base, argv, env: { ...base.env, ...env } });
    expect(without.kind).toBe("error");
    expect(without.kind === "error" && without.message).toMatch(/without a token/);
    const withToken = resolveConfig({ ...base, argv, env: { ...base.env, ...env, RECIPE_SERVER_TOKEN: "from-env" } });
    expect(withToken.kind === "serve" && withToken.config.token).toBe("from-env");
  });
});
