import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePlaybookFile, serialisePlaybook } from "../../../src/recipes/store/format.js";
import { decodeUtf8 as decodePlaybookBytes } from "../../../src/util/read-bounded.js";
import type { Playbook } from "../../../src/recipes/types.js";

const MTIME = "2026-01-02T03:04:05.000Z";

function playbook(over: Partial<Playbook> = {}): Playbook {
  return {
    slug: "bake-normals",
    title: "Bake normals",
    summary: "Bake a high-poly mesh's normals onto a low-poly cage.",
    whenToUse: "When a game asset needs a normal map.",
    steps: [{ title: "Match UVs", detail: "Check the low-poly UVs." }],
    acceptanceCriteria: ["The map has no seams"],
    tags: ["maya", "baking"],
    document: "# Bake normals\n\nBody text.\n",
    createdAt: "2026-11-29T19:07:21.000Z",
    updatedAt: "2026-11-29T19:08:00.000Z",
    revision: 3,
    ...over,
  };
}

function roundTrip(p: Playbook): Playbook {
  const parsed = parsePlaybookFile(serialisePlaybook(p), p.slug, MTIME);
  if (!parsed.ok) throw new Error(`did not parse: ${parsed.message}`);
  return parsed.stored.playbook;
}

describe("serialisePlaybook / parsePlaybookFile round trip", () => {
  it("reads back exactly what it wrote", () => {
    const p = playbook();
    expect(roundTrip(p)).toEqual(p);
  });

  it.each([
    ["leading and trailing blank lines", "\n\n\nbody\n\n\n"],
    ["--- lines inside the document", "intro\n---\ntitle: not frontmatter\n---\nmore\n---"],
    ["a document that is only ---", "---"],
    ["CRLF line endings", "# H\r\n\r\nline one\r\nline two\r\n"],
    ["unicode", "Ünïcödé — 日本語 🎨 \u2028 \u200b ﬁ"],
    ["no trailing newline", "last line"],
    ["an empty document", ""],
    ["NUL and control characters", "a\u0000b\u0007c\u001b[0m"],
    ["an 80,000-character document", "x".repeat(79_990) + "\n---\nend\n"],
  ])("keeps the document byte for byte: %s", (_name, document) => {
    const p = playbook({ document });
    expect(roundTrip(p).document).toBe(document);
  });

  it("keeps frontmatter strings that look like YAML syntax or delimiters", () => {
    const p = playbook({
      title: "---",
      summary: "...\n---\n...",
      whenToUse: "  leading spaces\n\ntrailing newlines\n\n",
      steps: [{ title: "- not a list", detail: "key: value\n# not a comment" }, { title: "'quoted'", detail: "\"double\" \t tab" }],
      acceptanceCriteria: ["true", "null", "2024", "0x1F", "~", "", " "],
      tags: ["yes", "no", "1.0", "@at", "`tick`", "*alias", "&anchor", "!tag", "%dir"],
    });
    expect(roundTrip(p)).toEqual(p);
  });

  it("round-trips arbitrary field values (property)", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 40 });
    const anyText = fc.oneof(text, fc.string({ unit: "binary", maxLength: 40 }).filter((s) => !/\p{Cs}/u.test(s)));
    fc.assert(
      fc.property(
        fc.record({
          title: anyText.filter((s) => s !== ""),
          summary: anyText,
          whenToUse: anyText,
          steps: fc.array(fc.record({ title: anyText, detail: anyText }), { maxLength: 4 }),
          acceptanceCriteria: fc.array(anyText, { maxLength: 4 }),
          tags: fc.array(anyText, { maxLength: 4 }),
          document: anyText,
          revision: fc.integer({ min: 1, max: 2 ** 40 }),
        }),
        (fields) => {
          const p = playbook(fields);
          expect(roundTrip(p)).toEqual(p);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps unknown keys a human added when the store rewrites the file", () => {
    const text = "---\ntitle: T\nauthor: Ana\nreviewed: [2026-01-01]\n---\nbody";
    const parsed = parsePlaybookFile(text, "t", MTIME);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const rewritten = serialisePlaybook(parsed.stored.playbook, parsed.stored.extra);
    expect(rewritten).toContain("author: Ana");
    const again = parsePlaybookFile(rewritten, "t", MTIME);
    expect(again.ok && again.stored.extra).toEqual({ author: "Ana", reviewed: ["2026-01-01"] });
    expect(again.ok && again.stored.playbook).toEqual(parsed.stored.playbook);
  });
});

