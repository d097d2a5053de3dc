/**
 * Shutdown of the real `recipe-server` process: SIGTERM drains (in-flight
 * work finishes, acknowledged writes are on disk, SSE streams end, exit 0),
 * the drain is bounded, and a second signal forces exit 1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connect, EXAMPLE_SKILLS, makeTempDir, REPO_ROOT } from "./harness.js";
import { until } from "../helpers/until.js";

const CLI = path.join(REPO_ROOT, "src/cli.ts");
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

interface Daemon {
  readonly child: ChildProcess;
  readonly url: string;
  readonly tmp: string;
  readonly privateDir: string;
  readonly exited: Promise<number | null>;
  readonly lines: () => Array<Record<string, unknown>>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

async function startDaemon(extra: string[] = []): Promise<Daemon> {
  const tmp = await makeTempDir();
  const privateDir = path.join(tmp, "private");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CLI, "--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", privateDir, "--skills-path", EXAMPLE_SKILLS, ...extra],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_DATA_HOME: path.join(tmp, "data"), DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const parsed: Array<Record<string, unknown>> = [];
  let buffer = "";
  child.stdout?.on("data", (d: Buffer) => {
    buffer += d.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    for (const line of parts) if (line.startsWith("{")) parsed.push(JSON.parse(line) as Record<string, unknown>);
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  // The CLI starts loading before it listens: either line may come first.
  const serves = (l: Record<string, unknown>): boolean => typeof l.msg === "string" && l.msg.startsWith("serving MCP at");
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`daemon did not load: ${stderr}`);
      return parsed.some((l) => l.msg === "catalog loaded") && parsed.some(serves);
    },
    { timeoutMs: 30_000, stepMs: 50, explain: () => `daemon did not load: ${stderr}` },
  );
  const serving = parsed.find(serves);
  const url = String(serving?.url).replace(/\/mcp$/, "");
  return { child, url, tmp, privateDir, exited, lines: () => parsed };
}

async function waitForLog(daemon: Daemon, msg: string): Promise<void> {
  await until(() => daemon.lines().some((l) => l.msg === msg), { explain: () => `no "${msg}" log line` });
}

function playbook(i: number): Record<string, unknown> {
  return {
    action: "create",
    title: `Shutdown playbook ${i}`,
    summary: `Written while the daemon shuts down (${i}).`,
    whenToUse: "When testing graceful shutdown.",
    steps: [{ title: "Step", detail: `Detail ${i}` }],
    acceptanceCriteria: ["The file exists after exit"],
    document: `# Playbook ${i}\n\nBody ${i}.\n`,
  };
}

/** A POST whose headers arrived but whose body never completes: a request in flight. */
async function halfSentRequest(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => undefined);
  socket.write(`POST /mcp HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`);
  return socket;
}

describe("SIGTERM", () => {
  it("finishes in-flight creates, ends SSE streams and exits 0 with every acknowledged write on disk", async () => {
    const daemon = await startDaemon();
    const client = await connect(daemon.url);
    client.onerror = () => undefined;
    // A raw session with its GET stream open, to see the stream end.
    const init = await fetch(`${daemon.url}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sse", version: "1" } } }),
    });
    await init.arrayBuffer();
    const stream = await fetch(`${daemon.url}/mcp`, { headers: { accept: "text/event-stream", "mcp-session-id": init.headers.get("mcp-session-id") ?? "" } });
    expect(stream.status).toBe(200);
    const streamEnded = (async () => {
      const reader = stream.body!.getReader();
      try {
        for (;;) if ((await reader.read()).done) return "ended";
      } catch {
        return "ended";
      }
    })();

    const creates = Array.from({ length: 12 }, (_, i) =>
      client.callTool({ name: "recipe", arguments: playbook(i) }).then(
        (result) => {
          const envelope = JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text) as {
            success: boolean;
            context?: { recipeId?: string };
          };
          return envelope.success ? (envelope.context?.recipeId ?? null) : null;
        },
        () => null,
      ),
    );
    // Signal while the creates are being answered.
    await waitForLog(daemon, "tool call");
    daemon.child.kill("SIGTERM");
    const acknowledged = (await Promise.all(creates)).filter((id): id is string => id !== null);
    expect(await daemon.exited).toBe(0);
    expect(await streamEnded).toBe("ended");
    expect(acknowledged.length).toBeGreaterThan(0);
    const files = new Set(await fs.readdir(daemon.privateDir));
    for (const id of acknowledged) {
      const file = `${id.replace(/^private\//, "")}.md`;
      expect(files.has(file), `${file} on disk`).toBe(true);
      const text = await fs.readFile(path.join(daemon.privateDir, file), "utf8");
      expect(text).toMatch(/^---\n/);
      expect(text).toContain("Body ");
    }
    expect(daemon.lines().some((l) => l.msg === "shutting down")).toBe(true);
    await client.close().catch(() => undefined);
    await fs.rm(daemon.tmp, { recursive: true, force: true });
  }, 90_000);

  it("bounds the wait for a request that never completes, then exits 0", async () => {
    // Grace = min(request timeout, 10 s) = 1.5 s.
    const daemon = await startDaemon(["--request-timeout-ms", "1500"]);
    const socket = await halfSentRequest(daemon.url);
    const cut = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    await cut;
    await fs.rm(daemon.tmp, { recursive: true, force: true });
  }, 90_000);

  it("a second signal during the drain forces exit 1", async () => {
    const daemon = await startDaemon();
    const socket = await halfSentRequest(daemon.url);
    // Make sure the server has seen the request before signalling.
    await new Promise((r) => setTimeout(r, 300));
    daemon.child.kill("SIGTERM");
    await waitForLog(daemon, "shutting down");
    expect(daemon.child.exitCode).toBeNull();
    daemon.child.kill("SIGINT");
    expect(await daemon.exited).toBe(1);
    expect(daemon.lines().some((l) => l.msg === "second signal: exiting now")).toBe(true);
    socket.destroy();
    await fs.rm(daemon.tmp, { recursive: true, force: true });
  }, 90_000);
});
