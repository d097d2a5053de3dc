import { describe, expect, it } from "vitest";
import { looksMutating } from "../../../src/lint/rules/contracts.js";
import type { YamlRecipe } from "../../../src/recipes/types.js";
import { goodRecipe, lintPack, withCode } from "../helpers.js";

const withContract = (c: unknown, name = "set_pivot"): Record<string, unknown> => {
  const r: Record<string, unknown> = { ...goodRecipe(), name };
  if (c === undefined) delete r["output_contract"];
  else r["output_contract"] = c;
  return r;
};

describe("contract_missing / contract_legacy_label", () => {
  it("warns when there is no contract", async () => {
    const hit = withCode(await lintPack(withContract(undefined)), "contract_missing");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("warning");
  });

  it("warns that a string label is documentation only", async () => {
    const hit = withCode(await lintPack(withContract("pivot moved")), "contract_legacy_label");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.message).toContain('"pivot moved"');
  });
});

describe("contract_cannot_fail", () => {
  it.each([
    ["{}", {}],
    ["true", true],
    ["an annotation only", { description: "the receipt" }],
    ["a bare object type", { type: "object" }],
    ["all-optional constrained properties", { type: "object", properties: { changed: { const: true }, n: { type: "integer", minimum: 1 } } }],
    ["an empty required list", { type: "object", required: [], properties: { a: {} } }],
    ["an array with no minimum", { type: "array", items: { type: "string" } }],
  ])("is an error for %s", async (_label, contract) => {
    const hit = withCode(await lintPack(withContract(contract)), "contract_cannot_fail");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("error");
  });

  it.each([
    ["required fields", { type: "object", required: ["changed"], properties: { changed: { const: true } } }],
    ["a non-empty array", { type: "array", minItems: 1 }],
    ["a minimum property count", { type: "object", minProperties: 1, properties: { changed: { const: true } }, required: ["changed"] }],
  ])("passes %s", async (_label, contract) => {
    expect(withCode(await lintPack(withContract(contract)), "contract_cannot_fail")).toEqual([]);
  });
});

describe("contract_no_receipt", () => {
  const noFlag = { type: "object", required: ["object_name"], properties: { object_name: { type: "string" } } };

  it("warns for a mutating name whose contract proves nothing happened", async () => {
    const hit = withCode(await lintPack(withContract(noFlag, "mirror_mesh")), "contract_no_receipt");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("warning");
  });

  it.each([
    ["a const:true flag", { type: "object", required: ["changed"], properties: { changed: { type: "boolean", const: true } } }],
    ["a post-operation count", { type: "object", required: ["face_count"], properties: { face_count: { type: "integer", minimum: 1 } } }],
    ["a flag behind $ref", { $defs: { flag: { const: true } }, type: "object", required: ["ok"], properties: { ok: { $ref: "#/$defs/flag" } } }],
  ])("passes with %s", async (_label, contract) => {
    expect(withCode(await lintPack(withContract(contract, "mirror_mesh")), "contract_no_receipt")).toEqual([]);
  });

  it("counts a required *_uuid of what was made as a receipt (maya-mesh-ops loft_hull_from_sections)", async () => {
    const uuid = { type: "object", required: ["object_name", "object_uuid"], properties: { object_name: { type: "string" }, object_uuid: { type: "string" } } };
    expect(withCode(await lintPack(withContract(uuid, "loft_hull")), "contract_no_receipt")).toEqual([]);
  });

  it("does not count an optional uuid, a non-string uuid, or a name that only contains uuid", async () => {
    const optional = { type: "object", required: ["object_name"], properties: { object_name: { type: "string" }, object_uuid: { type: "string" } } };
    const number = { type: "object", required: ["object_uuid"], properties: { object_uuid: { type: "integer" } } };
    const inside = { type: "object", required: ["uuidish_name"], properties: { uuidish_name: { type: "string" } } };
    for (const c of [optional, number, inside]) {
      expect(withCode(await lintPack(withContract(c, "loft_hull")), "contract_no_receipt"), JSON.stringify(c)).toHaveLength(1);
    }
  });

  it("stays quiet for read-only names and an optional flag does not count", async () => {
    expect(withCode(await lintPack(withContract(noFlag, "get_poly_count")), "contract_no_receipt")).toEqual([]);
    const optional = { type: "object", required: ["object_name"], properties: { object_name: { type: "string" }, changed: { const: true } } };
    expect(withCode(await lintPack(withContract(optional, "bevel_edges")), "contract_no_receipt")).toHaveLength(1);
  });

  it("lets side_effects decide over the name", () => {
    const r = (name: string, side?: unknown): YamlRecipe => ({ name, entry: side === undefined ? {} : { side_effects: side } }) as unknown as YamlRecipe;
    expect(looksMutating(r("scene_report", { modifies: false, creates: true }))).toBe(true);
    expect(looksMutating(r("delete_history", { modifies: false, creates: false, deletes: false }))).toBe(false);
    expect(looksMutating(r("createPrimitive"))).toBe(true);
    expect(looksMutating(r("check_export_settings"))).toBe(false);
    expect(looksMutating(r("frobnicate"))).toBe(false);
  });
});
