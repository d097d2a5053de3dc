/**
 * Skill roots in priority order (docs/configuration.md), compatible with dcc-mcp-core.
 * Pure: the caller passes env, home dir and platform.
 */
import path from "node:path";

interface SkillRootsInput {
  readonly dcc: string;
  /** `--skills-path` values, searched first. */
  readonly extraPaths: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  readonly platform: NodeJS.Platform;
}

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/** `$XDG_DATA_HOME` or `~/.local/share`; `%LOCALAPPDATA%` on Windows. */
export function resolveDataDir(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
  platform: NodeJS.Platform,
): string {
  const p = pathApi(platform);
  if (platform === "win32") {
    const local = env["LOCALAPPDATA"];
    return local ? p.resolve(local) : p.resolve(homeDir, "AppData", "Local");
  }
  const xdg = env["XDG_DATA_HOME"];
  // XDG says a relative value is invalid and must be ignored.
  return xdg && p.isAbsolute(xdg) ? p.resolve(xdg) : p.resolve(homeDir, ".local", "share");
}

/** `DCC_MCP_<DCC>_SKILL_PATHS`: upper-cased, every non-alphanumeric (notably `-`) → `_`. */
export function dccEnvName(dcc: string): string {
  return `DCC_MCP_${dcc.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_SKILL_PATHS`;
}

function splitPathList(value: string | undefined, platform: NodeJS.Platform): string[] {
  if (!value) return [];
  return value.split(platform === "win32" ? ";" : ":").map((s) => s.trim()).filter((s) => s !== "");
}

export function resolveSkillRoots(input: SkillRootsInput): string[] {
  const { dcc, env, homeDir, platform } = input;
  const p = pathApi(platform);
  const candidates: string[] = [
    ...input.extraPaths.filter((s) => s.trim() !== ""),
    ...splitPathList(env[dccEnvName(dcc)], platform),
    ...splitPathList(env["DCC_MCP_SKILL_PATHS"], platform),
  ];
  if (env["DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS"] !== "1") {
    const data = resolveDataDir(env, homeDir, platform);
    candidates.push(
      p.join(homeDir, ".dcc-mcp", dcc, "skills"),
      p.join(data, "dcc-mcp", "skills", dcc),
      p.join(data, "dcc-mcp", "skills"),
    );
  }
  const seen = new Set<string>();
  const roots: string[] = [];
  for (const c of candidates) {
    const expanded = c === "~" ? homeDir : c.startsWith("~/") || c.startsWith("~\\") ? p.join(homeDir, c.slice(2)) : c;
    const abs = p.resolve(expanded);
    const key = platform === "win32" ? abs.toLowerCase() : abs;
    if (seen.has(key)) continue;
    seen.add(key);
    roots.push(abs);
  }
  return roots;
}
