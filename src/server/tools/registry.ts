/**
 * Runs tool calls: validates arguments with the project's validator, calls
 * the handler, renders the envelope as deterministic JSON and cuts the
 * requested result window (docs/tools.md: every tool's text can be paged by
 * the caller). Knows nothing of HTTP or of recipes.
 */
import { compileSchema, renderErrors } from "../../jsonschema/index.js";
import type { Validator } from "../../jsonschema/types.js";
import { isPromise, type MaybePromise, type ToolAnnotations, type ToolDefinition } from "./define.js";
import { fail, withRevision, type Envelope } from "./envelope.js";
import type { ToolErrorCode } from "../../util/error-codes.js";
import { deepFreeze, sortKeys } from "../../util/stable-json.js";


const WINDOW_MAX = 8000;
const DEFAULT_RESULT_END = 8000;
/** Refusals of the arguments themselves are cut with the default window. */
const DEFAULT_WINDOW: WindowRequest = { resultStart: 0, resultEnd: DEFAULT_RESULT_END };

interface ListedTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations: ToolAnnotations & { readonly title: string };
}

export interface ToolCallResult {
  // The SDK's CallToolResult is an open object; this keeps ours assignable.
  readonly [key: string]: unknown;
  readonly content: Array<{ type: "text"; text: string }>;
  readonly structuredContent?: Record<string, unknown>;
  readonly isError: boolean;
}

export type ToolCallOutcome =
  | { readonly kind: "unknown_tool" }
  | {
      readonly kind: "result";
      readonly result: ToolCallResult;
      readonly success: boolean;
      readonly error?: ToolErrorCode;
      /** The whole answer, key-sorted, before any window was cut (for callers in this process, e.g. the catalog page). */
      readonly envelope?: Readonly<Record<string, unknown>>;
    };

export interface ToolRegistry<C> {
  list(): readonly ListedTool[];
  has(name: string): boolean;
  /** Synchronous when the tool's handler answers synchronously (see MaybePromise in define.ts). */
  call(name: string, args: unknown, context: C): MaybePromise<ToolCallOutcome>;
}

interface CompiledTool<C> {
  readonly definition: ToolDefinition<C>;
  readonly validator: Validator;
}

