/**
 * The real `recipe-server` process: exit codes and one-line errors,
 * the listening log line, and a clean exit on SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "./e2e/harness.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "src/cli.ts");

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function runCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = startCli(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

/** Each thread of a process as name:state:kernel wait channel, from /proc (Linux); "unknown" elsewhere. */
function threadStates(pid: number): string {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .map((tid) => {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
        return `${name}:${state}:${readFileSync(`/proc/${pid}/task/${tid}/wchan`, "utf8")}`;
      })
      .join(", ");
  } catch {
    return "unknown";
  }
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in: ${buffer}`)), 20_000);
    child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString();
      const line = buffer.split("\n").find((l) => pattern.test(l));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve(line);
      }
    });
  });
}

describe("recipe-server CLI", () => {
  it("prints help and version with exit 0", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--dcc NAME");
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 2 with one line on stderr for bad usage", async () => {
    for (const args of [["--port", "1"], ["--dcc", "maya", "--port", "abc"], ["--dcc", "maya", "--frobnicate"]]) {
      const run = await runCli(args);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^recipe-server: /);
    }
  });

  it("answers -V, and exits 2 naming an unknown config-file key and its closest known key", async () => {
    const version = await runCli(["-V"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const dir = await makeTempDir();
    const { writeFile } = await import("node:fs/promises");
    const file = path.join(dir, "recipe-server.yaml");
    await writeFile(file, "dcc: maya\nprot: 8000\n");
    const run = await runCli([], { RECIPE_SERVER_CONFIG: file });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`recipe-server: config file ${file}: unknown key "prot"; did you mean "port"?\n`);
  });

  it("runs `paths` as a sub-command: roots in order with their counts", async () => {
    const tmp = await makeTempDir();
    const run = await runCli(["paths", "--dcc", "maya", "--skills-path", path.join(ROOT, "skills-example"), "--format", "json"], { XDG_DATA_HOME: tmp });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { dccs: { roots: { state: string; skills: number }[] }[] };
    expect(report.dccs[0]?.roots[0]).toMatchObject({ state: "found", skills: 2 });
    expect((await runCli(["paths"])).code).toBe(2);
  });

  it("runs `lint` as a sub-command with the linter's exit codes", async () => {
    const clean = await runCli(["lint", "--format", "json", path.join(ROOT, "skills-example")]);
    expect(clean.code).toBe(0);
    const broken = await makeTempDir();
    const { writeFile, mkdir } = await import("node:fs/promises");
    await mkdir(path.join(broken, "legacy"));
    await writeFile(path.join(broken, "legacy/SKILL.md"), "---\nname: legacy\ndcc: maya\n---\n");
    const dirty = await runCli(["lint", "--format", "json", broken]);
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toContain("non_spec_top_level_keys");
    const usage = await runCli(["lint", "--format", "xml"]);
    expect(usage.code).toBe(2);
  });

  it("exits 1 naming the port when it is already in use", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const tmp = await makeTempDir();
      const run = await runCli(["--dcc", "maya", "--port", String(port), "--embeddings", "none", "--no-watch", "--private-dir", tmp]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`recipe-server: port ${port} is already in use on 127.0.0.1`);
    } finally {
      blocker.close();
    }
  });

  it("logs the URL it serves and exits 0 on SIGTERM", async () => {
    const tmp = await makeTempDir();
    const child = startCli(["--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", tmp, "--skills-path", path.join(ROOT, "skills-example")], {
      XDG_DATA_HOME: tmp,
    });
    const line = await waitForLine(child, /serving MCP at/);
    const url = (JSON.parse(line) as { url: string }).url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const health = await fetch(url.replace(/\/mcp$/, "/healthz"));
    expect(health.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("--log-format pretty: a banner with every endpoint, a warning for a misspelt root, the ready summary, on stderr; /status reports progress", async () => {
    const tmp = await makeTempDir();
    const typo = path.join(tmp, "skils");
    const child = startCli(["--dcc", "maya", "--dcc", "houdini", "--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", tmp, "--skills-path", path.join(ROOT, "skills-example"), "--skills-path", typo, "--log-format", "pretty"], {
      XDG_DATA_HOME: tmp,
    });
    let stderr = "";
    let stdout = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready summary in: ${stderr}`)), 20_000);
      child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (/houdini ready: /.test(stderr) && /maya ready: /.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const url = /MCP (http:\/\/127\.0\.0\.1:\d+)\/mcp and/.exec(stderr)?.[1];
    expect(url).toBeDefined();
    expect(stderr).toContain(`houdini: MCP ${url}/mcp/houdini`);
    expect(stderr).toMatch(new RegExp(`WARN.*skill root ${typo} does not exist`));
    expect(stderr).toMatch(/maya ready: 2 skills, 13 recipes/);
    expect(stderr).not.toMatch(/^\{/m);
    expect(stdout).toBe("");
    const ready = (await (await fetch(`${url}/status`)).json()) as { dccs: { dcc: string; progress: { load: { loading: boolean; skills: number }; semantic: unknown } }[] };
    expect(ready.dccs[0]?.progress).toEqual({ load: { loading: false, skills: 2, recipes: 13 }, semantic: null });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("regression: SIGTERM ends the daemon when stdout's reader has gone (`recipe-server | head`)", async () => {
    const tmp = await makeTempDir();
    const child = startCli(["--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", tmp, "--skills-path", path.join(ROOT, "skills-example"), "--log-format", "json"], {
      XDG_DATA_HOME: tmp,
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    await waitForLine(child, /maya ready: /);
    // The reader goes away, as `| head` does once it has its lines.
    child.stdout?.destroy();
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    // Before the fix the process never exited: pino's flush at exit retried EPIPE forever.
    const code = await Promise.race([exited, new Promise<"stuck">((resolve) => setTimeout(() => resolve("stuck"), 15_000))]);
    if (code === "stuck") {
      // Where each thread waits tells a busy retry loop (nanosleep, futex) from an idle event loop (epoll).
      const where = threadStates(child.pid!);
      child.kill("SIGKILL");
      throw new Error(`no exit 15 s after SIGTERM; threads: ${where}; stderr: ${stderr.slice(-2000)}`);
    }
    expect(code).toBe(0);
  });

  it("regression: log lines still buffered at exit are written, not lost (lines go out in batches)", async () => {
    const tmp = await makeTempDir();
    const child = startCli(["--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", tmp, "--skills-path", path.join(ROOT, "skills-example")], {
      XDG_DATA_HOME: tmp,
    });
    let stdout = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    const line = await waitForLine(child, /serving MCP at/);
    const url = (JSON.parse(line) as { url: string }).url;
    const client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    for (let i = 0; i < 5; i++) await client.callTool({ name: "recipes__list", arguments: {} });
    await client.close();
    // Signalled right after the calls: their lines (and the shutdown's) are at most in the buffer.
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const messages = stdout.split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.filter((m) => m === "tool call")).toHaveLength(5);
    expect(messages.at(-1)).toBe("shutting down");
  });
});
