import { describe, expect, it } from "vitest";
import { sortKeys, stableStringify } from "../../src/util/stable-json.js";

describe("sortKeys / stableStringify", () => {
  it("sorts keys at every depth, inside arrays too, and drops undefined members", () => {
    const value = { b: 1, a: [{ z: 1, y: { d: 2, c: 3 } }, "s", null], u: undefined, c: { b: [], a: {} } };
    expect(stableStringify(value)).toBe('{"a":[{"y":{"c":3,"d":2},"z":1},"s",null],"b":1,"c":{"a":{},"b":[]}}');
  });

  it("serializes the same whether or not the input keys were already in order", () => {
    expect(stableStringify({ a: 1, b: { x: 1, y: 2 } })).toBe(stableStringify({ b: { y: 2, x: 1 }, a: 1 }));
  });

  it("keeps a __proto__ key as plain data, never as the copy's prototype", () => {
    const parsed = JSON.parse('{"z":1,"__proto__":{"polluted":true,"b":[{"__proto__":1}]}}') as unknown;
    const sorted = sortKeys(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(sorted)).toBe(Object.prototype);
    expect((sorted as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(sorted)).toEqual(["__proto__", "z"]);
    expect(JSON.stringify(sorted)).toBe('{"__proto__":{"b":[{"__proto__":1}],"polluted":true},"z":1}');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("orders integer-like keys as JSON.stringify does for any object, and sorts the rest by code unit", () => {
    expect(stableStringify({ b: 1, "10": 2, "2": 3, B: 4, é: 5 })).toBe('{"2":3,"10":2,"B":4,"b":1,"é":5}');
  });

  it("copies anything not already sorted: the copy shares no object with the input", () => {
    const inner = { k: 1 };
    const input = { list: [inner], a: inner };
    const sorted = sortKeys(input) as { a: unknown; list: unknown[] };
    expect(sorted.a).not.toBe(inner);
    expect(sorted.list[0]).not.toBe(inner);
    expect(sorted.list).not.toBe(input.list);
    expect(JSON.stringify(sorted)).toBe('{"a":{"k":1},"list":[{"k":1}]}');
  });

  it("returns a value already in sorted, JSON-shaped form as it is (no copy), frozen or not", () => {
    const answer = Object.freeze({ data: { hits: [{ id: "a", score: 1, tags: ["x"] }], total: 1 }, message: "ok", success: true });
    expect(sortKeys(answer)).toBe(answer);
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: [null, "s"] });
    expect(sortKeys(nullProto)).toBe(nullProto);
    expect(sortKeys([1, "a", { a: 1 }])).toEqual([1, "a", { a: 1 }]);
  });

  it("copies when a member deep inside is out of order, undefined, inherited, a class instance or a function", () => {
    class Point {
      constructor(
        readonly x = 1,
        readonly y = 2,
      ) {}
    }
    const inherited = Object.create({ hidden: 1 }) as Record<string, unknown>;
    inherited.a = 1;
    const cases: Array<[unknown, string]> = [
      [{ a: { list: [{ d: 1, c: 2 }] } }, '{"a":{"list":[{"c":2,"d":1}]}}'],
      [{ a: 1, b: undefined, c: 3 }, '{"a":1,"c":3}'],
      [{ a: inherited }, '{"a":{"a":1}}'],
      [{ p: new Point() }, '{"p":{"x":1,"y":2}}'],
      [{ a: 1, f: () => 1 }, '{"a":1}'],
    ];
    for (const [input, json] of cases) {
      const sorted = sortKeys(input);
      expect(sorted, json).not.toBe(input);
      expect(JSON.stringify(sorted), json).toBe(json);
    }
  });

  it("serializes holes and undefined array members as null, like JSON.stringify", () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(stableStringify([1, , undefined, 3])).toBe("[1,null,null,3]");
    expect(stableStringify(undefined)).toBe("null");
  });
});
