/**
 * What a tool is, independent of any transport: a name, a Draft 2020-12 input
 * schema the registry validates before the handler runs, MCP annotations,
 * and a handler returning the result envelope as data.
 */
import type { Envelope } from "./envelope.js";
import type { MaybePromise } from "./maybe-promise.js";
import type { ValueOf } from "./schema-types.js";

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
  /** Answers synchronously when it can (see maybe-promise.ts). */
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
export const WINDOW_PROPERTIES = {
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
export type ObjectSchema<P, R extends string, Open extends boolean> = {
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
