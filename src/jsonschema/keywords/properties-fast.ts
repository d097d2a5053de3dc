/**
 * The properties fast path, generated for one schema object (see generated.ts): its switch
 * compares interned keys, its calls go to one member each (and get inlined), its loads
 * see the shapes of that schema's instances only, where the closure loop in properties.ts
 * is shared by every schema.
 *
 * Semantics are the closure loop's: members in the instance's order, counted for the
 * instance limits, a container handed to a schema that does not cover it marks the pass
 * partial, the first failure returns false through `failed` / `failedExtra` (which trace).
 */
import type { Annotations, SchemaNode, State } from "../context.js";
import { addProp, pushError, quiet, resume, skipTo } from "../context.js";
import { GeneratedConstants } from "../generated.js";
import { collectMemberSource, memberSource } from "../leaf-source.js";
import { childPointer } from "../pointer.js";
import type { PatternMatcher } from "../regex.js";
import { lengthWithin } from "./validation.js";
import { charge, step, testPattern } from "../steps.js";

export type ObjectFastPath = (o: Readonly<Record<string, unknown>>, st: State, path: string) => boolean;

/** The collecting loop: a Check over an object instance. */
export type ObjectCollectPath = (o: Readonly<Record<string, unknown>>, st: State, ev: Annotations | null, path: string) => boolean;

export interface ObjectFastPathParts {
  readonly keys: readonly string[];
  readonly nodes: readonly SchemaNode[];
  /** The schema undeclared members must pass; null when they are not checked. */
  readonly additional: SchemaNode | null;
  /** additionalProperties (or a static unevaluatedProperties) is `false`. */
  readonly forbidAdditional: boolean;
  /** Declared member `i` failed: traces it when the pass traces, answers false. */
  readonly failed: (st: State, i: number, v: unknown, o: object) => false;
  /** An undeclared member failed or is forbidden: traces (or marks) it when the pass does, answers false. */
  readonly failedExtra: (st: State, key: string, v: unknown, o: object) => false;
}

/**
 * Most declared names a generated switch holds: its cases are compared in turn, so past
 * this the closure loop's Map (with its key cache) is the better lookup.
 */
export const MAX_GENERATED_NAMES = 32;

/** The generated fast path, or null when code generation from strings is disallowed. */
export function generateObjectFastPath(parts: ObjectFastPathParts): ObjectFastPath | null {
  const { keys, nodes, additional, forbidAdditional } = parts;
  const consts = new GeneratedConstants();
  const cases = keys.map((k, i) => `case ${JSON.stringify(k)}: ${memberSource(nodes[i]!, consts, `failed(st, ${i}, v, o)`)} break;`);
  let extra: string;
  if (forbidAdditional) extra = "return failedExtra(st, key, v, o);";
  else if (additional === null) extra = `if (typeof v === "object" && v !== null) st.partial = true;`;
  else extra = memberSource(additional, consts, "failedExtra(st, key, v, o)");
  const source = `${consts.declarations()}
return function propertiesFast(o, st, path) {
  let count = 0;
  for (const key in o) {
    count++;
    const v = o[key];
    switch (key) {
      ${cases.join("\n      ")}
      default: ${extra}
    }
  }
  st.nodes += count;
  charge(st, count);
  return true;
};`;
  return consts.instantiate<ObjectFastPath>(source, {
    lengthWithin,
    charge,
    failed: parts.failed,
    failedExtra: parts.failedExtra,
  });
}

export interface ObjectCollectPathParts {
  readonly keys: readonly string[];
  readonly nodes: readonly SchemaNode[];
  readonly additional: SchemaNode | null;
  readonly forbidAdditional: boolean;
  /** Where an unexpected property is reported: `additionalProperties` or `unevaluatedProperties`. */
  readonly additionalLoc: string;
  readonly additionalName: string;
  readonly unexpected: string;
  /** Records the keyword's annotations on `ev` (declared names, every property when `additional` is set). */
  readonly annotate: (ev: Annotations) => void;
  /** patternProperties: each matching key is also handed to the pattern's schema. */
  readonly patterns: readonly PatternMatcher[];
  readonly patternNodes: readonly SchemaNode[];
  /** The keyword's loop token (context.ts skipTo). */
  readonly token: object;
}

/**
 * The collecting pass's loop for one schema object (no patternProperties), with the
 * semantics of properties.ts's closure loop: a step a key, members in the instance's
 * order, each asked as assemble.ts memberPasses asks it (a leaf inline, a container
 * collected at once when every error is wanted), the instance path built only for a
 * failing member, from the declared name's segment fixed here. After a marked fast-pass
 * failure it skips the members the fast pass found valid (context.ts skipTo), unless
 * patterns annotate keys for a caller that wants annotations.
 */
export function generateObjectCollectPath(parts: ObjectCollectPathParts): ObjectCollectPath | null {
  const { keys, nodes, additional, forbidAdditional } = parts;
  const consts = new GeneratedConstants();
  const cases = keys.map(
    (k, i) => `case ${JSON.stringify(k)}: ${collectMemberSource(nodes[i]!, consts, JSON.stringify(childPointer("", k)))} break;`,
  );
  let extra: string;
  if (additional === null) extra = "";
  else if (forbidAdditional) {
    extra = `pushError(st, childPointer(path, key), ${consts.bind(parts.additionalLoc)}, ${consts.bind(parts.additionalName)}, ${consts.bind(parts.unexpected)}); if (st.stop) return false; ok = false;`;
  } else extra = collectMemberSource(additional, consts, `childPointer("", key)`);
  let loop: string;
  if (parts.patterns.length === 0) {
    loop = `switch (key) {
      ${cases.join("\n      ")}
      default: ${extra}
    }`;
  } else {
    // A key may match its declared name and any number of patterns; only a key none
    // matched is additional.
    const tests = parts.patterns.map(
      (re, j) =>
        `if (testPattern(${consts.bind(re)}, key, st)) { if (!matched && ev !== null) addProp(ev, key); matched = true; step(st); ` +
        `${collectMemberSource(parts.patternNodes[j]!, consts, `childPointer("", key)`)} }`,
    );
    loop = `let matched = true;
    switch (key) {
      ${cases.join("\n      ")}
      default: matched = false;
    }
    ${tests.join("\n    ")}
    if (!matched) { ${extra} }`;
  }
  const source = `${consts.declarations()}
return function propertiesCollect(o, st, ev, path) {
  if (ev !== null) annotate(ev);
  let ok = true;
  let skip = ${parts.patterns.length === 0 ? "" : "ev !== null ? undefined : "}skipTo(st, token, o);
  for (const key in o) {
    step(st);
    if (skip !== undefined) {
      if (key !== skip) continue;
      skip = undefined;
    }
    const v = o[key];
    ${loop}
  }
  return ok;
};`;
  return consts.instantiate<ObjectCollectPath>(source, {
    lengthWithin,
    step,
    quiet,
    resume,
    pushError,
    childPointer,
    testPattern,
    addProp,
    skipTo,
    token: parts.token,
    annotate: parts.annotate,
  });
}
