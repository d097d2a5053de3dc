/**
 * The fast path for plain YAML documents (recipe packs, SKILL.md
 * frontmatter): js-yaml, ≈14× the `yaml` package's speed here, giving YAML
 * 1.2 core values exactly as the `yaml` package would. Anything with anchors
 * or aliases, anything js-yaml rejects (duplicate keys, unknown tags,
 * syntax), and any scalar the two type differently returns null, so the
 * `yaml` package parses it and produces the exact diagnostics (duplicate
 * keys, alias caps, positions).
 */
import jsyaml from "js-yaml";

interface FastPack {
  readonly data: unknown;
  /** 1-based first line of each item of the top-level `recipes` sequence (when it is one). */
  readonly recipeLines: readonly number[] | null;
}

/**
 * Plain scalars the two parsers type differently: js-yaml reads `1_000`,
 * `0b11` and `0x_1F` as numbers where YAML 1.2 core (the `yaml` package)
 * keeps strings, and the reverse for signed leading-dot floats (`+.5`). A
 * pack holding any of them goes to the `yaml` package, so a value never
 * changes type with the parser that happened to read it.
 */
const DIVERGENT_SCALAR =
  /(?<=^|[\s[{,])(?:[-+]?(?:[0-9][0-9_]*_[0-9_.eE+-]*|0b[01_]+|0x[0-9a-fA-F_]*_[0-9a-fA-F_]*)|[-+]\.[0-9][0-9_]*)(?=[ \t]*(?:$|[,\]}#]))/m;

/**
 * Every divergent scalar holds one of these; most documents hold none, and
 * this scan costs a fraction of DIVERGENT_SCALAR's lookbehind on each line.
 */
const DIVERGENCE_HINT = /[0-9]_|0b|0x|[-+]\./;

function mayDiverge(text: string): boolean {
  return DIVERGENCE_HINT.test(text) && DIVERGENT_SCALAR.test(text);
}

/** The document's value, or null when the exact parser must answer (see the module comment). */
export function parsePlainFast(text: string): { readonly data: unknown } | null {
  const fast = parsePackFast(text);
  return fast === null ? null : { data: fast.data };
}

/** Any anchor means aliases may share or multiply nodes: let `yaml` apply its alias cap. */
function hasAnchors(state: { anchorMap?: Record<string, unknown> } | null): boolean {
  const anchors = state?.anchorMap;
  return anchors !== undefined && Object.keys(anchors).length > 0;
}

export function parsePackFast(text: string): FastPack | null {
  if (mayDiverge(text)) return null;
  // Depth-1 node: the document's root mapping; its keys and values are depth 2;
  // items of a depth-2 sequence are depth 3. Record the line each depth-3 node
  // opens on, grouped by the depth-2 node that contains it.
  let depth = 0;
  let pending: number[] = [];
  const linesBySequence = new Map<unknown, number[]>();
  let parserState: { anchorMap?: Record<string, unknown> } | null = null;
  const listener = (event: "open" | "close", state: { line: number; result: unknown }): void => {
    parserState ??= state as { anchorMap?: Record<string, unknown> };
    if (event === "open") {
      depth += 1;
      if (depth === 2) pending = [];
      else if (depth === 3) pending.push(state.line + 1);
      return;
    }
    if (depth === 2 && Array.isArray(state.result)) linesBySequence.set(state.result, pending);
    depth -= 1;
  };
  let data: unknown;
  try {
    data = jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, json: false, listener: function (event, state) {
      listener(event, state);
    } });
  } catch {
    return null;
  }
  if (hasAnchors(parserState)) return null;
  const recipes = data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>).recipes : undefined;
  const lines = Array.isArray(recipes) ? linesBySequence.get(recipes) : undefined;
  return { data, recipeLines: lines !== undefined && lines.length === (recipes as unknown[]).length ? lines : null };
}
