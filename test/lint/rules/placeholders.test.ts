import { describe, expect, it } from "vitest";
import { resolvePlaceholder } from "../../../src/lint/rules/placeholders.js";
import { goodRecipe, lintPack, pack, withCode } from "../helpers.js";

type Entry = Record<string, unknown> & { steps: Array<Record<string, unknown>>; inputs_schema: Record<string, unknown> };
const recipe = (): Entry => goodRecipe() as Entry;

describe("placeholder_undeclared / placeholder_unresolvable", () => {
  it("passes placeholders that are required or defaulted", async () => {
    expect(await lintPack(goodRecipe())).toEqual([]);
  });

  it("flags an undeclared placeholder at the argument's line and column", async () => {
    const r = recipe();
    (r.steps[0]!["arguments"] as Record<string, string>)["pivot"] = "${pivot}";
    const hit = withCode(await lintPack(r), "placeholder_undeclared");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("error");
    expect(hit[0]!.message).toContain("${pivot}");
    expect(hit[0]!.message).toContain("steps[0].arguments.pivot");
    const lines = pack(r).split("\n");
    const line = lines.findIndex((l) => /^\s+pivot: /.test(l));
    expect(hit[0]!.line).toBe(line + 1);
    expect(hit[0]!.column).toBe(lines[line]!.indexOf("pivot: ") + "pivot: ".length + 1);
  });

  it("flags an optional input without a default", async () => {
    const r = recipe();
    delete (r.inputs_schema["properties"] as Record<string, Record<string, unknown>>)["space"]!["default"];
    const hit = withCode(await lintPack(r), "placeholder_unresolvable");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.fix).toBe('add "space" to required, or give it a default');
  });

  it("reads embedded placeholders and step `inputs` like the materializer, and reports each name once", async () => {
    const r = recipe();
    r.steps.push({ id: "x", inputs: { path: "/tmp/${missing}/${missing}.abc" } });
    r.steps.push({ tool: "t", arguments: { again: "${missing}" } });
    expect(withCode(await lintPack(r), "placeholder_undeclared")).toHaveLength(1);
  });

  it("leaves prose step keys alone", async () => {
    const r = recipe();
    r.steps[0]!["description"] = "uses ${whatever} in prose";
    expect(await lintPack(r)).toEqual([]);
  });

  it("warns about a `${` the materializer does not replace", async () => {
    const r = recipe();
    (r.steps[0]!["arguments"] as Record<string, string>)["object_name"] = "${ object_name }";
    const found = await lintPack(r);
    expect(withCode(found, "placeholder_malformed")).toHaveLength(1);
  });

  it("follows dotted names through nested properties, required chains, defaults and $ref", () => {
    const schema = {
      type: "object",
      required: ["a"],
      $defs: { pt: { type: "object", required: ["x"], properties: { x: { type: "number" }, y: { type: "number", default: 0 } } } },
      properties: {
        a: { type: "object", required: ["b"], properties: { b: { type: "string" }, c: { type: "string" } } },
        o: { type: "object", properties: { d: { type: "string", default: "d" }, e: { type: "string" } } },
        p: { $ref: "#/$defs/pt" },
      },
    };
    expect(resolvePlaceholder(schema, "a.b").ok).toBe(true);
    expect(resolvePlaceholder(schema, "a.c").ok).toBe(false);
    expect(resolvePlaceholder(schema, "o.d").ok).toBe(true); // a leaf default works even when o is absent
    expect(resolvePlaceholder(schema, "o.e").ok).toBe(false);
    expect(resolvePlaceholder(schema, "p.y").ok).toBe(true);
    expect(resolvePlaceholder(schema, "p.x").ok).toBe(false); // p itself is optional
    expect(resolvePlaceholder(schema, "a.zz")).toMatchObject({ ok: false, undeclared: true });
    expect(resolvePlaceholder({}, "anything")).toMatchObject({ ok: false, undeclared: true });
  });
});

describe("input_unused", () => {
  it("warns about an input nothing mentions, at its key", async () => {
    const r = recipe();
    (r.inputs_schema["properties"] as Record<string, unknown>)["verbose"] = { type: "boolean", default: false };
    const hit = withCode(await lintPack(r), "input_unused");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("warning");
    expect(hit[0]!.message).toContain('"verbose"');
  });

  it("counts mentions in prose and undo_steps as uses", async () => {
    const r = recipe();
    (r.inputs_schema["properties"] as Record<string, unknown>)["report"] = { type: "string", default: "r.json" };
    r["undo_steps"] = ["Delete ${report}"];
    expect(await lintPack(r)).toEqual([]);
  });
});
