/**
 * `recipe-server promote private/<slug> --to <skill dir>`: a private playbook
 * that proved itself becomes a public recipe of a skill pack, through the
 * file the daemon's hot reload picks up.
 *
 * The checks before anything is written (staged copy, loader globs, lint,
 * exclusive create) are promote.ts's.
 *
 * Exit 0 promoted, 1 refused (one line saying why), 2 usage error.
 */
import path from "node:path";
import { resolveConfig, type Config } from "../config/resolve.js";
import type { DccConfig } from "../config/types.js";
import type { CommandIo } from "../lint/command.js";
import { printable } from "../lint/format.js";
import { isValidSlug } from "../recipes/store/slug.js";
import { promotePlaybook } from "./promote.js";

const PROMOTE_HELP = `recipe-server promote — a private playbook becomes a recipe of a skill pack

Usage:
  recipe-server promote private/<slug> --to SKILL_DIR [--revision N] [--user ID] [--dcc NAME] [server options]

Reads the playbook (its latest revision, or revision N of its history) from
the DCC's playbook store (--private-dir, --store and --config resolve as for
the server) and writes it into SKILL_DIR, a skill directory (with SKILL.md)
of one of the DCC's skill roots: a Markdown recipe <slug>.md, or a YAML pack
<slug>.yaml when the playbook's document is a recipe entry (inputs_schema,
output_contract or tool steps). The file goes where the skill's
metadata.dcc-mcp.recipes glob picks it up, is linted with the skill before
it is written, and records the playbook and revision it came from.
With --users-file, --user ID names whose playbook it is.

Refuses (exit 1) when the playbook or skill is missing, the file or a recipe
of that name exists, no recipe glob of the skill takes a new file, or lint
finds an error. Exit 0 promoted, 2 usage error.
`;

interface OwnOptions {
  readonly id: string | undefined;
  readonly to: string | undefined;
  readonly revision: number | undefined;
  readonly user: string | undefined;
  readonly help: boolean;
  readonly rest: string[];
}

export async function runPromote(argv: readonly string[], io: CommandIo): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`recipe-server promote: ${printable(message)}\n`);
    return 2;
  };
  const own = takeOwnOptions(argv);
  if (typeof own === "string") return usage(own);
  if (own.help) {
    io.stdout.write(PROMOTE_HELP);
    return 0;
  }
  if (own.id === undefined) return usage("name the playbook: promote private/<slug> --to SKILL_DIR");
  const match = /^private\/(.*)$/s.exec(own.id);
  if (match === null || !isValidSlug(match[1]!)) return usage(`"${own.id}" is not a playbook id (private/<slug>: lowercase a-z, 0-9 and single dashes)`);
  if (own.to === undefined) return usage("--to SKILL_DIR is required");
  const resolved = resolveConfig({ argv: own.rest, env: io.env, cwd: io.cwd });
  if (resolved.kind === "help") {
    io.stdout.write(PROMOTE_HELP);
    return 0;
  }
  if (resolved.kind !== "serve") return usage(resolved.kind === "error" ? resolved.message : "--version is not a promote option");
  const dcc = pickDcc(resolved.config);
  if (typeof dcc === "string") return usage(dcc);
  if (resolved.config.usersFile !== null && own.user === undefined) return usage("with --users-file every playbook is a user's: name the user with --user ID");
  if (resolved.config.usersFile === null && own.user !== undefined) return usage("--user needs --users-file (without it there is one user)");
  const outcome = await promotePlaybook({ dcc, slug: match[1]!, revision: own.revision, user: own.user, skillDir: path.resolve(io.cwd, own.to), historyLimit: resolved.config.limits.historyLimit });
  if (outcome.ok) {
    io.stdout.write(`${printable(`promoted ${outcome.from} revision ${outcome.revision} to ${outcome.recipeId} (${outcome.format}, ${outcome.file})`)}\n`);
    return 0;
  }
  for (const line of [outcome.message, ...outcome.findings.map((f) => `  ${f.file}${f.line !== undefined ? `:${f.line}` : ""}: ${f.code}: ${f.message}`)]) io.stderr.write(`recipe-server promote: ${printable(line)}\n`);
  return 1;
}

/** `--to`, `--revision` and the playbook id are this command's; everything else is the server's. */
function takeOwnOptions(argv: readonly string[]): OwnOptions | string {
  let id: string | undefined;
  let to: string | undefined;
  let revision: number | undefined;
  let user: string | undefined;
  let help = false;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const [name, inline] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (name === "--to" || name === "--revision" || name === "--user") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "" || (inline === undefined && value.startsWith("-"))) return `${name} needs a value`;
      if (name === "--to") {
        if (to !== undefined) return "--to is given twice";
        to = value;
      } else if (name === "--user") {
        // A users-file id, which is also a directory name under the private dir.
        if (!USER_ID.test(value)) return `--user must be a users-file id (1–64 of a-z 0-9 . _ - starting with a letter or digit), got "${value}"`;
        user = value;
      } else {
        if (!/^[1-9]\d{0,14}$/.test(value)) return `--revision must be a positive integer, got "${value}"`;
        revision = Number(value);
      }
    } else if (arg === "-h" || arg === "--help") {
      help = true;
    } else if (!arg.startsWith("-")) {
      if (id !== undefined) return `one playbook at a time (got "${id}" and "${arg}")`;
      id = arg;
    } else {
      rest.push(arg);
      // The server's options that take a value: keep the value with its flag.
      if (eq < 0 && !BOOLEAN_FLAGS.has(arg) && argv[i + 1] !== undefined) rest.push(argv[++i]!);
    }
  }
  return { id, to, revision, user, help, rest };
}

const USER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const BOOLEAN_FLAGS = new Set(["--insecure-no-auth", "--stateless", "--no-watch", "--allow-promote", "-v", "-V", "--version"]);

function pickDcc(config: Config): DccConfig | string {
  if (config.dccs.length === 1) return config.dccs[0]!;
  return `name one DCC (--dcc): the playbook stores of ${config.dccs.map((d) => d.name).join(", ")} are separate`;
}