export function createToolRegistry<C>(
  definitions: readonly ToolDefinition<C>[],
  onInternalError: (tool: string, error: unknown) => void,
  /** The catalog revision stamped on every answer that carries none (the one stamp: tools/context.ts answerRevision). */
  revisionOf: (context: C) => number | undefined = () => undefined,
): ToolRegistry<C> {
  const tools = new Map<string, CompiledTool<C>>();
  for (const definition of definitions) {
    const compiled = compileSchema(definition.inputSchema);
    // Built-in schemas are ours: one the validator refuses is a bug, not input.
    if (!compiled.ok) throw new Error(`tool ${definition.name}: input schema refused: ${compiled.error.message}`);
    tools.set(definition.name, { definition, validator: compiled.validator });
  }
  const listed: readonly ListedTool[] = Object.freeze(
    [...tools.values()].map(({ definition }) => ({
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: definition.inputSchema,
      annotations: { ...definition.annotations, title: definition.title },
    })),
  );

  const internalError = (name: string, error: unknown): Envelope => {
    onInternalError(name, error);
    return fail("internal", "Internal error while running the tool; see the server log");
  };

  /**
   * Answers of tools that keep them (ToolDefinition.keepsAnswers), as
   * rendered: a caller paging through a long one has it rendered once.
   */
  const renderedOnce = new WeakMap<Envelope, { readonly sorted: Record<string, unknown>; readonly text: string }>();
  const rendering = (envelope: Envelope, kept: boolean): { readonly sorted: Record<string, unknown>; readonly text: string } => {
    const known = kept ? renderedOnce.get(envelope) : undefined;
    if (known !== undefined) return known;
    const sorted = sortKeys(envelope) as Record<string, unknown>;
    const rendered = { sorted, text: JSON.stringify(sorted) };
    // Only a frozen answer: one the handler could still change must be rendered as it is at each call.
    if (kept && Object.isFrozen(envelope)) renderedOnce.set(envelope, deepFreeze(rendered));
    return rendered;
  };

  /** The outcome of one call: revision stamped, deterministic JSON, the window cut. */
  function render(envelope: Envelope, context: C, window: WindowRequest, kept = false): ToolCallOutcome {
    if (envelope.revision === undefined) {
      const revision = revisionOf(context);
      if (revision !== undefined) envelope = withRevision(envelope, revision);
    }
    const { sorted, text } = rendering(envelope, kept);
    const windowed = applyWindow(text, window);
    const content: Array<{ type: "text"; text: string }> = [{ type: "text", text: windowed.text }];
    if (windowed.page !== undefined) content.push({ type: "text", text: JSON.stringify(windowed.page) });
    // The sorted copy is already a fresh JSON-shaped object: no need to re-parse the text.
    const result: ToolCallResult = windowed.complete
      ? { content, isError: !envelope.success, structuredContent: sorted }
      : { content, isError: !envelope.success };
    return envelope.error === undefined
      ? { kind: "result", result, success: envelope.success, envelope: sorted }
      : { kind: "result", result, success: envelope.success, error: envelope.error, envelope: sorted };
  }

  return {
    list: () => listed,
    has: (name) => tools.has(name),
    call(name, rawArgs, context) {
      const tool = tools.get(name);
      if (tool === undefined) return { kind: "unknown_tool" };
      const args = (rawArgs ?? {}) as Record<string, unknown>;
      const window = readWindow(args);
      const checked = tool.validator.validate(args);
      if (!checked.valid) {
        const problems = renderErrors(checked.errors);
        return render(fail("invalid_input", `Invalid arguments: ${problems.join("; ")}`, { errors: problems }), context, DEFAULT_WINDOW);
      }
      if (typeof window === "string") {
        return render(fail("invalid_input", `Invalid arguments: ${window}`, { errors: [window] }), context, DEFAULT_WINDOW);
      }
      let answer: MaybePromise<Envelope>;
      try {
        answer = tool.definition.handler(args, context);
      } catch (error) {
        return render(internalError(name, error), context, window);
      }
      const kept = tool.definition.keepsAnswers === true;
      if (!isPromise(answer)) return render(answer, context, window, kept);
      return answer.then(
        (envelope) => render(envelope, context, window, kept),
        (error: unknown) => render(internalError(name, error), context, window),
      );
    },
  };
}


interface WindowRequest {
  readonly resultStart: number;
  readonly resultEnd: number;
}

interface WindowedText {
  readonly text: string;
  /** True when the window holds the whole text. */
  readonly complete: boolean;
  readonly page?: {
    readonly resultStart: number;
    readonly resultEnd: number;
    readonly totalChars: number;
    readonly nextResultStart: number | null;
  };
}

/** Reads and checks the window arguments; a string names the broken rule. */
function readWindow(args: Readonly<Record<string, unknown>>): WindowRequest | string {
  const start = args.resultStart ?? 0;
  const end = args.resultEnd ?? DEFAULT_RESULT_END;
  if (typeof start !== "number" || !Number.isSafeInteger(start) || start < 0) {
    return "resultStart: must be an integer >= 0";
  }
  if (typeof end !== "number" || !Number.isSafeInteger(end) || end < 1) {
    return "resultEnd: must be an integer >= 1";
  }
  if (end <= start) return "resultEnd: must be greater than resultStart";
  if (end - start > WINDOW_MAX) return `resultEnd: resultEnd - resultStart must be at most ${WINDOW_MAX}`;
  return { resultStart: start, resultEnd: end };
}

function applyWindow(text: string, window: WindowRequest): WindowedText {
  const total = text.length;
  if (window.resultStart === 0 && window.resultEnd >= total) return { text, complete: true };
  const start = Math.min(window.resultStart, total);
  const end = Math.min(window.resultEnd, total);
  return {
    text: text.slice(start, end),
    complete: false,
    page: {
      resultStart: start,
      resultEnd: end,
      totalChars: total,
      nextResultStart: end < total ? end : null,
    },
  };
}
