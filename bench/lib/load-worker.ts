/**
 * One load-generating thread of bench/server.ts: it holds its share of the
 * clients (connected once per target server) and runs closed-loop cells on
 * command, so that no one thread's event loop sets the pace of the servers.
 * Each cell reports its calls, errors, latencies and how busy this thread's
 * event loop was (near 1: the clients, not the server, were the cap).
 */
import { parentPort, workerData } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import { closeClients, connectClients, connectModernClients, runLoad, type LoadClient } from "./clients.js";
import { benchQueries, recipeName } from "./generate.js";

export interface LoadWorkerData {
  readonly era: "legacy" | "modern";
  readonly clients: number;
  /** This thread's first client's index among all threads' clients (spreads the calls). */
  readonly firstClient: number;
  readonly skills: number;
  readonly perSkill: number;
}

export type LoadCommand =
  | { readonly type: "connect"; readonly targets: Readonly<Record<string, string>> }
  | { readonly type: "run"; readonly target: string; readonly tool: "search" | "get"; readonly seconds: number; readonly round: number }
  | { readonly type: "close" };

export interface CellReport {
  readonly calls: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latencies: readonly number[];
  /** Event-loop utilisation of this thread during the cell, 0–1. */
  readonly elu: number;
}

const data = workerData as LoadWorkerData;
const queries = benchQueries(2000);
const connected = new Map<string, LoadClient[]>();

function call(tool: "search" | "get", client: number, iteration: number, round: number): { name: string; arguments: Record<string, unknown> } {
  const c = data.firstClient + client;
  const offset = round * 7919;
  if (tool === "search") return { name: "recipes__search", arguments: { query: queries[(c * 397 + iteration + offset) % queries.length]!, limit: 10 } };
  const skill = (c * 31 + iteration + offset) % data.skills;
  return { name: "recipes__get", arguments: { skill: `bench-skill-${skill}`, anchor: recipeName(skill, (iteration + round) % data.perSkill) } };
}

parentPort!.on("message", (command: LoadCommand) => {
  void (async () => {
    if (command.type === "connect") {
      for (const [name, url] of Object.entries(command.targets)) {
        connected.set(name, data.era === "modern" ? await connectModernClients(url, data.clients) : await connectClients(url, data.clients));
      }
      parentPort!.postMessage({ type: "connected" });
    } else if (command.type === "run") {
      const before = performance.eventLoopUtilization();
      const result = await runLoad(connected.get(command.target)!, command.seconds, (client, i) => call(command.tool, client, i, command.round));
      const elu = performance.eventLoopUtilization(before).utilization;
      const report: CellReport = { calls: result.calls, errors: result.errors, seconds: result.seconds, latencies: result.latencies, elu };
      parentPort!.postMessage({ type: "cell", report });
    } else {
      for (const clients of connected.values()) await closeClients(clients);
      parentPort!.postMessage({ type: "closed" });
    }
  })();
});
