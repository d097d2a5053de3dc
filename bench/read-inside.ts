/**
 * What reading a skill's files inside its directory costs (util/read-inside.ts:
 * open, then ask the kernel where the opened file is), against the peer
 * measured in the same run: readBounded, one open of the path as named,
 * which follows links anywhere.
 *
 * Files of 2 KiB, two directories below the skill directory (as recipe
 * packs under `recipes/<area>/`); rounds alternate the two readers so the
 * page cache and the machine's load treat both alike. Prints µs per file
 * and the ratio readInside / readBounded.
 *
 *   npx tsx bench/read-inside.ts [--files 2000 --rounds 6]
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readBounded } from "../src/util/read-bounded.js";
import { readInside } from "../src/util/read-inside.js";

const { values } = parseArgs({ options: { files: { type: "string" }, rounds: { type: "string" } }, args: process.argv.slice(2).filter((a) => a !== "--") });
const FILES = Number(values.files ?? 2000);
const ROUNDS = Number(values.rounds ?? 6);
const MAX = 1024 * 1024;

const skill = realpathSync(mkdtempSync(path.join(os.tmpdir(), "bench-read-inside-")));
const files: string[] = [];
for (let i = 0; i < FILES; i++) {
  const dir = path.join(skill, "recipes", `area${i % 20}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `pack${i}.yaml`);
  writeFileSync(file, "x".repeat(2048));
  files.push(file);
}

function time(read: (file: string) => boolean): number {
  const start = process.hrtime.bigint();
  for (const file of files) if (!read(file)) throw new Error(`not read: ${file}`);
  return Number(process.hrtime.bigint() - start) / 1000 / files.length;
}

const bounded: number[] = [];
const inside: number[] = [];
try {
  // One warm-up round each, not counted.
  time((f) => readBounded(f, MAX).ok);
  time((f) => readInside(skill, f, MAX).ok);
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      bounded.push(time((f) => readBounded(f, MAX).ok));
      inside.push(time((f) => readInside(skill, f, MAX).ok));
    } else {
      inside.push(time((f) => readInside(skill, f, MAX).ok));
      bounded.push(time((f) => readBounded(f, MAX).ok));
    }
  }
} finally {
  rmSync(skill, { recursive: true, force: true });
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const b = median(bounded);
const r = median(inside);
console.log(`${FILES} files × ${ROUNDS} rounds, median µs per file: readBounded ${b.toFixed(1)}, readInside ${r.toFixed(1)}; ratio ${(r / b).toFixed(2)}×`);
console.log(`per 1,000 files read: +${(r - b).toFixed(0)} ms`);
