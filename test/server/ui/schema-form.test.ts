/**
 * The catalog page's form builder (static/schema-form.js): a recipe's
 * inputs_schema as fields, the inputs read back, and the server's own
 * validator errors placed on the fields. Schemas are recipe files, so the
 * malformed and hostile ones get the most cases here.
 */
import { describe, expect, it } from "vitest";
import { compileSchema, renderErrors } from "../../../src/jsonschema/index.js";
import {
  buildForm,
  collectInputs,
  errorsByField,
  initialValue,
  MAX_DEPTH,
  MAX_ENUM,
  MAX_FIELDS,
  MAX_TEXT,
  parseErrorPath,
  readServerError,
  type Field,
  type FormModel,
} from "../../../src/server/ui/static/schema-form.js";

const byName = (model: FormModel, ...path: string[]): Field => {
  const found = [...model.fields.values()].find((f) => f.path.length === path.length && f.path.every((p, i) => p === path[i]));
  if (found === undefined) throw new Error(`no field ${path.join(".")}`);
  return found;
};

/** Reads every field's prefilled value, with `typed` overriding by dotted path. */
const reader =
  (typed: Record<string, string | boolean | null> = {}) =>
  (f: Field) => {
    const key = f.path.join(".");
    return Object.hasOwn(typed, key) ? typed[key] : initialValue(f);
  };

/** The server's rendering of `inputs` against `schema` (what recipes__validate answers). */
function serverErrors(schema: unknown, inputs: unknown): string[] {
  const compiled = compileSchema(schema);
  if (!compiled.ok) throw new Error(compiled.error.message);
  const result = compiled.validator.validate(inputs);
  return result.valid ? [] : renderErrors(result.errors, "input");
}

const MESH = {
  type: "object",
  additionalProperties: false,
  required: ["object_name", "edge_indices"],
  properties: {
    object_name: { type: "string", minLength: 1, description: "The mesh to bevel." },
    edge_indices: { type: "array", items: { type: "integer", minimum: 0 }, minItems: 1 },
    width: { type: "number", exclusiveMinimum: 0, default: 0.1 },
    segments: { type: "integer", minimum: 1, maximum: 100, default: 1 },
    primitive_type: { enum: ["cube", "sphere", "cylinder"], default: "cube" },
    clamp: { type: "boolean", default: true },
    harden: { type: "boolean" },
    location: { type: "array", items: { type: "number" }, default: [0, 0, 0] },
    options: {
      type: "object",
      required: ["mode"],
      properties: { mode: { type: "string", enum: ["fast", "exact"] }, limit: { type: ["integer", "null"] } },
    },
  },
};

