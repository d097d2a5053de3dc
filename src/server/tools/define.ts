/**
 * What a tool is, independent of any transport: a name, a Draft 2020-12 input
 * schema the registry validates before the handler runs (and the TypeScript
 * type of the arguments it lets through), MCP annotations, and a handler
 * returning the result envelope as data, synchronously when it can.
 */
import type { Envelope } from "./envelope.js";

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** A tool's input schema; an `objectSchema` literal gives its handler typed arguments. */
export type ToolSchema = Readonly<Record<string, unknown>>;

/** The arguments a tool of schema `S` is called with (after the registry validated them). */
export type ToolArgs<S extends ToolSchema> = S extends { readonly properties: unknown } ? ValueOf<S> : Readonly<Record<string, unknown>>;

export interface ToolDefinition<C, S extends ToolSchema = ToolSchema> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Advertised and enforced; includes resultStart/resultEnd. */
  readonly inputSchema: S;
  readonly annotations: ToolAnnotations;
  /** Answers synchronously when it can (see MaybePromise). */
  handler(args: ToolArgs<S>, context: C): MaybePromise<Envelope>;
  /**
   * The handler keeps answers it gives again (each deep-frozen, revision
   * included): the registry renders such an answer once and hands every
   * call the same frozen structuredContent (see registry.ts).
   */
  readonly keepsAnswers?: true;
}

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** The window fields every tool accepts (docs/tools.md). */
const WINDOW_PROPERTIES = {
  resultStart: {
    type: "integer",
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 0,
    description: "First character offset to return. Use 0 for the first call.",
  },
  resultEnd: {
    type: "integer",
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 8000,
    description:
      "Exclusive end offset. resultEnd - resultStart must be at most 8000. Increment resultStart by 8000 to page through large results.",
  },
} as const;

// A type, not an interface: only a type is assignable to ToolSchema's index signature.
type ObjectSchema<P, R extends string, Open extends boolean> = {
  readonly $schema: string;
  readonly type: "object";
  readonly properties: P & typeof WINDOW_PROPERTIES;
  readonly required?: readonly R[];
  /** `Open | false`: what the option gives when set, and its default when not. */
  readonly additionalProperties: Open | false;
};

/** An object schema with the window fields added and unknown fields refused (unless `additionalProperties`). */
export function objectSchema<const P extends Readonly<Record<string, object>>, const R extends keyof P & string = never, Open extends boolean = false>(
  properties: P,
  required: readonly R[] = [],
  options: { additionalProperties?: Open } = {},
): ObjectSchema<P, R, Open> {
  return {
    $schema: DRAFT_2020_12,
    type: "object",
    properties: { ...properties, ...WINDOW_PROPERTIES },
    ...(required.length > 0 ? { required: [...required] } : {}),
    additionalProperties: options.additionalProperties ?? false,
  };
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * A value now, or later. A tool call whose handler answers synchronously stays
 * synchronous up to the SDK: every `await` on the way costs microtask turns,
 * and the SDK's HTTP adapter (@hono/node-server) writes an answer together with
 * its headers, in one write and with a Content-Length, only if the answer is
 * there within a few turns of the request being dispatched. Later than that it
 * sends the headers alone and streams the body chunked: two more writes per
 * call, and a response the client reads in pieces.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Only native promises: the values passed through here are our own, never thenables. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** `next(value)` now when `value` is here, else once it settles. */
export function thenMaybe<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(next) : next(value);
}

/**
 * The TypeScript type of the value a JSON Schema literal (`as const`) accepts,
 * for the keywords tool schemas use: type string/integer/number/boolean/
 * array/object, enum, items, properties, required, additionalProperties.
 * The registry validates arguments against the schema before a handler
 * runs, so the derived type is what the handler really receives.
 */

/** What a schema without a keyword below accepts (`inputs`, `target`): anything. */
export type ValueOf<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly type: "string" }
    ? string
    : S extends { readonly type: "integer" | "number" }
      ? number
      : S extends { readonly type: "boolean" }
        ? boolean
        : S extends { readonly type: "array"; readonly items: infer I }
          ? readonly ValueOf<I>[]
          : S extends { readonly type: "object"; readonly properties: infer P }
            ? ObjectOf<P, RequiredOf<S>, S extends { readonly additionalProperties: false } ? false : true>
            : unknown;

/** The names in `required` (none when the keyword is absent). */
type RequiredOf<S> = S extends { readonly required?: infer R } ? (R extends readonly (infer K)[] ? K : never) : never;

/** An object of `properties`: the `required` ones present, the others optional, and any other key when `open`. */
export type ObjectOf<P, R, Open extends boolean = false> = Flat<
  { readonly [K in keyof P as K extends R ? K : never]: ValueOf<P[K]> } & {
    readonly [K in keyof P as K extends R ? never : K]?: ValueOf<P[K]>;
  }
> &
  (Open extends true ? Readonly<Record<string, unknown>> : unknown);

/** One object type instead of an intersection, so editors and type errors show it whole. */
type Flat<T> = { [K in keyof T]: T[K] } & {};
