/**
 * Driving valgrind's callgrind from inside the process it counts: switch
 * instrumentation on and off around a window, and read back the totals of
 * what it dumped.
 */
import { execFile, spawn } from "node:child_process";
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

/**
 * Runs `script` once per build under callgrind (instrumentation off until the
 * child's own `control("-i", "on")`), each as `--build SPEC --callgrind-child
 * PREFIX ...childArgs`, and reads the JSON line of figures it prints last.
 */
export async function countEachBuild(
  script: string,
  builds: readonly string[],
  workDir: string,
  childArgs: readonly string[],
  childStderr: "inherit" | "ignore",
): Promise<Array<{ name: string; figures: Record<string, number> }>> {
  const results: Array<{ name: string; figures: Record<string, number> }> = [];
  for (const spec of builds) {
    const prefix = path.join(workDir, `cg-${results.length}.out`);
    const child = spawn(
      "valgrind",
      ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${prefix}`, process.execPath, "--expose-gc", "--import", "tsx", script, "--build", spec, "--callgrind-child", prefix, ...childArgs],
      { stdio: ["ignore", "pipe", childStderr] },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => child.on("exit", resolve));
    results.push({ name: spec.split("=")[0]!, figures: JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Record<string, number> });
  }
  return results;
}
