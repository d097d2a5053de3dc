/**
 * A real recipe-server process kill -9'd while four clients send keyed
 * creates (#22 row "kill -9 during creates"), and the retry of every key sent
 * on a survivor: shared by the file-store and PostgreSQL-store tests.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { expect } from "vitest";
import { call, connect, until, REPO_ROOT } from "./harness.js";
import { playbook } from "./playbook-args.js";

export interface CliRun {
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; stderr: string; stdout: string }>;
}

export function cli(args: readonly string[]): CliRun {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "src/cli.ts"), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  return { child, exit: new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr, stdout }))) };
}

export interface KilledRun {
  /** key → recipeId of every create the victim answered. */
  readonly acknowledged: ReadonlyMap<string, string>;
  /** Every key sent, answered or not. */
  readonly sent: readonly string[];
  readonly output: { stdout: string; stderr: string };
}

export async function killDuringKeyedCreates(args: readonly string[], atLeast = 40): Promise<KilledRun> {
  const victim = cli(args);
  const url = await new Promise<string>((resolve) => {
    let out = "";
    victim.child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
  });
  await until(async () => (await fetch(`${url}/readyz`)).ok);
  const client = await connect(url);
  const acknowledged = new Map<string, string>();
  const sent: string[] = [];
  // A request in flight when the server dies may never settle: writers stop at the death.
  const dead = victim.exit.then(() => "dead" as const);
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; ; i++) {
      const key = `kill-${w}-${i}`;
      sent.push(key);
      const answer = await Promise.race([call(client, "recipe", playbook({ title: `Kill test ${w}`, idempotencyKey: key })), dead]).catch(() => "dead" as const);
      if (answer === "dead") return;
      if (answer.success) acknowledged.set(key, answer.context.recipeId as string);
    }
  };
  const writers = Promise.all([0, 1, 2, 3].map(writer));
  await until(() => acknowledged.size >= atLeast);
  victim.child.kill("SIGKILL");
  const output = await victim.exit;
  await writers;
  // The transport of a dead server may never settle its close.
  void client.close().catch(() => undefined);
  return { acknowledged, sent, output };
}

/** Retries every key on `client`: each answers, and an acknowledged one answers its first recipeId. */
export async function retryEveryKey(client: Client, run: KilledRun): Promise<void> {
  for (const key of run.sent) {
    const retry = await call(client, "recipe", playbook({ title: `Kill test ${key.split("-")[1]}`, idempotencyKey: key }));
    expect(retry.success).toBe(true);
    const first = run.acknowledged.get(key);
    if (first !== undefined) expect(retry.context.recipeId).toBe(first);
  }
}
