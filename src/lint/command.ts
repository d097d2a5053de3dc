/**
 * `recipe-server lint [PATH ...]`: the pack author's check. Exit 0 clean,
 * 1 errors (or more warnings than --max-warnings), 2 usage.
 */
import { stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveSkillRoots } from "../skills/roots.js";
import { lintRoots } from "./engine.js";
import { formatGithub, formatJson, formatText } from "./format.js";

/** What a one-shot command (lint, paths, promote) reads and writes. */
export interface CommandIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

interface LintIo extends CommandIo {
  readonly isTTY: boolean;
}

const LINT_HELP = `recipe-server lint — check skill packs the way the server loads them

Usage:
  recipe-server lint [PATH ...] [options]

PATH is a skill directory (holds SKILL.md) or a skill root (its child
directories hold SKILL.md). Without PATH, lints the configured skill roots of
--dcc (or RECIPE_SERVER_DCC), as the server would find them.

Options:
  --dcc NAME            DCC whose configured skill roots to lint when no PATH is given
  --format F            text (default) | json | github
  --max-warnings N      exit 1 when there are more than N warnings (default: no limit)
  --no-color            plain text even on a terminal (NO_COLOR is honoured too)
  -h, --help            this text

Exit status: 0 clean, 1 errors or too many warnings, 2 usage error.
Rules and codes: docs/lint.md
`;

const OPTIONS = {
  dcc: { type: "string", multiple: true },
  format: { type: "string" },
  "max-warnings": { type: "string" },
  "no-color": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const FORMATS = ["text", "json", "github"] as const;
type Format = (typeof FORMATS)[number];
const DCC_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

class UsageError extends Error {}

interface Parsed {
  readonly help: boolean;
  readonly paths: string[];
  readonly dccs: string[];
  readonly format: Format;
  readonly maxWarnings: number | null;
  readonly color: boolean;
}

function parse(argv: readonly string[], io: LintIo): Parsed {
  let values: { dcc?: string[]; format?: string; "max-warnings"?: string; "no-color"?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true }));
  } catch (err) {
    throw new UsageError((err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "bad arguments");
  }
  const format = values.format ?? "text";
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got "${format}"`);
  }
  let maxWarnings: number | null = null;
  const rawMax = values["max-warnings"];
  if (rawMax !== undefined) {
    if (!/^\d{1,9}$/.test(rawMax.trim())) throw new UsageError(`--max-warnings must be a non-negative integer, got "${rawMax}"`);
    maxWarnings = Number(rawMax.trim());
  }
  const dccs = (values.dcc ?? (io.env["RECIPE_SERVER_DCC"] ?? "").split(",")).map((d) => d.trim().toLowerCase()).filter((d) => d !== "");
  for (const d of dccs) if (!DCC_NAME.test(d)) throw new UsageError(`--dcc "${d}" is not a valid DCC name (letters, digits, - and _)`);
  const noColor = values["no-color"] === true || (io.env["NO_COLOR"] ?? "") !== "";
  return {
    help: values.help === true,
    paths: positionals,
    dccs,
    format: format as Format,
    maxWarnings,
    color: io.isTTY && !noColor && format === "text",
  };
}

async function defaultRoots(dccs: readonly string[], io: LintIo): Promise<string[]> {
  const homeDir = io.env["HOME"] ?? io.env["USERPROFILE"] ?? os.homedir();
  const seen = new Set<string>();
  for (const dcc of dccs) {
    for (const r of resolveSkillRoots({ dcc, extraPaths: [], env: io.env, homeDir, platform: process.platform })) seen.add(r);
  }
  return [...seen];
}

export async function runLint(argv: readonly string[], io: LintIo): Promise<number> {
  let opts: Parsed;
  try {
    opts = parse(argv, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`recipe-server lint: ${err.message}\n`);
    return 2;
  }
  if (opts.help) {
    io.stdout.write(LINT_HELP);
    return 0;
  }

  let roots: string[];
  const explicit = opts.paths.length > 0;
  if (explicit) {
    roots = opts.paths.map((p) => path.resolve(io.cwd, p));
    for (let i = 0; i < roots.length; i++) {
      if (!(await stat(roots[i]!).catch(() => null))?.isDirectory()) {
        io.stderr.write(`recipe-server lint: ${opts.paths[i]} is not a directory\n`);
        return 2;
      }
    }
  } else {
    if (opts.dccs.length === 0) {
      io.stderr.write("recipe-server lint: give a PATH, or --dcc NAME to lint the configured skill roots\n");
      return 2;
    }
    roots = await defaultRoots(opts.dccs, io);
  }

  const report = await lintRoots(roots, { cwd: io.cwd, requireSkills: explicit });
  const { findings, stats } = report;
  switch (opts.format) {
    case "json":
      io.stdout.write(formatJson(findings));
      break;
    case "github":
      io.stdout.write(formatGithub(findings));
      break;
    case "text":
      io.stdout.write(formatText(findings, stats, opts.color));
      break;
  }

  if (!explicit && stats.skills === 0 && findings.length === 0) {
    io.stderr.write(`recipe-server lint: no skills found in the skill roots of --dcc ${opts.dccs.join(", ")}\n`);
    return 1;
  }
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.length - errors;
  if (errors > 0) return 1;
  if (opts.maxWarnings !== null && warnings > opts.maxWarnings) {
    io.stderr.write(`recipe-server lint: ${warnings} warnings exceed --max-warnings ${opts.maxWarnings}\n`);
    return 1;
  }
  return 0;
}