describe("hand-written files", () => {
  it("needs only a title; the rest gets documented defaults", () => {
    const parsed = parsePlaybookFile("---\ntitle: Retopo a scan\n---\n# Retopo\n\nUse quad draw on the decimated scan.\nKeep poles off the silhouette.\n", "retopo", MTIME);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.stored.playbook).toEqual({
      slug: "retopo",
      title: "Retopo a scan",
      summary: "Use quad draw on the decimated scan. Keep poles off the silhouette.",
      whenToUse: "",
      steps: [],
      acceptanceCriteria: [],
      tags: [],
      document: "# Retopo\n\nUse quad draw on the decimated scan.\nKeep poles off the silhouette.\n",
      createdAt: MTIME,
      updatedAt: MTIME,
      revision: 1,
    });
  });

  it("falls back to the title as summary when the body has no prose", () => {
    const parsed = parsePlaybookFile("---\ntitle: Only a heading\n---\n# Heading\n", "x", MTIME);
    expect(parsed.ok && parsed.stored.playbook.summary).toBe("Only a heading");
  });

  it("accepts a CRLF file with a BOM, bare-string steps, scalar tags and empty keys", () => {
    const bytes = new TextEncoder().encode("\ufeff---\r\ntitle: CRLF\r\nsummary:\r\nsteps:\r\n  - Open the scene\r\ntags: maya\r\nacceptanceCriteria: [2024, true, yes]\r\ncreatedAt: 2026-01-31\r\n---\r\nbody\r\n");
    const text = decodePlaybookBytes(bytes);
    expect(text).not.toBeNull();
    const parsed = parsePlaybookFile(text as string, "crlf", MTIME);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const p = parsed.stored.playbook;
    expect(p.title).toBe("CRLF");
    expect(p.summary).toBe("body");
    expect(p.steps).toEqual([{ title: "Open the scene", detail: "" }]);
    expect(p.tags).toEqual(["maya"]);
    expect(p.acceptanceCriteria).toEqual(["2024", "true", "yes"]);
    expect(p.createdAt).toBe("2026-01-31T00:00:00.000Z");
    expect(p.updatedAt).toBe("2026-01-31T00:00:00.000Z");
    expect(p.document).toBe("body\r\n");
  });

  it("accepts a file that ends right after the closing ---", () => {
    const parsed = parsePlaybookFile("---\ntitle: T\n---", "t", MTIME);
    expect(parsed.ok && parsed.stored.playbook.document).toBe("");
  });

  it.each([
    ["no frontmatter at all", "# Just markdown\n\nbody", /no YAML frontmatter/, 1],
    ["an unclosed frontmatter", "---\ntitle: T\nbody without a closing line", /no YAML frontmatter/, 1],
    ["frontmatter that is a list", "---\n- a\n- b\n---\nbody", /not a mapping/, 2],
    ["frontmatter that is a scalar", "---\njust text\n---\nbody", /not a mapping/, 2],
    ["empty frontmatter", "---\n---\nbody", /not a mapping/, 2],
    ["bad YAML", "---\ntitle: T\nsteps: [unclosed\n---\nbody", /not valid YAML/, undefined],
    ["a duplicate key", "---\ntitle: A\ntitle: B\n---\n", /not valid YAML/, 3],
    ["no title", "---\nsummary: S\n---\nbody", /no title/, 1],
    ["an empty title", "---\ntitle: \"\"\n---\nbody", /title must be a non-empty string/, 2],
    ["a numeric title", "---\nsummary: s\ntitle: 42\n---\nbody", /title must be/, 3],
    ["steps as a string", "---\ntitle: T\nsteps: do it\n---\n", /steps must be a list/, 3],
    ["a step without a title", "---\ntitle: T\nsteps:\n  - detail: d\n---\n", /steps\[0\]\.title/, 3],
    ["a nested list as a tag", "---\ntitle: T\ntags: [[a]]\n---\n", /tags\[0\]/, 3],
    ["a negative revision", "---\ntitle: T\nrevision: -3\n---\n", /revision must be a positive integer/, 3],
    ["a fractional revision", "---\ntitle: T\nrevision: 1.5\n---\n", /revision/, 3],
    ["an unparseable date", "---\ntitle: T\nupdatedAt: last tuesday\n---\n", /updatedAt must be a date-time/, 3],
    ["a summary mapping", "---\ntitle: T\nsummary: {a: 1}\n---\n", /summary must be a string/, 3],
  ])("rejects %s with a message and line", (_name, text, message, line) => {
    const parsed = parsePlaybookFile(text, "x", MTIME);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toMatch(message);
    if (line !== undefined) expect(parsed.line).toBe(line);
  });

  it("refuses an alias bomb instead of expanding it", () => {
    const bomb = ["---", "a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 0; i < 8; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`);
    bomb.push("title: T", "---", "");
    const parsed = parsePlaybookFile(bomb.join("\n"), "x", MTIME);
    expect(parsed.ok).toBe(false);
  });

  it("reports non-UTF-8 bytes as undecodable", () => {
    expect(decodePlaybookBytes(Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]))).toBeNull();
    expect(decodePlaybookBytes(Uint8Array.from([0xc3, 0xa9]))).toBe("é");
  });
});
