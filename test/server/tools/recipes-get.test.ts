/**
 * recipes__get keeps each recipe's answer (frozen, with its revision) and
 * the registry renders it once: a second call answers the same text and
 * the same structuredContent object, still counts its use, and a snapshot of
 * a later revision answers anew, stamped with that revision.
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { answerRevision, recipeContext, type RecipeToolContext } from "../../../src/server/tools/context.js";
import { recipesGet } from "../../../src/server/tools/recipes-get.js";
import { createToolRegistry, type ToolCallOutcome } from "../../../src/server/tools/registry.js";
import { createArgs, makeFixture, type Fixture } from "./recipe-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const logger = pino({ level: "silent" });
const registry = createToolRegistry<RecipeToolContext>(
  [recipesGet],
  (_tool, error) => {
    throw error;
  },
  answerRevision,
);

function get(context: RecipeToolContext, args: Record<string, unknown>): Extract<ToolCallOutcome, { kind: "result" }> {
  const outcome = registry.call("recipes__get", args, context);
  if (outcome instanceof Promise || outcome.kind !== "result") throw new Error("recipes__get did not answer synchronously");
  return outcome;
}

describe("recipes__get", () => {
  it("answers a recipe's kept answer again, counting every first window as a use", async () => {
    fixture = await makeFixture();
    const f = fixture;
    const uses: string[] = [];
    const context = (): RecipeToolContext =>
      recipeContext(f.library, logger, { signal: new AbortController().signal }, undefined, undefined, (id, counter) => uses.push(`${id} ${counter}`));
    const args = { skill: "modeling", anchor: "build_pbr_material" };
    const first = get(context(), args);
    const again = get(context(), args);
    expect(first.success).toBe(true);
    expect(again.result.content[0]!.text).toBe(first.result.content[0]!.text);
    expect(again.result.structuredContent).toBe(first.result.structuredContent);
    expect(Object.isFrozen(again.result.structuredContent)).toBe(true);
    const answer = JSON.parse(first.result.content[0]!.text) as { revision: number; context: { content: string; skill: string; format: string } };
    expect(answer.revision).toBe(f.library.current()!.revision);
    expect(answer.context).toMatchObject({ skill: "modeling", format: "yaml" });
    expect(answer.context.content).toContain("build_pbr_material");
    // A later window reads the same answer on: not another use.
    get(context(), { ...args, resultStart: 10 });
    expect(uses).toEqual(["modeling/build_pbr_material get", "modeling/build_pbr_material get"]);
    expect(f.library.usage.get("modeling/build_pbr_material")?.counts[0]).toBe(2);
  });

  it("answers anew, with the new revision, from a later snapshot", async () => {
    fixture = await makeFixture();
    const f = fixture;
    const args = { skill: "modeling", anchor: "Bevel edges" };
    const before = get(recipeContext(f.library, logger, { signal: new AbortController().signal }), args);
    // A playbook write publishes a snapshot derived from this one: the public recipes are the same objects.
    expect((await f.call(createArgs())).success).toBe(true);
    const after = get(recipeContext(f.library, logger, { signal: new AbortController().signal }), args);
    const revision = (outcome: typeof before): number => (JSON.parse(outcome.result.content[0]!.text) as { revision: number }).revision;
    expect(revision(after)).toBe(f.library.current()!.revision);
    expect(revision(after)).toBeGreaterThan(revision(before));
    expect(after.result.structuredContent).not.toBe(before.result.structuredContent);
    expect({ ...(after.result.structuredContent as object), revision: 0 }).toEqual({ ...(before.result.structuredContent as object), revision: 0 });
  });
});
