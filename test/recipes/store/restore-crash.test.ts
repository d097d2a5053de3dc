/**
 * kill -9 during restores loses no acknowledged revision, on both stores: a
 * writer process alternating updates and restores is SIGKILLed mid-stream
 * (three times, each run continuing on what the last left); every revision
 * it acknowledged is then readable with the content it acknowledged, and the
 * history is whole (no gap among the acknowledged revisions).
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openStores, type OpenedStores } from "../../../src/recipes/store/open-store.js";
import { sharedPostgres } from "../../postgres.js";

const fixture = fileURLToPath(new URL("./fixtures/restore-stream.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`kill -9 during restore on PostgreSQL skipped: ${cluster}`);
const KINDS = typeof cluster === "string" ? ["file"] : ["file", "postgres"];

const temps: string[] = [];
const opened: OpenedStores[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  await Promise.all(temps.map((t) => fs.rm(t, { recursive: true, force: true })));
});

/** Runs the writer until it has acknowledged `after` more writes, then SIGKILLs it; the acknowledgements it printed. */
function runAndKill(args: string[], after: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture, ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    const acks = new Map<number, string>();
    let buffered = "";
    let stderr = "";
    let killed = false;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const match = /^ack (\d+) (\S+)$/.exec(line);
        if (match) acks.set(Number(match[1]), match[2]!);
      }
      if (!killed && acks.size >= after) {
        killed = true;
        // A little later, so the kill lands anywhere in the next writes.
        setTimeout(() => child.kill("SIGKILL"), Math.random() * 20);
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve(acks);
      else reject(new Error(`writer exited on its own (code ${code}): ${stderr}`));
    });
  });
}

describe.each(KINDS)("kill -9 during restores (%s store)", (kind) => {
  it("loses no acknowledged revision", async () => {
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "restore-crash-"));
    temps.push(tmp);
    const dir = path.join(tmp, "private");
    const usage = path.join(tmp, "usage.json");
    const url = kind === "postgres" && typeof cluster !== "string" ? await cluster.createDatabase() : null;
    const acknowledged = new Map<number, string>();
    for (const after of [8, 15, 23]) {
      for (const [revision, summary] of await runAndKill([dir, usage, ...(url === null ? [] : [url])], after)) acknowledged.set(revision, summary);
    }
    const stores = openStores({ dcc: "maya", privateDir: dir, usageFile: usage, storeUrl: url, historyLimit: 100_000 });
    opened.push(stores);
    await stores.store.startupProblem();
    const live = (await stores.store.loadOne("restored")).playbook!;
    expect(live.revision).toBeGreaterThanOrEqual(Math.max(...acknowledged.keys()));
    const lost: number[] = [];
    for (const [revision, summary] of acknowledged) {
      const kept = await stores.store.loadRevision("restored", revision);
      if (!kept.ok || kept.playbook.summary !== summary) lost.push(revision);
    }
    expect(lost).toEqual([]);
    const history = await stores.store.history("restored", { start: 0, limit: 100_000 });
    const revisions = history.ok ? history.page.entries.map((e) => e.revision) : [];
    expect(revisions).toEqual(Array.from({ length: live.revision }, (_, i) => live.revision - i));
    console.info(`kill -9 during restores (${kind}): ${acknowledged.size} acknowledged revisions across 3 kills, ${lost.length} lost`);
  }, 90_000);
});
