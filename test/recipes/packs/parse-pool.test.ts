/**
 * The parse pool from the TypeScript sources: its workers run the source
 * worker under tsx's loader (spawnParseWorker), so these tests exercise the
 * code in src/, never a stale build.
 */
import fs from "node:fs/promises";
import os, { availableParallelism } from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { parsePackFile, recordFromWire, type PackFileResult, type PackRecordWire, type ParseReply } from "../../../src/recipes/packs/parse-job.js";
import { createPackParser, inlineParser, parseWorkerCount, spawnParseWorker } from "../../../src/recipes/packs/parse-pool.js";
import { parsePack, readPackPart, type PackRecord } from "../../../src/recipes/packs/parsed-pack.js";

const pack = (n: number): string =>
  `recipes:\n  - name: r${n}\n    description: recipe ${n}\n    inputs_schema: { type: object, properties: { x: { type: number, minimum: ${n} } } }\n    steps: [{ tool: t${n} }]\n` +
  (n % 5 === 0 ? "  - name: broken\n    inputs_schema: { $dynamicRef: '#x' }\n" : "");

/** A record with its byte arrays as plain arrays: a thread hop may hand back another typed array. */
const plain = (record: PackRecord): unknown => ({ ...record, body: [...record.body], bodyOffsets: [...record.bodyOffsets], text: [...record.text] });

/** A file's outcome from the pool equals parsing it in place: same key and record, or the same failure. */
function expectSameAs(outcome: PackFileResult, reference: PackFileResult): void {
  if (outcome.kind !== "parsed" || reference.kind !== "parsed") {
    expect(outcome).toEqual(reference);
    return;
  }
  expect(outcome.key).toBe(reference.key);
  expect(plain(outcome.record)).toEqual(plain(reference.record));
}

/** Workers this process creates while `run` runs. */
async function created(run: () => void): Promise<Worker[]> {
  const workers: Worker[] = [];
  const onWorker = (worker: Worker): void => void workers.push(worker);
  process.on("worker", onWorker);
  try {
    run();
    // Node announces a new worker on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("worker", onWorker);
  }
  return workers;
}

describe("parse pool", () => {
  it("with no worker, parses in the calling thread", async () => {
    expect(createPackParser(0)).toBe(inlineParser);
    expect(await inlineParser.parse(pack(1), "p.yaml")).toEqual(parsePack(pack(1), "p.yaml"));
    expect(inlineParser.workers()).toBe(0);
  });

  it("gives exactly what parsing in the calling thread gives, for 200 packs in flight at once", async () => {
    const parser = createPackParser(2);
    try {
      const texts = Array.from({ length: 200 }, (_, i) => pack(i));
      const records = await Promise.all(texts.map((t, i) => parser.parse(t, `p${i}.yaml`)));
      expect(parser.workers()).toBe(2);
      records.forEach((record, i) => {
        expect(plain(record)).toEqual(plain(parsePack(texts[i]!, `p${i}.yaml`)));
        expect(readPackPart(record, 1)["name"]).toBe(`r${i}`);
      });
      expect(records.filter((r) => r.entries.some((e) => e.verdicts.input?.code === "dynamic_ref_unsupported")).length).toBe(40);
    } finally {
      await parser.close();
    }
  });

  it("reads, keys and parses files on the worker exactly as the calling thread does, failures included", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pool-files-"));
    const parser = createPackParser(1);
    try {
      const names: string[] = [];
      for (let i = 0; i < 40; i++) {
        names.push(`p${i}.yaml`);
        await fs.writeFile(path.join(dir, `p${i}.yaml`), i === 7 ? Buffer.from([0xc3, 0x28]) : pack(i));
      }
      names.push("missing.yaml");
      await fs.mkdir(path.join(dir, "dir.yaml"));
      names.push("dir.yaml");
      parser.prestart();
      const outcomes = await Promise.all(names.map((n) => parser.parseFile(dir, path.join(dir, n), n, "fp")));
      outcomes.forEach((outcome, i) => expectSameAs(outcome, parsePackFile(dir, path.join(dir, names[i]!), names[i]!, "fp")));
      expect(outcomes.map((o) => o.kind).filter((k) => k !== "parsed")).toEqual(["not_utf8", "unreadable", "unreadable"]);
      await parser.close();
      // Once closed, the calling thread does the same work.
      expect((await parser.parseFile(dir, path.join(dir, "p1.yaml"), "p1.yaml", "fp")).kind).toBe("parsed");
    } finally {
      await parser.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("parses a stopped worker's packs in the calling thread, asked before or after it stopped", async () => {
    const warnings: string[] = [];
    const parser = createPackParser(1, { logger: { warn: (_, msg) => warnings.push(msg) } });
    try {
      const [worker] = await created(() => parser.prestart());
      const texts = Array.from({ length: 60 }, (_, i) => pack(i));
      const first = texts.slice(0, 30).map((t, i) => parser.parse(t, `p${i}.yaml`));
      await worker!.terminate();
      const rest = texts.slice(30).map((t, i) => parser.parse(t, `p${i + 30}.yaml`));
      const records = await Promise.all([...first, ...rest]);
      records.forEach((record, i) => expect(plain(record)).toEqual(plain(parsePack(texts[i]!, `p${i}.yaml`))));
      expect(warnings).toEqual(["parse worker stopped; parsing continues without it"]);
    } finally {
      await parser.close();
    }
  });

  it("starts no worker until asked, and stops the ones it started on close", async () => {
    const untouched = createPackParser(2);
    expect(untouched.workers()).toBe(0);
    await untouched.close();
    const parser = createPackParser(1);
    const [worker] = await created(() => void parser.parse(pack(1), "a.yaml"));
    const exited = new Promise((resolve) => worker!.once("exit", resolve));
    await parser.close();
    await exited;
    const after = await parser.parse(pack(2), "b.yaml");
    expect(after.entries[0]!.name).toBe("r2");
  });
});

describe("parse threads", () => {
  it("counts one worker fewer than the cores, at most the maximum asked", () => {
    expect(parseWorkerCount()).toBe(Math.max(0, Math.min(3, availableParallelism() - 1)));
    expect(parseWorkerCount(0)).toBe(0);
    expect(parseWorkerCount(1)).toBe(Math.min(1, availableParallelism() - 1));
  });

  it("starts the source worker, which answers a request it is handed", async () => {
    const worker = spawnParseWorker();
    try {
      const reply = await new Promise<ParseReply>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
        worker.postMessage({ id: 7, kind: "text", text: "recipes:\n  - name: a\n    steps: []\n", file: "p.yaml" });
      });
      expect(reply.id).toBe(7);
      expect(recordFromWire(reply.value as PackRecordWire).entries.map((e) => e.name)).toEqual(["a"]);
    } finally {
      await worker.terminate();
    }
  });
});
