import { describe, expect, it } from "vitest";
import { instancePathToDollar, renderErrors } from "../../src/jsonschema/index.js";

describe("instancePathToDollar", () => {
  it("renders keys and indices dcc-mcp-core style", () => {
    expect(instancePathToDollar("")).toBe("$");
    expect(instancePathToDollar("/a/b/1")).toBe("$.a.b[1]");
    expect(instancePathToDollar("/pivot/0")).toBe("$.pivot[0]");
    expect(instancePathToDollar("/odd key/x")).toBe('$["odd key"].x');
    expect(instancePathToDollar("/a~1b/c~0d")).toBe('$["a/b"]["c~d"]');
    expect(instancePathToDollar("/")).toBe('$[""]');
    expect(instancePathToDollar('/q"uote')).toBe('$["q\\"uote"]');
    expect(instancePathToDollar("/_ok$1")).toBe("$._ok$1");
    expect(instancePathToDollar("/01")).toBe('$["01"]');
  });
});

describe("renderErrors", () => {
  it("prefixes the path and turns root required into 'Missing required input'", () => {
    expect(
      renderErrors([
        { instancePath: "/pivot/1", keywordLocation: "/properties/pivot/items/type", keyword: "type", message: "Expected type number, got string" },
        { instancePath: "", keywordLocation: "/required", keyword: "required", message: "Missing required property: name" },
        { instancePath: "/a", keywordLocation: "/properties/a/required", keyword: "required", message: "Missing required property: b" },
      ]),
    ).toEqual(["$.pivot[1]: Expected type number, got string", "Missing required input: name", "$.a: Missing required property: b"]);
  });
});
