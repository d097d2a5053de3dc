/**
 * `recipe-server paths --dcc NAME`: the first thing a TD runs when a skill
 * does not show up. Resolves the config exactly as the server does (config
 * file, environment, flags), loads each DCC's catalog the way the server
 * would (same discovery, loaders and DCC filter; no watcher, no embeddings),
 * and reports the skill roots in priority order, which exist, what each
 * gives, and the top diagnostics. Exit 0, or 2 for a usage error.
 */
import { pino } from "pino";
import { resolveConfig, type Config } from "../config/resolve.js";
import { openCatalogs } from "../compose/catalogs.js";
import type { CatalogSnapshot } from "../recipes/catalog/catalog.js";
import { printable } from "../lint/format.js";
import type { CommandIo } from "../lint/command.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { reportRoots, type RootReport } from "./roots-report.js";
import { McpDccConnection } from "../recipes/run/mcp-connection.js";
import { DEFAULT_RUN_LIMITS } from "../recipes/run/types.js";
import { packageVersion } from "../util/version.js";

const PATHS_HELP = `recipe-server paths — where the skills of a DCC come from

Usage:
  recipe-server paths --dcc NAME [--skills-path DIR]... [--config FILE] [--format text|json] [--top N]

Takes every option of the server (config file, environment and flags
resolve the same way) and prints, per DCC: the skill roots in priority order,
which of them exist, how many skills and recipes each gives, the private
playbooks directory, and the first N diagnostics (errors first; default 10).

Exit status: 0, or 2 for a usage error.
`;

export interface DccPathsReport {
  readonly dcc: string;
  readonly roots: readonly RootReport[];
  readonly privateDir: string;
  readonly privatePlaybooks: number;
  readonly skills: number;
  readonly recipes: number;
  readonly diagnostics: { readonly errors: number; readonly warnings: number; readonly top: readonly Diagnostic[] };
  /** recipes__run: the DCC's endpoint and whether it answered now (null: no --dcc-endpoint, recipes cannot run). */
  readonly run: { readonly endpoint: string; readonly answers: boolean; readonly tools: number; readonly problem?: string } | null;
}

const DEFAULT_TOP = 10;

export async function runPaths(argv: readonly string[], io: CommandIo): Promise<number> {
  const own = takeOwnOptions(argv);
  if (typeof own === "string") {
    io.stderr.write(`recipe-server paths: ${own}\n`);
    return 2;
  }
  if (own.help) {
    io.stdout.write(PATHS_HELP);
    return 0;
  }
  const resolved = resolveConfig({ argv: own.rest, env: io.env, cwd: io.cwd });
  if (resolved.kind === "help") {
    io.stdout.write(PATHS_HELP);
    return 0;
  }
  if (resolved.kind === "version" || resolved.kind === "error") {
    io.stderr.write(`recipe-server paths: ${resolved.kind === "error" ? resolved.message : "--version is not a paths option"}\n`);
    return 2;
  }
  const reports = await collect(resolved.config, own.top);
  io.stdout.write(own.format === "json" ? `${JSON.stringify({ dccs: reports }, null, 2)}\n` : formatPathsText(reports));
  return 0;
}

/** `--format` and `--top` are this command's; everything else is the server's. */
function takeOwnOptions(argv: readonly string[]): { format: "text" | "json"; top: number; help: boolean; rest: string[] } | string {
  let format: "text" | "json" = "text";
  let top = DEFAULT_TOP;
  let help = false;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (name === "--format" || name === "--top") {
      const value = inline ?? argv[++i];
      if (value === undefined) return `${name} needs a value`;
      if (name === "--format") {
        if (value !== "text" && value !== "json") return `--format must be text or json, got "${value}"`;
        format = value;
      } else {
        if (!/^\d{1,4}$/.test(value)) return `--top must be an integer from 0 to 9999, got "${value}"`;
        top = Number(value);
      }
    } else if (arg === "-h" || arg === "--help") {
      help = true;
    } else {
      rest.push(arg);
    }
  }
  return { format, top, help, rest };
}

