/**
 * Blender as the real DCC for end-to-end tests: spawns headless Blender with
 * examples/blender-bridge/bridge.py on an ephemeral loopback port, waits for
 * its `BRIDGE_READY port=<n>` line and stops it by its own process id.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { REPO_ROOT } from "./harness.js";

export const BRIDGE_DIR = path.join(REPO_ROOT, "examples/blender-bridge");
export const BRIDGE_SCRIPT = path.join(BRIDGE_DIR, "bridge.py");
/** The tool definitions the bridge serves and the DCC double copies. */
export const BRIDGE_TOOLS_FILE = path.join(BRIDGE_DIR, "tools.json");

/** `BLENDER` names the binary where it is not `blender` on PATH. */
export function blenderBinary(): string {
  return process.env.BLENDER ?? "blender";
}

let availability: string | null | undefined;

/** Null when Blender runs here; otherwise why not (for the skip message). */
export function blenderUnavailableReason(): string | null {
  if (availability !== undefined) return availability;
  const probe = spawnSync(blenderBinary(), ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (probe.error) availability = `${blenderBinary()} cannot start (${probe.error.message}); install it with: apt-get install -y blender`;
  else if (probe.status !== 0) availability = `${blenderBinary()} --version exited with ${String(probe.status)}`;
  else availability = null;
  return availability;
}

export function blenderAvailable(): boolean {
  return blenderUnavailableReason() === null;
}

/**
 * For `describe.skipIf(skipWithoutBlender())`: true (skip, with the reason
 * printed) when Blender is absent outside CI; throws under CI, where a missing
 * Blender is a broken machine, not a reason to pass.
 */
export function skipWithoutBlender(suite: string): boolean {
  const reason = blenderUnavailableReason();
  if (reason === null) return false;
  if (process.env.CI) throw new Error(`${suite}: Blender is required when CI is set, and ${reason}`);
  console.warn(`skipping ${suite}: ${reason}`);
  return true;
}

export interface BlenderBridgeOptions {
  /** Tools (full name or the verb after `__`) that do nothing and report `changed: false`. */
  readonly lyingTools?: readonly string[];
  /** Delay every tools/call by this many milliseconds. */
  readonly slowMs?: number;
  /** Keep at most this many sessions, least recently used out first (the bridge's default: 1024). */
  readonly maxSessions?: number;
  /** Drop a connection that sends nothing for this long (the bridge's default: 10 s). */
  readonly idleTimeoutS?: number;
  /** Give up waiting for BRIDGE_READY after this long (default 90 s: a cold start on a busy machine). */
  readonly readyTimeoutMs?: number;
}

export interface BlenderBridge {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Everything Blender printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL, as a crash would: for tests of a DCC that dies. Resolves when the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL if it lingers. Resolves when the process is gone; safe to call twice. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startBlenderBridge(options: BlenderBridgeOptions = {}): Promise<BlenderBridge> {
  if (!fs.existsSync(BRIDGE_SCRIPT)) throw new Error(`no bridge at ${BRIDGE_SCRIPT}`);
  const args = ["-b", "--factory-startup", "--python-exit-code", "1", "--python", BRIDGE_SCRIPT, "--", "--port", "0"];
  for (const tool of options.lyingTools ?? []) args.push("--lying-tool", tool);
  if (options.slowMs !== undefined) args.push("--slow-ms", String(options.slowMs));
  if (options.maxSessions !== undefined) args.push("--max-sessions", String(options.maxSessions));
  if (options.idleTimeoutS !== undefined) args.push("--idle-timeout-s", String(options.idleTimeoutS));
  const child = spawn(blenderBinary(), args, { stdio: ["ignore", "pipe", "pipe"], cwd: BRIDGE_DIR });
  let log = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    log += chunk;
  });
  const lines = readline.createInterface({ input: child.stdout });
  const readyTimeout = options.readyTimeoutMs ?? 90_000;

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`Blender printed no BRIDGE_READY within ${readyTimeout} ms`)), readyTimeout);
    const onExit = (code: number | null, signal: string | null): void =>
      fail(new Error(`Blender exited (${signal ?? `code ${String(code)}`}) before BRIDGE_READY`));
    function fail(error: Error): void {
      clearTimeout(timer);
      child.off("exit", onExit);
      lines.off("line", onLine);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      reject(new Error(`${error.message}\n${log}`));
    }
    function onLine(line: string): void {
      log += line + "\n";
      const match = /^BRIDGE_READY port=(\d+)$/.exec(line.trim());
      if (!match) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve(Number(match[1]));
    }
    child.on("error", (error) => fail(error));
    child.on("exit", onExit);
    lines.on("line", onLine);
  });
  // Keep collecting what it prints after start-up.
  lines.on("line", (line) => {
    log += line + "\n";
  });

  const signal = async (name: NodeJS.Signals, graceMs: number): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(name);
    const gone = exited(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await gone;
    clearTimeout(timer);
  };

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    pid: child.pid ?? -1,
    output: () => log,
    kill: () => signal("SIGKILL", 0),
    stop: () => signal("SIGTERM", 5_000),
  };
}
