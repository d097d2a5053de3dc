/**
 * The catalog page: `GET /` and `/ui/<dcc>` serve the page shell, `/ui/assets/*`
 * its script and style, and `/ui/api/*` a small JSON API over the DCC
 * libraries (search answers what recipes__search answers: the same handler
 * over the snapshot's own search, recipes/catalog/catalog.ts). Validate, run
 * and playbook history are in actions.ts.
 *
 * Auth: the shell and assets hold no catalog data, so they load without the
 * token (a browser cannot send a bearer header on navigation); every
 * `/ui/api/*` route sits behind the same guard as the MCP endpoints. Host
 * and Origin checks apply to all of them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import { recipesSearch } from "../tools/recipes-search.js";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { catalogView, recipeView } from "./view.js";
import { callerView, registerPageActions } from "./actions.js";
import type { UiOptions } from "./page-types.js";

export type { PageCall, PageRunStatus, PageToolAnswer, PageToolCaller, UiAuth, UiOptions } from "./page-types.js";

/** No inline script or style, nothing from elsewhere, no framing, no forms posting away. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
} as const;

const MAX_QUERY = 2000;
const SEARCH_LIMIT = 50;


/** Paths the token does not guard: the page shell and its static files (no catalog data). */
export function isPublicUiPath(path: string): boolean {
  return path === "/" || /^\/ui\/[a-z0-9][a-z0-9_-]{0,63}\/?$/.test(path) || /^\/ui\/assets\/[a-z0-9-]+\.[a-z]+$/.test(path);
}

export function registerCatalogUi(fastify: FastifyInstance, options: UiOptions, userOf: (request: FastifyRequest) => string | null = () => null): void {
  const assets = loadAssets();
  const { libraries } = options;
  const send = (reply: FastifyReply, status: number, body: unknown) =>
    reply.code(status).headers({ ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" }).send(JSON.stringify(body));
  const shell = (reply: FastifyReply) => {
    const page = assets.get("index.html");
    if (page === undefined) return send(reply, 404, { error: "not_found", message: "The catalog page was not built (npm run build)" });
    return reply.code(200).headers({ ...SECURITY_HEADERS, "content-type": page.contentType }).send(page.body);
  };
  const library = (dcc: string): RecipeLibrary | undefined => libraries.get(dcc);

  fastify.get("/", async (_request, reply) => shell(reply));
  fastify.get<{ Params: { dcc: string } }>("/ui/:dcc", async (request, reply) => {
    if (library(request.params.dcc) === undefined) return send(reply, 404, { error: "not_found", message: "No such DCC" });
    return shell(reply);
  });
  fastify.get<{ Params: { name: string } }>("/ui/assets/:name", async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (asset === undefined || request.params.name === "index.html") return send(reply, 404, { error: "not_found", message: "No such asset" });
    return reply.code(200).headers({ ...SECURITY_HEADERS, "content-type": asset.contentType }).send(asset.body);
  });

  fastify.get("/ui/api/dccs", async (_request, reply) =>
    send(reply, 200, { dccs: [...libraries.values()].map((l) => ({ dcc: l.dcc, revision: l.current()?.revision ?? 0, loaded: l.current() !== null })) }),
  );
  fastify.get<{ Params: { dcc: string } }>("/ui/api/:dcc/revision", async (request, reply) => {
    const lib = library(request.params.dcc);
    if (lib === undefined) return send(reply, 404, { error: "not_found", message: "No such DCC" });
    // The caller's own playbooks change without the catalog (a user's writes): the page polls both.
    const own = callerView(options, request.params.dcc, userOf(request)).playbooks.available ? await options.playbooks?.(request.params.dcc, userOf(request)) : null;
    const playbooks = own === null || own === undefined ? {} : { playbooksRevision: own.current()?.revision ?? 0 };
    return send(reply, 200, { revision: lib.current()?.revision ?? 0, loaded: lib.current() !== null, ...playbooks });
  });
  fastify.get<{ Params: { dcc: string } }>("/ui/api/:dcc/catalog", async (request, reply) => {
    const lib = library(request.params.dcc);
    if (lib === undefined) return send(reply, 404, { error: "not_found", message: "No such DCC" });
    const snapshot = lib.current();
    if (snapshot === null) return send(reply, 503, { error: "not_ready", message: "The catalog is still loading" });
    return send(reply, 200, catalogView(snapshot));
  });
  fastify.get<{ Params: { dcc: string }; Querystring: { id?: unknown } }>("/ui/api/:dcc/recipe", async (request, reply) => {
    const lib = library(request.params.dcc);
    if (lib === undefined) return send(reply, 404, { error: "not_found", message: "No such DCC" });
    const id = request.query.id;
    if (typeof id !== "string" || id.length === 0 || id.length > 1000) return send(reply, 400, { error: "invalid_input", message: "id: one recipe id is required" });
    const snapshot = lib.current();
    if (snapshot === null) return send(reply, 503, { error: "not_ready", message: "The catalog is still loading" });
    const view = recipeView(snapshot, id);
    return view === null ? send(reply, 404, { error: "not_found", message: "No such public recipe" }) : send(reply, 200, { revision: snapshot.revision, recipe: view });
  });
  fastify.get<{ Params: { dcc: string }; Querystring: { q?: unknown; skill?: unknown } }>("/ui/api/:dcc/search", async (request, reply) => {
    const lib = library(request.params.dcc);
    if (lib === undefined) return send(reply, 404, { error: "not_found", message: "No such DCC" });
    const { q, skill } = request.query;
    if (typeof q !== "string" || q.length > MAX_QUERY) return send(reply, 400, { error: "invalid_input", message: `q: one query of at most ${MAX_QUERY} characters is required` });
    if (skill !== undefined && (typeof skill !== "string" || skill.length === 0 || skill.length > 200)) {
      return send(reply, 400, { error: "invalid_input", message: "skill: at most one skill name" });
    }
    const args = { query: q, limit: SEARCH_LIMIT, ...(typeof skill === "string" ? { skill } : {}) };
    const envelope = await recipesSearch.handler(args, options.contextFor(lib));
    const status = envelope.success ? 200 : envelope.error === "not_ready" ? 503 : envelope.error === "not_found" ? 404 : 400;
    return send(reply, status, envelope);
  });
  registerPageActions(fastify, options, { send, userOf });
}

/**
 * The catalog page's static files, read once at start from the directory
 * beside this module: src/server/ui/static when run from the sources,
 * dist/server/ui/static as scripts/build-ui.mjs copies it. No CDN, nothing
 * fetched at run time.
 */

interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Asset name → file, or an empty map when the files are absent (the page then answers 404). */
function loadAssets(dir: URL = new URL("./static/", import.meta.url)): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  let names: string[];
  try {
    names = readdirSync(fileURLToPath(dir));
  } catch {
    return assets;
  }
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf("."));
    const contentType = TYPES[ext];
    if (contentType === undefined || !/^[a-z0-9-]+\.[a-z]+$/.test(name)) continue;
    assets.set(name, { body: readFileSync(new URL(name, dir)), contentType });
  }
  return assets;
}