async function collect(config: Config, top: number): Promise<DccPathsReport[]> {
  // The server's own loaders, minus what a one-shot report does not need.
  const quiet: Config = Object.freeze({ ...config, watch: false, embeddings: Object.freeze({ ...config.embeddings, kind: "none" as const }) });
  const catalogs = openCatalogs(quiet, pino({ level: "silent" }));
  try {
    const [runs] = await Promise.all([probeEndpoints(config), catalogs.load()]);
    return config.dccs.map((dcc) => ({
      ...report(dcc.name, dcc.skillRoots, dcc.privateDir, catalogs.libraries.get(dcc.name)?.current() ?? null, top),
      run: runs.get(dcc.name) ?? null,
    }));
  } finally {
    await catalogs.close();
  }
}

/** Each DCC endpoint asked once, within the connect bound recipes__run uses. */
async function probeEndpoints(config: Config): Promise<Map<string, NonNullable<DccPathsReport["run"]>>> {
  const out = new Map<string, NonNullable<DccPathsReport["run"]>>();
  await Promise.all(
    config.dccEndpoints.map(async (endpoint) => {
      const connection = new McpDccConnection(endpoint.dcc, endpoint, { name: "recipe-server paths", version: packageVersion() });
      try {
        const opened = await connection.open({ timeoutMs: DEFAULT_RUN_LIMITS.connectTimeoutMs });
        out.set(endpoint.dcc, opened.ok ? { endpoint: endpoint.url, answers: true, tools: opened.tools.size } : { endpoint: endpoint.url, answers: false, tools: 0, problem: opened.message });
      } finally {
        await connection.close();
      }
    }),
  );
  return out;
}

function report(dcc: string, roots: readonly string[], privateDir: string, snapshot: CatalogSnapshot | null, top: number): Omit<DccPathsReport, "run"> {
  const diagnostics = snapshot?.diagnostics ?? [];
  const errors = diagnostics.filter((d) => d.severity === "error");
  const warnings = diagnostics.filter((d) => d.severity !== "error");
  let privatePlaybooks = 0;
  for (const recipe of snapshot?.recipes.values() ?? []) if (recipe.visibility === "private") privatePlaybooks += 1;
  return {
    dcc,
    roots: reportRoots(roots, snapshot),
    privateDir,
    privatePlaybooks,
    skills: snapshot?.skills.size ?? 0,
    recipes: (snapshot?.recipes.size ?? 0) - privatePlaybooks,
    diagnostics: { errors: errors.length, warnings: warnings.length, top: [...errors, ...warnings].slice(0, top) },
  };
}

function formatPathsText(reports: readonly DccPathsReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`${r.dcc}: skill roots, searched in this order (a skill name found earlier wins)`);
    if (r.roots.length === 0) out.push("  (none configured)");
    for (const root of r.roots) {
      const counts = root.state === "found" ? `  ${root.skills ?? 0} skills, ${root.recipes ?? 0} recipes` : "";
      out.push(printable(`  ${root.index + 1}. ${root.path}  [${root.state}]${counts}`));
      if (root.state === "found" && root.skills === 0) {
        out.push("       nothing served from here: a skill is a directory with a SKILL.md, in the root or one level below, for this DCC (see diagnostics)");
      }
    }
    out.push(`  private playbooks: ${r.privateDir}  (${r.privatePlaybooks})`);
    out.push(`  served: ${r.skills} skills, ${r.recipes} public recipes; ${r.diagnostics.errors} errors, ${r.diagnostics.warnings} warnings`);
    if (r.run === null) out.push("  runs recipes: no (no --dcc-endpoint; recipes__apply hands out plans)");
    else if (r.run.answers) out.push(printable(`  runs recipes: yes, on ${r.run.endpoint} (answers; ${r.run.tools} tools)`));
    else out.push(printable(`  runs recipes: on ${r.run.endpoint}, which does not answer now: ${r.run.problem ?? "unavailable"}`));
    if (r.diagnostics.top.length > 0) {
      const shown = r.diagnostics.top.length;
      const total = r.diagnostics.errors + r.diagnostics.warnings;
      out.push(`  diagnostics${shown < total ? ` (first ${shown} of ${total}; --top N for more)` : ""}:`);
      for (const d of r.diagnostics.top) {
        const where = [d.skill, d.file !== undefined ? `${d.file}${d.line !== undefined ? `:${d.line}` : ""}` : undefined].filter(Boolean).join(" ");
        // Skill names, paths and messages come from pack files: no terminal escapes.
        out.push(printable(`    ${d.severity.padEnd(7)} ${d.code}  ${where ? `${where}: ` : ""}${d.message}`));
      }
    }
    out.push("");
  }
  return out.join("\n");
}
