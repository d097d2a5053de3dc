/**
 * What the catalog page is given by the composition root: the DCC libraries,
 * and (for validate, run and playbook history) a tool caller that takes the
 * same path as an MCP tools/call, whether a DCC can run, and where a user's
 * private playbooks live.
 */
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import type { RecipeToolContext } from "../tools/context.js";

export interface UiOptions {
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  readonly contextFor: (library: RecipeLibrary) => RecipeToolContext;
  /**
   * How `/ui/api/*` is guarded: "none" (no token: anyone who reaches the
   * page), "token" (the operator's --token), "users" (a users file; the
   * operator's --token may open the page too, as no user).
   */
  readonly auth?: UiAuth;
  /** Tool calls for the page's validate, run and playbook history; absent, the page only reads the catalog. */
  readonly callTool?: PageToolCaller;
  /** Whether a DCC can run recipes (a --dcc-endpoint) and whether its endpoint answers; null: it cannot. */
  readonly runStatus?: (dcc: string) => PageRunStatus | null;
  /** The library holding the private playbooks `user` owns on `dcc` (null user: the single user's, the DCC's library). */
  readonly playbooks?: (dcc: string, user: string | null) => Promise<RecipeLibrary | null>;
}

export type UiAuth = "none" | "token" | "users";

export interface PageRunStatus {
  readonly reachability: "unknown" | "answering" | "unavailable";
  readonly running: boolean;
  readonly queued: number;
}

/** One page call, as the MCP endpoint of `dcc` would see it from `user`. */
export interface PageCall {
  readonly dcc: string;
  readonly user: string | null;
  /** Aborted when the page's request goes away (a run then stops between steps and recovers). */
  readonly signal: AbortSignal;
}

/**
 * The whole envelope of a tool's answer, or why the call got none: `refused`
 * arguments (too large: the caller's fault), or not (the server's time limit).
 */
export type PageToolAnswer =
  | { readonly ok: true; readonly envelope: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly refused: boolean; readonly message: string };

export type PageToolCaller = (call: PageCall, tool: string, args: Record<string, unknown>) => Promise<PageToolAnswer>;
