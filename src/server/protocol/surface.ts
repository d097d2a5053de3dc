/**
 * The MCP surface of one endpoint, protocol-neutral: a table from method to
 * handler (plain params in, an Outcome out) for tools, resources, resource
 * templates, prompts and the Skills extension. The era installers
 * (legacy-server.ts for SDK 1.32.2 and the 2025 revisions, modern-server.ts
 * for the v2 SDK and 2026-07-28) register every entry as it is and map
 * outcomes to their SDK's errors once; a new method is one entry here.
 *
 * Recipes and skill files are one resource space: `skill://` URIs are the
 * Skills extension's, every other URI the catalog's (catalog-resources.ts),
 * and the first resources/list page leads with each served skill's SKILL.md.
 */
import { thenMaybe, type MaybePromise } from "../tools/maybe-promise.js";
import type { ToolCallResult } from "../tools/registry.js";
import { listResourcesFor, readResourceFor, type CatalogSource } from "./catalog-resources.js";
import { failure, INVALID_PARAMS, success, type Outcome } from "./outcome.js";
import type { PromptsProvider } from "./prompts/provider.js";
import type { SkillsProvider } from "./skills-extension/provider.js";
import { toolCall, type CallInfo, type ToolCallOptions } from "./tool-call.js";

export type { CallInfo } from "./tool-call.js";

export type Params = Readonly<Record<string, unknown>>;

/** One method's handler: synchronous when it can be (see tools/maybe-promise.ts). */
export type MethodHandler = (params: Params, call: CallInfo) => MaybePromise<Outcome<object>>;

/** Which MCP features the table serves: each era declares them in its own terms. */
export interface SurfaceFeatures {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly skills: boolean;
}

export interface Surface {
  readonly features: SurfaceFeatures;
  readonly methods: ReadonlyMap<string, MethodHandler>;
}

export interface SurfaceOptions<C> {
  /** tools/list and tools/call from a registry (absent: no tools). */
  readonly tools?: ToolCallOptions<C>;
  /** The catalog as resources (`recipe://`). */
  readonly catalog?: CatalogSource;
  /** Recipes as prompts. */
  readonly prompts?: PromptsProvider;
  /** The Skills extension; its files are resources beside the recipes (needs `catalog`). */
  readonly skills?: SkillsProvider;
}

export function createSurface<C>(options: SurfaceOptions<C>): Surface {
  const methods = new Map<string, MethodHandler>();
  const { tools, catalog, prompts, skills } = options;
  if (tools !== undefined) {
    const listed = success({ tools: tools.registry.list() });
    methods.set("tools/list", () => listed);
    methods.set("tools/call", (params, call): MaybePromise<Outcome<ToolCallResult>> => toolCall(tools, params, call));
  }
  if (catalog !== undefined) {
    methods.set("resources/list", (params, call) =>
      thenMaybe(listResourcesFor(catalog, params["cursor"], call.user), (recipes) => {
        if (skills === undefined || params["cursor"] !== undefined || !recipes.ok) return recipes;
        return success({ ...recipes.result, resources: [...skills.listResources(), ...recipes.result.resources] });
      }),
    );
    // Recipes have fixed URIs: no templates, but a declared `resources` owes the method an answer.
    const templates = success({ resourceTemplates: [] });
    methods.set("resources/templates/list", () => templates);
    methods.set("resources/read", (params, call) => {
      const uri = params["uri"];
      if (typeof uri !== "string") return failure(INVALID_PARAMS, "resources/read needs a string uri");
      if (skills?.handles(uri) === true) return skills.read(params);
      return readResourceFor(catalog, uri, call.user);
    });
  }
  if (prompts !== undefined) {
    methods.set("prompts/list", (params) => prompts.list(params));
    methods.set("prompts/get", (params) => prompts.get(params));
  }
  if (skills !== undefined && catalog !== undefined) {
    methods.set("skills/list", (params) => skills.list(params));
    methods.set("skills/get", (params) => skills.get(params));
    methods.set("resources/directory/read", (params) => skills.readDirectory(params));
  }
  for (const [method, handler] of methods) methods.set(method, checked(handler));
  return {
    features: { tools: tools !== undefined, resources: catalog !== undefined, prompts: prompts !== undefined, skills: skills !== undefined && catalog !== undefined },
    methods,
  };
}

/**
 * Params as every handler may assume them: an object, and a page cursor (on
 * any method) a string. Anything else is -32602 here, whatever the era,
 * before a handler or an SDK schema could answer it with -32603.
 */
function checked(handler: MethodHandler): MethodHandler {
  return (params, call) => {
    if (params === null || typeof params !== "object" || Array.isArray(params)) return failure(INVALID_PARAMS, "params must be an object");
    const cursor = params["cursor"];
    if (cursor !== undefined && typeof cursor !== "string") return failure(INVALID_PARAMS, "Invalid cursor: a cursor is a string from an earlier page's nextCursor");
    return handler(params, call);
  };
}
