import { describe, expect, it } from "vitest";
import { fullHashName, MAX_PROMPT_NAME, promptName } from "../../../../src/server/protocol/prompts/names.js";

const SEP986 = /^[A-Za-z0-9_.-]{1,128}$/;

describe("prompt names", () => {
  it("joins clean skill and recipe names with one dot", () => {
    expect(promptName("maya-modeling", "build_pbr_material")).toBe("maya-modeling.build_pbr_material");
  });

  it("slugs and hashes names outside the character set, deterministically", () => {
    const name = promptName("maya-geometry", "Before export (FBX / OBJ)");
    expect(name).toMatch(/^maya-geometry\.Before-export-FBX-OBJ\.[0-9a-f]{10}$/);
    expect(promptName("maya-geometry", "Before export (FBX / OBJ)")).toBe(name);
  });

  it("keeps names that slug alike apart by their hash", () => {
    const a = promptName("rig", "Bind skin");
    const b = promptName("rig", "Bind  skin");
    const c = promptName("rig", "Bind/skin");
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it("cannot make a clean name meet a hashed one, nor two clean ones from different ids", () => {
    expect(promptName("a__b", "c")).not.toBe(promptName("a", "b__c"));
    // A clean name has one dot, a hashed one two.
    expect(promptName("a", "b").split(".")).toHaveLength(2);
    expect(promptName("a", "b c").split(".")).toHaveLength(3);
  });

  it.each([
    ["hostile characters", "sk\u0000ill", "../../etc/passwd"],
    ["control and bidi characters", "rig\u202e", "a\u0007b\r\nc"],
    ["nothing left after slugging", "???", "!!!"],
    ["emoji and other scripts", "リグ", "🦴 bones"],
    ["very long names", "s".repeat(300), "r".repeat(600)],
    ["a clean pair too long together", "s".repeat(64), "r".repeat(64)],
  ])("stays in the MCP name character set and length for %s", (_what, skill, recipe) => {
    const name = promptName(skill, recipe);
    expect(name).toMatch(SEP986);
    expect(name.length).toBeLessThanOrEqual(MAX_PROMPT_NAME);
    expect(fullHashName(skill, recipe)).toMatch(SEP986);
  });

  it("has a full-hash fallback distinct from the short one", () => {
    expect(fullHashName("rig", "Bind skin")).not.toBe(promptName("rig", "Bind skin"));
    expect(fullHashName("rig", "Bind skin")).toMatch(/\.[0-9a-f]{64}$/);
  });
});
