/**
 * The catalog page's actions beyond reading the catalog: what this caller
 * may do (`me`), validating a YAML recipe's inputs, dry-running and running
 * it on the DCC, and the caller's own private playbooks with their history
 * (read-only). Every one is a tool call through the same path as an MCP
 * tools/call on the DCC's endpoint (recipes__validate, recipes__run, the
 * `recipe` tool's history and get-at-revision), with the same user: the
 * same engine, gate and queue, log line, metrics and per-user isolation.
 *
 * Who may run: a caller holding the server's token. A server without one
 * serves the page to anyone who reaches it, so the page runs nothing there;
 * with a users file a run is recorded per user, so it needs a user's token.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import { readRecipeUsage, type RecipeUsage } from "../../recipes/catalog/usage-report.js";
import type { PageCall, PageRunStatus, UiOptions } from "./page-types.js";
import { MAX_NESTING, nestsDeeperThan } from "../transport/argument-limits.js";

const MAX_ID = 1000;
const HISTORY_WINDOW = 50;

interface PageActionHelpers {
  readonly send: (reply: FastifyReply, status: number, body: unknown) => unknown;
  readonly userOf: (request: FastifyRequest) => string | null;
}

/** What the page may offer this caller on this DCC, and why not where it may not. */
interface CallerView {
  readonly auth: "none" | "token" | "users";
  readonly user: string | null;
  readonly run: { readonly available: boolean; readonly reason: string | null; readonly endpoint: PageRunStatus | null };
  readonly playbooks: { readonly available: boolean; readonly reason: string | null };
}

export function callerView(options: UiOptions, dcc: string, user: string | null): CallerView {
  const auth = options.auth ?? "none";
  const endpoint = options.runStatus?.(dcc) ?? null;
  let runReason: string | null = null;
  if (options.callTool === undefined) runReason = "This server's page only reads the catalog.";
  else if (endpoint === null) runReason = `${dcc} has no --dcc-endpoint: recipes cannot run on it (recipes__apply returns the steps for an agent to run).`;
  else if (auth === "none") runReason = "Runs from this page need the server's token (--token or --users-file): without one, anyone who reaches the page could change the scene.";
  else if (auth === "users" && user === null) runReason = "Runs are recorded per user: open the page with a user's token from the users file.";
  let playbookReason: string | null = null;
  if (options.callTool === undefined || options.playbooks === undefined) playbookReason = "This server's page shows no private playbooks.";
  else if (auth === "none") playbookReason = "Private playbooks are shown only to a holder of the server's token (--token or --users-file).";
  else if (auth === "users" && user === null) playbookReason = "Private playbooks belong to users: open the page with a user's token from the users file.";
  return {
    auth,
    user,
    run: { available: runReason === null, reason: runReason, endpoint },
    playbooks: { available: playbookReason === null, reason: playbookReason },
  };
}

type Body = Record<string, unknown>;

function isPlainObject(value: unknown): value is Body {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A signal aborted when the page's request goes away before its answer is written. */
function requestSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new Error("the page's request went away"));
  });
  return controller.signal;
}

