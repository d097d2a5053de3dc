import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidSlug, MAX_SLUG_LENGTH, slugCandidate, slugify } from "../../../src/recipes/store/slug.js";

describe("slugify", () => {
  it.each([
    ["Bake Normals", "bake-normals"],
    ["  Bake   normals!!  ", "bake-normals"],
    ["Crème brûlée — UV pass", "creme-brulee-uv-pass"],
    ["Straße Ærø Łódź", "strasse-aero-lodz"],
    ["ﬁnal ① pass", "final-1-pass"],
    ["日本語のタイトル", "playbook"],
    ["", "playbook"],
    ["---", "playbook"],
    ["../../etc/passwd", "etc-passwd"],
    ["C:\\Windows\\System32", "c-windows-system32"],
    ["CON", "con-playbook"],
    ["nul", "nul-playbook"],
    ["LPT9", "lpt9-playbook"],
    ["com1", "com1-playbook"],
    ["console", "console"],
  ])("%j → %j", (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it("caps the length, preferring a word boundary", () => {
    const slug = slugify("retopologize the scanned character head for animation deformation and games");
    expect(slug.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
    expect(slug).toBe("retopologize-the-scanned-character-head-for-animation");
    expect(slugify("x".repeat(500))).toBe("x".repeat(MAX_SLUG_LENGTH));
  });

  it("always yields a valid slug (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (title) => {
        const slug = slugify(title);
        expect(isValidSlug(slug)).toBe(true);
        expect(slug.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
        for (const n of [2, 10, 12345]) {
          const candidate = slugCandidate(slug, n);
          expect(isValidSlug(candidate)).toBe(true);
          expect(candidate.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
          expect(candidate.endsWith(`-${n}`)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("slugCandidate", () => {
  it("numbers from 2 and keeps within the length cap", () => {
    expect(slugCandidate("bake-normals", 1)).toBe("bake-normals");
    expect(slugCandidate("bake-normals", 2)).toBe("bake-normals-2");
    const long = "a".repeat(MAX_SLUG_LENGTH);
    expect(slugCandidate(long, 123)).toBe(`${"a".repeat(MAX_SLUG_LENGTH - 4)}-123`);
  });
});

describe("isValidSlug", () => {
  it.each(["", "-a", "a-", "a--b", "A", "a_b", "a.b", "../a", "con", "a/b", "é"])("refuses %j", (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });
  it("accepts hand-chosen slugs up to 100 characters", () => {
    expect(isValidSlug("a".repeat(100))).toBe(true);
    expect(isValidSlug("a".repeat(101))).toBe(false);
  });
});
