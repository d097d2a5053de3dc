/**
 * Private playbook store throughput, in-process against the store API (no
 * MCP, no HTTP): creates/s, updates/s and latency percentiles with 1 and 16
 * concurrent callers, on a temp dir under os.tmpdir(). Every write is
 * temp file + fsync + rename/link + directory fsync.
 *
 * Peer, measured in the same run on the same bytes and concurrency: a plain
 * `fs.writeFile` of the serialised playbook (no temp file, no fsync, no
 * re-read) — the cost of doing it unsafely. The ratio shows what crash
 * safety and re-reading the file on each update cost.
 *
 *   npm run bench:private-store [-- --ops 400]
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { serialisePlaybook } from "../src/recipes/store/format.js";
import { openPrivateStore, type PlaybookDraft, type PrivateStore } from "../src/recipes/store/store.js";
import { measureOps, type OpFigures } from "./lib/measure-ops.js";

const opsArg = process.argv.indexOf("--ops");
const OPS = opsArg > 0 ? Number(process.argv[opsArg + 1]) : 400;
const CONCURRENCY = [1, 16] as const;

function draft(i: number): PlaybookDraft {
  return {
    title: `Bench playbook ${i}`,
    summary: "Bake high-poly normals onto a low-poly cage without seams.",
    whenToUse: "A game asset needs a tangent-space normal map from a sculpt.",
    steps: Array.from({ length: 6 }, (_, k) => ({ title: `Step ${k}`, detail: `Do the ${k}th thing carefully. `.repeat(6) })),
    acceptanceCriteria: ["No seams on UV borders", "16-bit output", "Cage covers the high-poly mesh"],
    tags: ["maya", "baking", "normals"],
    document: `# Bench ${i}\n\n${"A paragraph of notes about the bake, with settings and caveats. ".repeat(60)}\n`,
  };
}

function ok<T extends { ok: boolean }>(result: T): T {
  if (!result.ok) throw new Error(`store call failed: ${JSON.stringify(result)}`);
  return result;
}

async function freshDir(label: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), `bench-private-${label}-`));
}

const rows: string[][] = [];
const row = (what: string, callers: number, store: OpFigures, peer: OpFigures): void => {
  rows.push([
    what,
    String(callers),
    store.opsPerSec.toFixed(0),
    store.p50.toFixed(2),
    store.p99.toFixed(2),
    peer.opsPerSec.toFixed(0),
    peer.p99.toFixed(2),
    (peer.opsPerSec / store.opsPerSec).toFixed(1),
  ]);
};

const cleanup: string[] = [];
try {
  const sample = serialisePlaybook({ ...draft(0), tags: draft(0).tags ?? [], slug: "x", createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), revision: 1 });
  console.log(`private-store bench: ${OPS} ops per cell, playbook file ~${(Buffer.byteLength(sample) / 1024).toFixed(1)} KiB, dir under ${os.tmpdir()}, node ${process.version}, ${os.cpus().length} cores`);
  console.log("in-process against the PrivateStore API; peer = plain fs.writeFile of the same bytes (no temp, no fsync, no re-read)\n");

  for (const callers of CONCURRENCY) {
    // Creates: distinct titles.
    const dir = await freshDir(`create-${callers}`);
    const peerDir = await freshDir(`peer-create-${callers}`);
    cleanup.push(dir, peerDir);
    const store: PrivateStore = openPrivateStore({ dir });
    const creates = await measureOps(OPS, callers, async (i) => {
      ok(await store.create(draft(i)));
    });
    const peerCreates = await measureOps(OPS, callers, async (i) => {
      await fs.writeFile(path.join(peerDir, `bench-playbook-${i}.md`), sample);
    });
    row("create (distinct titles)", callers, creates, peerCreates);

    // Creates of one title: every call after the first walks to a free suffix.
    const sameDir = await freshDir(`same-${callers}`);
    cleanup.push(sameDir);
    const sameStore = openPrivateStore({ dir: sameDir });
    const same = await measureOps(OPS, callers, async () => {
      ok(await sameStore.create(draft(0)));
    });
    row("create (one title)", callers, same, peerCreates);

    // Updates spread over 16 playbooks (different locks) …
    const spread = await measureOps(OPS, callers, async (i) => {
      ok(await store.update(`bench-playbook-${i % 16}`, { summary: `update ${i}` }));
    });
    const peerSpread = await measureOps(OPS, callers, async (i) => {
      await fs.writeFile(path.join(peerDir, `bench-playbook-${i % 16}.md`), sample);
    });
    row("update (16 playbooks)", callers, spread, peerSpread);

    // … and all on one playbook (one lock: callers queue).
    const one = await measureOps(OPS, callers, async (i) => {
      ok(await store.update("bench-playbook-0", { summary: `update ${i}` }));
    });
    const peerOne = await measureOps(OPS, callers, async () => {
      await fs.writeFile(path.join(peerDir, "bench-playbook-0.md"), sample);
    });
    row("update (1 playbook)", callers, one, peerOne);
  }

  const header = ["operation", "callers", "store ops/s", "p50 ms", "p99 ms", "peer ops/s", "peer p99 ms", "peer/store"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  console.log(fmt(header));
  for (const r of rows) console.log(fmt(r));

  // Cold load of everything the create cells wrote, by a fresh store.
  const loadDir = cleanup[0] as string;
  const t0 = performance.now();
  const loaded = await openPrivateStore({ dir: loadDir }).loadAll();
  const ms = performance.now() - t0;
  console.log(`\nloadAll (fresh store, cold parse): ${loaded.playbooks.length} playbooks in ${ms.toFixed(0)} ms (${((loaded.playbooks.length / ms) * 1000).toFixed(0)} files/s), ${loaded.diagnostics.length} diagnostics`);
} finally {
  await Promise.all(cleanup.map((d) => fs.rm(d, { recursive: true, force: true })));
}
