/**
 * Typed tool arguments (issue #21): each tool's handler receives the type its
 * inputSchema literal derives, so a schema edit that a handler does not follow
 * fails `npm run typecheck` here. The expectTypeOf checks are compile-time;
 * the runtime test proves the registry hands the handler exactly the
 * validated arguments the type describes.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { objectSchema, READ_ONLY, type ToolArgs, type ToolDefinition, type ValueOf } from "../../../src/server/tools/define.js";
import { ok } from "../../../src/server/tools/envelope.js";
import { createRecipeTool } from "../../../src/server/tools/recipe.js";
import type { ChildFields, RecipeAction } from "../../../src/server/tools/recipe-schemas.js";
import { recipesApply } from "../../../src/server/tools/recipes-apply.js";
import { recipesGet } from "../../../src/server/tools/recipes-get.js";
import { createRecipesList } from "../../../src/server/tools/recipes-list.js";
import { recipesSearch } from "../../../src/server/tools/recipes-search.js";
import { recipesValidate } from "../../../src/server/tools/recipes-validate.js";
import { createToolRegistry } from "../../../src/server/tools/registry.js";

type Window = { readonly resultStart?: number; readonly resultEnd?: number };
/** An intersection as one object type: toEqualTypeOf tells the two apart. */
type Flat<T> = { [K in keyof T]: T[K] };
type HandlerArgs<T extends { handler(args: never, context: never): unknown }> = Parameters<T["handler"]>[0];

describe("schema-derived argument types", () => {
  it("types each keyword: required vs optional, string/integer/number/boolean/enum/array/object, untyped as unknown", () => {
    const schema = {
      type: "object",
      properties: {
        s: { type: "string" },
        i: { type: "integer" },
        n: { type: "number" },
        b: { type: "boolean" },
        e: { type: "string", enum: ["a", "b"] },
        list: { type: "array", items: { type: "string" } },
        nested: { type: "object", properties: { x: { type: "string" }, y: { type: "integer" } }, required: ["x"], additionalProperties: false },
        anything: { description: "no type" },
      },
      required: ["s", "e"],
      additionalProperties: false,
    } as const;
    expectTypeOf<ValueOf<typeof schema>>().toEqualTypeOf<{
      readonly s: string;
      readonly e: "a" | "b";
      readonly i?: number;
      readonly n?: number;
      readonly b?: boolean;
      readonly list?: readonly string[];
      readonly nested?: { readonly x: string; readonly y?: number };
      readonly anything?: unknown;
    }>();
    // An object schema that does not refuse other keys admits them as unknown.
    const open = { type: "object", properties: { k: { type: "string" } }, required: ["k"] } as const;
    expectTypeOf<ValueOf<typeof open>["k"]>().toEqualTypeOf<string>();
    expectTypeOf<ValueOf<typeof open>>().toHaveProperty("other");
  });

  it("gives each core tool's handler its schema's arguments", () => {
    expectTypeOf<HandlerArgs<typeof recipesGet>>().toEqualTypeOf<ToolArgs<typeof recipesGet.inputSchema>>();
    expectTypeOf<HandlerArgs<typeof recipesGet>>().toEqualTypeOf<Flat<{ readonly skill: string; readonly anchor: string } & Window>>();
    expectTypeOf<HandlerArgs<typeof recipesSearch>>().toEqualTypeOf<
      Flat<{
        readonly query?: string;
        readonly dcc?: string;
        readonly skill?: string;
        readonly layer?: "domain" | "infrastructure" | "thin-harness" | "example";
        readonly limit?: number;
      } & Window>
    >();
    expectTypeOf<HandlerArgs<ReturnType<typeof createRecipesList>>>().toEqualTypeOf<Flat<{ readonly skill?: string } & Window>>();
    expectTypeOf<HandlerArgs<typeof recipesValidate>>().toEqualTypeOf<
      Flat<{ readonly skill: string; readonly recipe: string; readonly inputs: unknown; readonly output?: unknown } & Window>
    >();
    expectTypeOf<HandlerArgs<typeof recipesApply>>().toEqualTypeOf<
      Flat<{ readonly skill: string; readonly recipe: string; readonly inputs: unknown; readonly target?: unknown; readonly materialize?: boolean } & Window>
    >();
  });

  it("gives the recipe tool its action, and each action its child fields", () => {
    type RecipeArgs = HandlerArgs<ReturnType<typeof createRecipeTool>>;
    expectTypeOf<RecipeArgs["action"]>().toEqualTypeOf<RecipeAction>();
    expectTypeOf<RecipeArgs["resultStart"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ChildFields<"search">>().toEqualTypeOf<{
      readonly query: string;
      readonly visibility?: "all" | "private" | "public";
      readonly limit?: number;
    }>();
    expectTypeOf<ChildFields<"get">>().toEqualTypeOf<{ readonly recipeId: string; readonly visibility?: "all" | "private" | "public"; readonly revision?: number }>();
    expectTypeOf<ChildFields<"restore">>().toEqualTypeOf<{ readonly recipeId: string; readonly revision: number; readonly expectedRevision?: number }>();
    type Playbook = {
      readonly title: string;
      readonly summary: string;
      readonly whenToUse: string;
      readonly steps: readonly { readonly title: string; readonly detail: string }[];
      readonly acceptanceCriteria: readonly string[];
      readonly document: string;
    };
    expectTypeOf<ChildFields<"create">>().toEqualTypeOf<Flat<Playbook & { readonly tags?: readonly string[]; readonly idempotencyKey?: string }>>();
    expectTypeOf<ChildFields<"update">>().toEqualTypeOf<
      Flat<{ readonly recipeId: string } & Partial<Playbook> & { readonly tags?: readonly string[]; readonly expectedRevision?: number }>
    >();
  });

  it("refuses a handler that reads what its schema does not give it (compile time), and hands it the validated arguments (run time)", async () => {
    const seen: unknown[] = [];
    const echo: ToolDefinition<null, ReturnType<typeof schema>> = {
      name: "echo",
      title: "echo",
      description: "echo",
      inputSchema: schema(),
      annotations: READ_ONLY,
      handler: (args) => {
        const word: string = args.word;
        // @ts-expect-error count is optional: it may be undefined
        const count: number = args.count;
        // @ts-expect-error not a field of the schema
        void args.other;
        seen.push({ word, count });
        return ok("echo", { word });
      },
    };
    const registry = createToolRegistry([echo], () => {});
    const outcome = await registry.call("echo", { word: "hi" }, null);
    expect(outcome.kind === "result" && outcome.result.isError).toBe(false);
    expect(seen).toEqual([{ word: "hi", count: undefined }]);
    // The handler never runs on arguments its type does not describe.
    const refused = await registry.call("echo", { word: 3 }, null);
    expect(refused.kind === "result" && refused.result.isError).toBe(true);
    expect(seen).toHaveLength(1);
  });
});

function schema() {
  return objectSchema({ word: { type: "string" }, count: { type: "integer" } }, ["word"]);
}
