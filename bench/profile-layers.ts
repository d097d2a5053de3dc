/**
 * bench/profile-layers.ts — where a server's CPU per call goes, per layer.
 *
 *   RECIPE_SERVER_BUNDLE_MAPS=1 npm run build
 *   npm run bench:server -- --starts 1 --concurrency 8 --cpu-prof /tmp/prof
 *   npx tsx bench/profile-layers.ts /tmp/prof
 *
 * Reads the `node --cpu-prof` profiles bench:server wrote and its
 * windows.json (each load cell's span on the monotonic clock V8 stamps
 * samples with), keeps each cell's samples, and charges every sample's self
 * time to a layer by the source file of its frame (through the bundle's
 * source map: dist/serve.js is one file). A frame without a file (a V8
 * builtin such as JSON.stringify, a native) is charged to the nearest caller
 * that has one: the layer that asked for the work pays for it. Prints µs of
 * CPU per call by layer for each era × cell (bare, search, get).
 */
import { readFileSync, readdirSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
interface Window {
  readonly era: string;
  /** Catalog size of the cell (bench/server.ts runs several). */
  readonly size: number;
  readonly cell: string;
  readonly pid: number;
  readonly startUs: number;
  readonly endUs: number;
  readonly calls: number;
  /** The process's CPU over the cell, from /proc (every thread). */
  readonly cpuMs: number;
}

/** Source path (repo-relative, or a package name) → layer; first match wins. */
const LAYERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^src\/server\/transport\/guard\./, "HTTP guard"],
  [/^src\/server\/transport\/argument-limits\./, "message checks"],
  [/^src\/server\/transport\/sessions\./, "session"],
  [/^src\/server\/transport\/modern-leg\./, "2026 leg glue"],
  [/^src\/server\/transport\//, "HTTP app (hooks, routing, hijack)"],
  [/^src\/server\/metrics\.|^prom-client|^tdigest|^bintrees/, "metrics"],
  [/^src\/cli\/logger\.|^pino|^sonic-boom|^thread-stream|^quick-format|^fast-redact|^on-exit-leak|^atomic-sleep|^safe-stable-stringify|^fast-safe-stringify/, "logging"],
  [/^src\/server\/tools\/registry\./, "registry"],
  [/^src\/jsonschema\//, "argument validation"],
  [/^src\/util\/stable-json\./, "result rendering"],
  [/^src\/server\/tools\/(envelope|structured|yaml-text)\./, "result rendering"],
  [/^src\/server\/protocol\/|^src\/compose\//, "MCP wiring (protocol servers, composition)"],
  [/^src\/server\/tools\//, "tool handlers"],
  [/^src\/(recipes|skills)\//, "catalog + search engine"],
  [/^src\//, "other src"],
  [/^@modelcontextprotocol\/sdk/, "SDK 1.32.2"],
  [/^zod/, "zod (SDK schemas)"],
  [/^@modelcontextprotocol\//, "SDK v2"],
  [/^(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify|fast-querystring|secure-json-parse|toad-cache|process-warning|abstract-logging|rfdc|ret|safe-regex2|fast-uri|json-schema-ref-resolver|fast-decode-uri-component)/, "fastify"],
  [/^node:internal\/deps\/undici|^node:internal\/webstreams|^node:internal\/(abort_controller|event_target)|^node:internal\/url|^node:url/, "web Request/Response (undici, streams)"],
  [/^node:/, "node http/net/streams"],
];

/** The file a bundle position came from, as a repo path or a package path. */
function sourceOf(frame: CallFrame, maps: Map<string, SourceMap | null>, root: string): string {
  const url = frame.url;
  if (url === "") return "";
  if (!url.startsWith("file://")) return url;
  const file = fileURLToPath(url);
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  let source = file;
  if (map !== null) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
    if (entry.originalSource !== undefined) source = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource);
  }
  const nm = source.lastIndexOf("node_modules/");
  if (nm !== -1) return source.slice(nm + "node_modules/".length);
  const relative = path.relative(root, source);
  // tsc's output stands for its source: dist/x.js is src/x.ts.
  return relative.startsWith("dist/") ? `src/${relative.slice(5)}` : relative;
}

function layerOf(source: string, name: string): string {
  if (source === "") {
    if (name === "(garbage collector)") return "GC";
    if (name === "(program)" || name === "(idle)") return "(program/idle)";
    return "";
  }
  for (const [pattern, layer] of LAYERS) if (pattern.test(source)) return layer;
  return "other packages";
}

const dir = process.argv[2];
if (dir === undefined) {
  console.error("usage: tsx bench/profile-layers.ts DIR (a bench:server --cpu-prof directory)");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const windows = JSON.parse(readFileSync(path.join(dir, "windows.json"), "utf8")) as Window[];
const maps = new Map<string, SourceMap | null>();
/** --detail LAYER: also the functions inside one layer, by self time. */
const detail = process.argv[3] === "--detail" ? process.argv[4] : undefined;
const detailOf = new Map<number, string>();
const detailTotals = new Map<string, Map<string, number>>();
/** size|era|cell → layer → µs */
const totals = new Map<string, Map<string, number>>();
const calls = new Map<string, number>();
const cpuUs = new Map<string, number>();
for (const w of windows) {
  const key = `${w.size}|${w.era}|${w.cell}`;
  calls.set(key, (calls.get(key) ?? 0) + w.calls);
  cpuUs.set(key, (cpuUs.get(key) ?? 0) + w.cpuMs * 1000);
}

for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const pid = Number(file.split(".")[3]);
  const mine = windows.filter((w) => w.pid === pid);
  if (mine.length === 0) continue;
  const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const layerOfNode = new Map<number, string>();
  detailOf.clear();
  const resolve = (id: number): string => {
    const known = layerOfNode.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const source = sourceOf(node.callFrame, maps, root);
    let layer = layerOf(source, node.callFrame.functionName);
    // Node's own JS (fs writes, stream plumbing) is charged to the layer that
    // called it; what the event loop itself runs (the HTTP parser, socket
    // reads and writes) has no such caller and stays node's.
    if (layer === "node http/net/streams" || layer === "") {
      const up = parent.get(id);
      const above = up === undefined ? undefined : resolve(up);
      if (above !== undefined && above !== "(program/idle)" && !above.startsWith("(")) layer = above;
      else if (layer === "") layer = "(native, no caller)";
    }
    if (detail !== undefined && layer === detail) detailOf.set(id, `${source}:${node.callFrame.functionName || "(anonymous)"}`);
    if (layer === "") {
      const up = parent.get(id);
      layer = up === undefined ? "(native, no caller)" : resolve(up);
    }
    layerOfNode.set(id, layer);
    return layer;
  };
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // The sample's time is charged from the previous sample to this one.
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const w = mine.find((x) => t >= x.startUs && t < x.endUs);
    if (w === undefined) continue;
    const layer = resolve(profile.samples[i]!);
    if (layer === "(program/idle)" && byId.get(profile.samples[i]!)!.callFrame.functionName === "(idle)") continue;
    const key = `${w.size}|${w.era}|${w.cell}`;
    const perLayer = totals.get(key) ?? new Map<string, number>();
    perLayer.set(layer, (perLayer.get(layer) ?? 0) + delta);
    totals.set(key, perLayer);
    const fn = detailOf.get(profile.samples[i]!);
    if (fn !== undefined) {
      const perFn = detailTotals.get(key) ?? new Map<string, number>();
      perFn.set(fn, (perFn.get(fn) ?? 0) + delta);
      detailTotals.set(key, perFn);
    }
  }
}

const keys = [...totals.keys()].sort();
const layers = [...new Set(keys.flatMap((k) => [...totals.get(k)!.keys()]))];
/**
 * V8 stamps samples with wall time: a main thread waiting for a core (2
 * cores, clients and other work beside it) charges that wait to whatever
 * it was running, most often a syscall that woke another thread. Each
 * layer's share of a cell's samples is therefore scaled to the cell's CPU
 * per call from /proc: the shares say where, /proc says how much.
 */
const sampled = (k: string): number => [...totals.get(k)!.values()].reduce((a, b) => a + b, 0);
const perCall = (k: string, layer: string): number => ((totals.get(k)!.get(layer) ?? 0) / Math.max(1, sampled(k))) * ((cpuUs.get(k) ?? 0) / Math.max(1, calls.get(k) ?? 0));
const sum = (k: string): number => (cpuUs.get(k) ?? 0) / Math.max(1, calls.get(k) ?? 0);
layers.sort((a, b) => keys.reduce((s, k) => s + perCall(k, b), 0) - keys.reduce((s, k) => s + perCall(k, a), 0));
const head = keys.map((k) => k.replace(/\|/g, " ").padStart(18)).join("");
console.log(`µs of CPU per call by layer: each layer's share of the cell's samples (self time; builtins and node's own JS charged to their caller) × the cell's CPU per call from /proc\n${"layer".padEnd(40)}${head}`);
for (const layer of layers) console.log(`${layer.padEnd(40)}${keys.map((k) => perCall(k, layer).toFixed(0).padStart(18)).join("")}`);
console.log(`${"total (/proc CPU per call)".padEnd(40)}${keys.map((k) => sum(k).toFixed(0).padStart(18)).join("")}`);
console.log(`${"calls".padEnd(40)}${keys.map((k) => String(calls.get(k) ?? 0).padStart(18)).join("")}`);
if (detail !== undefined) {
  for (const [key, perFn] of [...detailTotals.entries()].sort()) {
    console.log(`\n${detail}, ${key.replace(/\|/g, " ")}: µs per call by function`);
    for (const [fn, us] of [...perFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${((us / Math.max(1, sampled(key))) * ((cpuUs.get(key) ?? 0) / Math.max(1, calls.get(key) ?? 0))).toFixed(1).padStart(7)}  ${fn}`);
  }
}
