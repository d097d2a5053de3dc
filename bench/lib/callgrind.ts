/**
 * Driving valgrind's callgrind from inside the process it counts: switch
 * instrumentation on and off around a window, and read back the totals of
 * what it dumped.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Runs `args` of callgrind_control against this process, without blocking its event loop. */
export function control(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => execFile("callgrind_control", [...args, String(process.pid)], (error) => (error === null ? resolve() : reject(error))));
}

/** Sum of the instruction totals callgrind wrote for `prefix` (a dump per thread when it separates them). */
export function dumped(prefix: string): number {
  const dir = path.dirname(prefix);
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix)) && !f.endsWith(".base"))) {
    total += Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(path.join(dir, file), "utf8"))?.[1] ?? 0);
  }
  return total;
}
