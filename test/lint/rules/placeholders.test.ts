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
    expect(hit[0]!.fix).toBe('add "space" to required, give it a default, or mark the step optional: true');
  });

  it("is quiet for an optional input in an optional: true step or a step with a fallback (freecad fem-review)", async () => {
    for (const mark of [{ optional: true }, { fallback_arguments: { space: "world" } }, { scripting_fallback: "use world space" }]) {
      const r = recipe();
      delete (r.inputs_schema["properties"] as Record<string, Record<string, unknown>>)["space"]!["default"];
      Object.assign(r.steps[0]!, mark);
      expect(await lintPack(r), JSON.stringify(mark)).toEqual([]);
    }
  });

  it("still flags an undeclared placeholder in an optional step", async () => {
    const r = recipe();
    r.steps.push({ tool: "t", optional: true, arguments: { x: "${nowhere}" } });
    expect(withCode(await lintPack(r), "placeholder_undeclared")).toHaveLength(1);
  });

  it("resolves indexed placeholders through items, and holds them to minItems", async () => {
    const schema = {
      type: "object",
      required: ["faces", "pair"],
      properties: {
        faces: { type: "array", minItems: 1, items: { type: "string" } },
        pair: { type: "array", prefixItems: [{ type: "number" }, { type: "number", default: 0 }] },
        loose: { type: "array", items: { type: "string" } },
      },
    };
    expect(resolvePlaceholder(schema, "faces[0]").ok).toBe(true);
    expect(resolvePlaceholder(schema, "faces.0").ok).toBe(true);
    expect(resolvePlaceholder(schema, "faces[1]")).toMatchObject({ ok: false, undeclared: false });
    expect(resolvePlaceholder(schema, "pair[1]").ok).toBe(true);
    expect(resolvePlaceholder(schema, "loose[0]")).toMatchObject({ ok: false, undeclared: false });
    expect(resolvePlaceholder(schema, "faces[0].x")).toMatchObject({ ok: false, undeclared: true });
    const r = recipe();
    (r.steps[0]!["arguments"] as Record<string, string>)["object_name"] = "${object_name[0]}";
    expect(withCode(await lintPack(r), "placeholder_undeclared")[0]!.message).toContain("declares no items to index [0]");
  });

  it("reads embedded placeholders and step `inputs` like the materializer, and reports each name once", async () => {
    const r = recipe();
    r.steps.push({ id: "x", inputs: { path: "/tmp/${missing}/${missing}.abc" } });
    r.steps.push({ tool: "t", arguments: { again: "${missing}" } });
    expect(withCode(await lintPack(r), "placeholder_undeclared")).toHaveLength(1);
  });

  it("scans fallback_inputs / fallback_arguments too, so a malformed placeholder there is found", async () => {
    const r = recipe();
    r.steps[0]!["fallback_arguments"] = { object_name: "${object_name[x]}" };
    const hit = withCode(await lintPack(r), "placeholder_malformed");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.message).toContain("steps[0].fallback_arguments.object_name");
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

  it("counts every input as used by a final report step without parameters (freecad fem-review)", async () => {
    const r = recipe();
    (r.inputs_schema["properties"] as Record<string, unknown>)["target_safety_factor"] = { type: "number", default: 2 };
    r.steps.push({ id: "review", verb: "report", tool: "t" });
    expect(await lintPack(r)).toEqual([]);
  });

  it("does not count a report step that is not last or that passes its own arguments", async () => {
    for (const steps of [
      [{ id: "review", verb: "report", tool: "t" }, { tool: "u", arguments: {} }],
      [{ id: "review", verb: "report", tool: "t", arguments: { a: 1 } }],
    ]) {
      const r = recipe();
      (r.inputs_schema["properties"] as Record<string, unknown>)["verbose"] = { type: "boolean", default: false };
      r.steps.push(...steps);
      expect(withCode(await lintPack(r), "input_unused"), JSON.stringify(steps)).toHaveLength(1);
    }
  });

  it("counts mentions in prose and undo_steps as uses", async () => {
    const r = recipe();
    (r.inputs_schema["properties"] as Record<string, unknown>)["report"] = { type: "string", default: "r.json" };
    r["undo_steps"] = ["Delete ${report}"];
    expect(await lintPack(r)).toEqual([]);
  });
});