export function registerPageActions(fastify: FastifyInstance, options: UiOptions, helpers: PageActionHelpers): void {
  const { send, userOf } = helpers;
  const library = (dcc: string): RecipeLibrary | undefined => options.libraries.get(dcc);
  const noSuchDcc = (reply: FastifyReply) => send(reply, 404, { error: "not_found", message: "No such DCC" });
  const callTool = options.callTool;

  fastify.get<{ Params: { dcc: string } }>("/ui/api/:dcc/me", async (request, reply) => {
    if (library(request.params.dcc) === undefined) return noSuchDcc(reply);
    return send(reply, 200, callerView(options, request.params.dcc, userOf(request)));
  });

  /** The public YAML recipe a body's `recipeId` names, as recipes__* tools name it (skill + recipe). */
  const structured = (dcc: string, body: Body): { skill: string; recipe: string } | string => {
    const id = body["recipeId"];
    if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID) return "recipeId: one recipe id is required";
    const found = library(dcc)?.current()?.recipes.get(id);
    if (found === undefined || found.visibility !== "public") return `recipeId: no public recipe ${JSON.stringify(id.slice(0, 200))}`;
    if (found.format !== "yaml") return `recipeId: ${found.recipeId} is a Markdown anchor; only YAML recipes take inputs`;
    return { skill: found.skill, recipe: found.name };
  };

  const toolAnswer = async (reply: FastifyReply, call: PageCall, tool: string, args: Record<string, unknown>) => {
    if (callTool === undefined) return send(reply, 404, { error: "not_found", message: "This server's page only reads the catalog" });
    // The bound MCP bodies get before any walk (transport/argument-limits.ts): deeper inputs would overflow one.
    if (nestsDeeperThan(args["inputs"], MAX_NESTING)) return send(reply, 400, { error: "invalid_input", message: `inputs: nest deeper than ${MAX_NESTING} levels (the server's limit)` });
    const answer = await callTool(call, tool, args);
    // The envelope says how the call went (success, error, context); HTTP says only that the page asked well.
    if (answer.ok) return send(reply, 200, answer.envelope);
    return answer.refused ? send(reply, 400, { error: "invalid_input", message: answer.message }) : send(reply, 500, { error: "internal", message: answer.message });
  };

  fastify.post<{ Params: { dcc: string } }>("/ui/api/:dcc/validate", async (request, reply) => {
    const dcc = request.params.dcc;
    if (library(dcc) === undefined) return noSuchDcc(reply);
    const body = request.body;
    if (!isPlainObject(body) || !Object.hasOwn(body, "inputs")) return send(reply, 400, { error: "invalid_input", message: "body: {recipeId, inputs} is required" });
    const target = structured(dcc, body);
    if (typeof target === "string") return send(reply, 400, { error: "invalid_input", message: target });
    return toolAnswer(reply, { dcc, user: userOf(request), signal: requestSignal(reply) }, "recipes__validate", { ...target, inputs: body["inputs"] });
  });

  fastify.post<{ Params: { dcc: string } }>("/ui/api/:dcc/run", async (request, reply) => {
    const dcc = request.params.dcc;
    if (library(dcc) === undefined) return noSuchDcc(reply);
    const user = userOf(request);
    const view = callerView(options, dcc, user);
    if (!view.run.available) return send(reply, 403, { error: "forbidden", message: view.run.reason });
    const body = request.body;
    if (!isPlainObject(body) || !Object.hasOwn(body, "inputs")) return send(reply, 400, { error: "invalid_input", message: "body: {recipeId, inputs, dryRun?, confirm?} is required" });
    for (const flag of ["dryRun", "confirm"]) {
      if (body[flag] !== undefined && typeof body[flag] !== "boolean") return send(reply, 400, { error: "invalid_input", message: `${flag}: true or false` });
    }
    const target = structured(dcc, body);
    if (typeof target === "string") return send(reply, 400, { error: "invalid_input", message: target });
    const args = { ...target, inputs: body["inputs"], dryRun: body["dryRun"] === true, confirm: body["confirm"] === true };
    return toolAnswer(reply, { dcc, user, signal: requestSignal(reply) }, "recipes__run", args);
  });

  /** The caller's playbooks library, or the answer saying why there is none. */
  const playbooksFor = async (request: FastifyRequest<{ Params: { dcc: string } }>, reply: FastifyReply): Promise<{ own: RecipeLibrary; user: string | null } | null> => {
    const dcc = request.params.dcc;
    if (library(dcc) === undefined) {
      noSuchDcc(reply);
      return null;
    }
    const user = userOf(request);
    const view = callerView(options, dcc, user);
    const own = view.playbooks.available ? await options.playbooks?.(dcc, user) : null;
    if (own === null || own === undefined) {
      send(reply, 403, { error: "forbidden", message: view.playbooks.reason ?? "No private playbooks here" });
      return null;
    }
    return { own, user };
  };

  fastify.get<{ Params: { dcc: string } }>("/ui/api/:dcc/playbooks", async (request, reply) => {
    const found = await playbooksFor(request, reply);
    if (found === null) return reply;
    const playbooks = [];
    for (const recipe of found.own.current()?.recipes.values() ?? []) {
      if (recipe.format !== "private") continue;
      const p = recipe.playbook;
      playbooks.push({ recipeId: recipe.recipeId, title: p.title, summary: p.summary, revision: p.revision, updatedAt: p.updatedAt });
    }
    playbooks.sort((a, b) => (a.recipeId < b.recipeId ? -1 : a.recipeId > b.recipeId ? 1 : 0));
    return send(reply, 200, { user: found.user, playbooks });
  });

  /**
   * Usage of the recipes this caller sees (what recipes__list shows for a
   * skill, for the whole catalog): public recipes' totals (and, for a user,
   * their own share), and their own playbooks' where the page shows those.
   */
  fastify.get<{ Params: { dcc: string } }>("/ui/api/:dcc/usage", async (request, reply) => {
    const dcc = request.params.dcc;
    const lib = library(dcc);
    if (lib === undefined) return noSuchDcc(reply);
    const snapshot = lib.current();
    if (snapshot === null) return send(reply, 503, { error: "not_ready", message: "The catalog is still loading" });
    const user = userOf(request);
    const own = callerView(options, dcc, user).playbooks.available ? ((await options.playbooks?.(dcc, user)) ?? null) : null;
    const ids: string[] = [];
    for (const recipe of snapshot.recipes.values()) if (recipe.visibility === "public") ids.push(recipe.recipeId);
    for (const recipe of own?.current()?.recipes.values() ?? []) if (recipe.visibility === "private") ids.push(recipe.recipeId);
    const caller = user !== null && own !== null && own !== lib ? { user, playbooks: own } : undefined;
    const reading = await readRecipeUsage({ library: lib, ...(caller !== undefined ? { caller } : {}) }, ids);
    const recipes: Record<string, RecipeUsage> = {};
    for (const [id, usage] of reading.recipes) recipes[id] = usage;
    return send(reply, 200, { asOf: reading.asOf, complete: reading.complete, user: caller?.user ?? null, recipes });
  });

  const privateId = (value: unknown): string | null =>
    typeof value === "string" && value.startsWith("private/") && value.length > "private/".length && value.length <= MAX_ID ? value : null;
  const count = (value: unknown, min: number): number | null => {
    if (typeof value !== "string" || !/^\d{1,9}$/.test(value)) return null;
    const n = Number(value);
    return n >= min ? n : null;
  };

  /** A `recipe` tool call on one of the caller's own playbooks (the query's `id`); `rest`: its other arguments, or what is wrong with the query. */
  const onOwnPlaybook = async (request: FastifyRequest<{ Params: { dcc: string }; Querystring: { id?: unknown } }>, reply: FastifyReply, rest: Body | string) => {
    const found = await playbooksFor(request, reply);
    if (found === null) return reply;
    const id = privateId(request.query.id);
    if (id === null) return send(reply, 400, { error: "invalid_input", message: "id: one private playbook id (private/<slug>) is required" });
    if (typeof rest === "string") return send(reply, 400, { error: "invalid_input", message: rest });
    return toolAnswer(reply, { dcc: request.params.dcc, user: found.user, signal: requestSignal(reply) }, "recipe", { ...rest, recipeId: id });
  };

  fastify.get<{ Params: { dcc: string }; Querystring: { id?: unknown; start?: unknown } }>("/ui/api/:dcc/playbook/history", async (request, reply) => {
    const start = request.query.start === undefined ? 0 : count(request.query.start, 0);
    return onOwnPlaybook(request, reply, start === null ? "start: an integer >= 0" : { action: "history", start, limit: HISTORY_WINDOW });
  });

  fastify.get<{ Params: { dcc: string }; Querystring: { id?: unknown; revision?: unknown } }>("/ui/api/:dcc/playbook/revision", async (request, reply) => {
    const revision = count(request.query.revision, 1);
    return onOwnPlaybook(request, reply, revision === null ? "revision: an integer >= 1" : { action: "get", revision });
  });
}