describe("catalog page form builder", () => {
  it("builds a field per property with its type, required mark, default, enum and description", () => {
    const model = buildForm(MESH);
    expect(model.fallback).toBeNull();
    expect(model.root.kind).toBe("object");
    expect(model.root.children?.map((c) => c.name)).toEqual(Object.keys(MESH.properties));
    expect(byName(model, "object_name")).toMatchObject({ kind: "string", required: true, description: "The mesh to bevel.", minLength: 1 });
    expect(byName(model, "edge_indices")).toMatchObject({ kind: "json", required: true, note: expect.stringContaining("list") });
    expect(byName(model, "width")).toMatchObject({ kind: "number", required: false, hasDefault: true, default: 0.1 });
    expect(byName(model, "segments")).toMatchObject({ kind: "integer", minimum: 1, maximum: 100 });
    expect(byName(model, "primitive_type")).toMatchObject({ kind: "enum", options: [{ value: "cube" }, { value: "sphere" }, { value: "cylinder" }] });
    expect(byName(model, "clamp")).toMatchObject({ kind: "boolean", default: true });
    expect(byName(model, "options")).toMatchObject({ kind: "object", required: false });
    expect(byName(model, "options", "mode")).toMatchObject({ kind: "enum", required: true });
    expect(byName(model, "options", "limit")).toMatchObject({ kind: "integer", nullable: true });
  });

  it("prefills defaults as the inputs show them", () => {
    const model = buildForm(MESH);
    expect(initialValue(byName(model, "width"))).toBe("0.1");
    expect(initialValue(byName(model, "primitive_type"))).toBe("0");
    expect(initialValue(byName(model, "clamp"))).toBe(true);
    expect(initialValue(byName(model, "harden"))).toBeNull();
    expect(initialValue(byName(model, "location"))).toBe("[\n  0,\n  0,\n  0\n]");
    expect(initialValue(byName(model, "object_name"))).toBe("");
  });

  it("reads the inputs back: typed values, defaults kept, empty optional fields left out", () => {
    const model = buildForm(MESH);
    const read = collectInputs(model, reader({ object_name: "Cube", edge_indices: "[0, 1]", segments: "3", primitive_type: "1" }));
    expect(read.problems).toEqual([]);
    expect(read.inputs).toEqual({ object_name: "Cube", edge_indices: [0, 1], width: 0.1, segments: 3, primitive_type: "sphere", clamp: true, location: [0, 0, 0] });
    expect(serverErrors(MESH, read.inputs)).toEqual([]);
  });

  it("names the fields whose text cannot be read, and sends nothing for them", () => {
    const model = buildForm(MESH);
    const read = collectInputs(model, reader({ object_name: "Cube", edge_indices: "[0, 1", width: "wide" }));
    expect(read.problems.map((p) => model.fields.get(p.field)?.name).sort()).toEqual(["edge_indices", "width"]);
    expect(read.problems.find((p) => model.fields.get(p.field)?.name === "edge_indices")?.message).toMatch(/not valid JSON/);
  });

  it("places the server validator's errors on the fields they name", () => {
    const model = buildForm(MESH);
    const inputs = { edge_indices: [], width: -1, segments: 2.5, options: {}, extra: 1 };
    const errors = serverErrors(MESH, inputs);
    expect(errors.length).toBeGreaterThanOrEqual(5);
    const { byField, general } = errorsByField(model, errors);
    const on = (name: string) => byField.get(byName(model, ...name.split(".")).id) ?? [];
    expect(on("object_name")).toEqual(["required"]);
    expect(on("edge_indices").join(" ")).toMatch(/item|least|min/i);
    expect(on("width").length).toBe(1);
    expect(on("segments").length).toBe(1);
    expect(on("options.mode")).toEqual(["required"]);
    // additionalProperties: false names a property the form has no field for.
    expect(general.join(" ")).toMatch(/extra/);
  });

  it("reads the server's error paths, odd keys included", () => {
    expect(parseErrorPath("$")).toEqual([]);
    expect(parseErrorPath("$.a.b[2]")).toEqual(["a", "b", "2"]);
    expect(parseErrorPath('$["odd: key"].x["\\"q\\""]')).toEqual(["odd: key", "x", '"q"']);
    expect(parseErrorPath("a.b")).toBeNull();
    expect(parseErrorPath("$[")).toBeNull();
    expect(parseErrorPath('$["unterminated')).toBeNull();
    expect(readServerError("Missing required input: name")).toEqual({ path: ["name"], message: "required" });
    expect(readServerError('$["a: b"]: must be string')).toEqual({ path: ["a: b"], message: "must be string" });
    expect(readServerError("$.o: Missing required property: k")).toEqual({ path: ["o", "k"], message: "required" });
    expect(readServerError("no path here")).toBeNull();
    expect(readServerError(42)).toBeNull();
    expect(errorsByField(buildForm(MESH), "not a list")).toEqual({ byField: new Map(), general: [] });
  });

  it.each([
    ["null", null],
    ["true", true],
    ["a string", "object"],
    ["a number", 42],
    ["an array", [{ type: "object" }]],
    ["an object without properties", { type: "object" }],
    ["properties that are not an object", { type: "object", properties: ["a", "b"] }],
    ["a oneOf", { oneOf: [{ type: "object" }, { type: "string" }] }],
  ])("falls back to one JSON textarea for %s", (_name, schema) => {
    const model = buildForm(schema);
    expect(model.root.kind).toBe("json");
    expect(model.fallback).toBeTypeOf("string");
    expect(initialValue(model.root)).toBe("{}");
    expect(collectInputs(model, reader({ "": '{"a": 1}' })).inputs).toEqual({ a: 1 });
  });

  it("turns a huge enum into a JSON field instead of a select of thousands", () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
    const model = buildForm({ type: "object", properties: { pick: { enum: values }, small: { enum: values.slice(0, MAX_ENUM) } } });
    expect(byName(model, "pick")).toMatchObject({ kind: "json", note: "10000 allowed values: type one as JSON" });
    expect(byName(model, "small").options).toHaveLength(MAX_ENUM);
  });

  it("keeps enums of any JSON value, and reads the chosen value back as it was", () => {
    const model = buildForm({ type: "object", properties: { v: { enum: [1, null, { a: [1] }, "<b>x</b>"] }, c: { const: 7 } } });
    expect(byName(model, "v").options?.map((o) => o.label)).toEqual(["1", "null", '{"a":[1]}', "<b>x</b>"]);
    expect(collectInputs(model, reader({ v: "2", c: "0" })).inputs).toEqual({ v: { a: [1] }, c: 7 });
    expect(collectInputs(model, reader({ v: "99" })).inputs).toEqual({});
  });

  it("stops at a nesting depth, on a schema nested thousands deep", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 5000; i++) schema = { type: "object", properties: { deeper: schema } };
    const model = buildForm(schema);
    const deepest = Math.max(...[...model.fields.values()].map((f) => f.path.length));
    expect(deepest).toBe(MAX_DEPTH);
    expect([...model.fields.values()].find((f) => f.path.length === MAX_DEPTH)?.kind).toBe("json");
  });

  it("falls back to JSON past the field bound", () => {
    const properties = Object.fromEntries(Array.from({ length: MAX_FIELDS + 50 }, (_, i) => [`p${i}`, { type: "string" }]));
    const model = buildForm({ type: "object", properties });
    expect(model.root.kind).toBe("json");
    expect(model.fallback).toMatch(/more than 200 fields/);
    expect(model.fields.size).toBe(1);
  });

  it("follows local $refs, a bounded number of hops, and never remote ones", () => {
    const model = buildForm({
      type: "object",
      $defs: { vec: { type: "array", items: { type: "number" } }, name: { type: "string", description: "from the def" }, a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
      properties: {
        location: { $ref: "#/$defs/vec" },
        name: { $ref: "#/$defs/name" },
        described: { $ref: "#/$defs/name", description: "at the use" },
        loop: { $ref: "#/$defs/a" },
        remote: { $ref: "https://example.com/schema.json" },
        missing: { $ref: "#/$defs/nope" },
        self: { $ref: "#" },
      },
    });
    expect(byName(model, "location").kind).toBe("json");
    expect(byName(model, "name")).toMatchObject({ kind: "string", description: "from the def" });
    expect(byName(model, "described").description).toBe("at the use");
    for (const name of ["loop", "remote", "missing"]) expect(byName(model, name)).toMatchObject({ kind: "json", note: expect.stringContaining("$ref") });
    // The root referenced from inside itself: an object again, cut at the depth bound.
    expect(byName(model, "self").kind).toBe("object");
    expect(Math.max(...[...model.fields.values()].map((f) => f.path.length))).toBeLessThanOrEqual(MAX_DEPTH + 1);
  });

  it("keeps weird property names as data: __proto__, constructor, dots, empty, markup", () => {
    const names = ["__proto__", "constructor", "prototype", "a.b", "", "<img src=x onerror=alert(1)>", "ünï cödé", "hasOwnProperty"];
    // JSON.parse, as YAML and JSON loaders do, keeps "__proto__" as an own key.
    const schema = JSON.parse(JSON.stringify({ type: "object", required: names, properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])) }));
    expect(Object.keys(schema.properties)).toContain("__proto__");
    const model = buildForm(schema);
    expect(model.root.children?.map((c) => c.path[0])).toEqual(names);
    const typed = Object.fromEntries(names.map((n, i) => [n, `value ${i}`]));
    const { inputs } = collectInputs(model, reader(typed));
    expect(Object.keys(inputs as object)).toEqual(names);
    expect(Object.getPrototypeOf(inputs)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(inputs, "__proto__")?.value).toBe("value 0");
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(inputs))).toEqual(JSON.parse(JSON.stringify(Object.fromEntries(names.map((n, i) => [n, `value ${i}`])))));
    expect(serverErrors(schema, inputs)).toEqual([]);
    const missing = errorsByField(model, serverErrors(schema, {}));
    expect(missing.general).toEqual([]);
    expect(missing.byField.size).toBe(names.length);
  });

  it("keeps HTML in descriptions, names and enum labels as text, and cuts it to a bound", () => {
    const hostile = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    const model = buildForm({ type: "object", properties: { [hostile]: { type: "string", description: hostile + "x".repeat(MAX_TEXT * 3), enum: [hostile] } } });
    const f = model.root.children?.[0];
    expect(f?.name).toBe(hostile);
    expect(f?.description?.startsWith(hostile)).toBe(true);
    expect(f?.description?.length).toBe(MAX_TEXT);
    expect(f?.options?.[0]?.label).toBe(hostile);
  });

  it("survives hostile keyword values without throwing", () => {
    const schemas: unknown[] = [
      { type: "object", properties: { a: { type: 42 } } },
      { type: "object", properties: { a: { type: ["string", "number"] } } },
      { type: "object", properties: { a: { enum: "not a list" } } },
      { type: "object", required: "a", properties: { a: { type: "string" } } },
      { type: "object", properties: { a: { type: "string", minLength: "ten", pattern: 7, default: { x: 1 } } } },
      { type: "object", properties: { a: { type: "integer", minimum: Infinity, default: "seven" } } },
      { type: "object", properties: { a: { $ref: 12 } } },
      { type: "object", properties: { a: { $ref: "#/%E0%A4%A" } } },
      { type: "object", properties: { a: null, b: [], c: "x" } },
    ];
    for (const schema of schemas) {
      const model = buildForm(schema);
      expect(() => collectInputs(model, reader())).not.toThrow();
    }
    expect(byName(buildForm(schemas[4]), "a")).toMatchObject({ kind: "string", default: { x: 1 } });
    expect(initialValue(byName(buildForm(schemas[4]), "a"))).toBe('{"x":1}');
    expect(byName(buildForm(schemas[1]), "a").kind).toBe("json");
  });
});
