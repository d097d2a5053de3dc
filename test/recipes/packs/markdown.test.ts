import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRecipeContent, parseMarkdownAnchors, parseRecipeAnchors } from "../../../src/recipes/packs/markdown.js";
import { REAL_SKILLS, requireShared } from "../../helpers/shared.js";

const names = (md: string): string[] => parseMarkdownAnchors(md).map((a) => a.name);

describe("parseMarkdownAnchors: headings", () => {
  it("finds level-2 ATX headings with line numbers and content up to the next level-1/2 heading", () => {
    const md = "# Title\n\nintro\n\n## one\nbody 1\n### sub\nmore\n\n## two\nbody 2\n# Top\nnot in two\n";
    const a = parseMarkdownAnchors(md);
    expect(a.map((x) => [x.name, x.line])).toEqual([
      ["one", 5],
      ["two", 10],
    ]);
    expect(a[0]!.content).toBe("## one\nbody 1\n### sub\nmore");
    expect(a[1]!.content).toBe("## two\nbody 2");
  });

  it("accepts up to three spaces of indent and refuses four", () => {
    expect(names("   ## three\n    ## four\n")).toEqual(["three"]);
  });

  it("needs whitespace after ##", () => {
    expect(names("##nospace\n##\tTabbed\n#### deep\n")).toEqual(["Tabbed"]);
  });

  it("a bare ## is an empty heading: it ends the previous anchor but names nothing", () => {
    const a = parseMarkdownAnchors("## one\nkept\n##\nlost\n## two\n");
    expect(a.map((x) => x.name)).toEqual(["one", "two"]);
    expect(a[0]!.content).toBe("## one\nkept");
  });

  it("strips a closing # sequence only when preceded by a space", () => {
    expect(names("## Notes ##\n## Rig notes for C#\n## Sharp#  \n## Trail ###   \n## ###\n## a \\#\n")).toEqual([
      "Notes",
      "Rig notes for C#",
      "Sharp#",
      "Trail",
      "a \\#",
    ]);
  });

  it("keeps spaces and punctuation inside names, trimmed", () => {
    expect(names("##    Before export (FBX / OBJ)   \n")).toEqual(["Before export (FBX / OBJ)"]);
  });

  it("right-trims content and reads CRLF and lone CR as LF", () => {
    const a = parseMarkdownAnchors("\uFEFF## one\r\nline\r\n\r\n   \r\n## two\rx\r");
    expect(a.map((x) => x.content)).toEqual(["## one\nline", "## two\nx"]);
  });

  it("returns nothing for empty text or text without level-2 headings", () => {
    expect(parseMarkdownAnchors("")).toEqual([]);
    expect(parseMarkdownAnchors("# only h1\n### h3\n")).toEqual([]);
  });
});

describe("parseMarkdownAnchors: fences", () => {
  it("ignores ## and # inside ``` fences", () => {
    const md = "## real\n```python\n## not a heading\n# comment\n```\nafter\n## next\n";
    const a = parseMarkdownAnchors(md);
    expect(a.map((x) => x.name)).toEqual(["real", "next"]);
    expect(a[0]!.content).toContain("# comment\n```\nafter");
  });

  it("ignores ## inside ~~~ fences", () => {
    expect(names("## a\n~~~\n## no\n~~~\n## b\n")).toEqual(["a", "b"]);
  });

  it("closes only with the same character at least as long", () => {
    const md = "## a\n````\n```\n## no\n~~~~\n## still no\n`````\n## b\n";
    expect(names(md)).toEqual(["a", "b"]);
  });

  it("a closing fence may not carry an info string", () => {
    expect(names("## a\n```\n```js\n## no\n```\n## b\n")).toEqual(["a", "b"]);
  });

  it("an unclosed fence runs to the end of the file", () => {
    const a = parseMarkdownAnchors("## a\n```\n## no\n## none\n");
    expect(a.map((x) => x.name)).toEqual(["a"]);
    expect(a[0]!.content).toBe("## a\n```\n## no\n## none");
  });

  it("a backtick run whose info string holds a backtick is not a fence", () => {
    expect(names("## a\n``` x`y\n## b\n")).toEqual(["a", "b"]);
    // A tilde fence may hold backticks in its info string.
    expect(names("## a\n~~~ x`y\n## no\n~~~\n## b\n")).toEqual(["a", "b"]);
  });

  it("fence indented four spaces is not a fence", () => {
    expect(names("## a\n    ```\n## b\n")).toEqual(["a", "b"]);
  });
});

const realRoot = REAL_SKILLS;
const maya = path.join(realRoot, "dcc-mcp-maya/src/dcc_mcp_maya/skills");
const hasReal = requireShared(realRoot, "real-skill Markdown tests");

describe.skipIf(!hasReal)("real Markdown recipe files", () => {
  it("maya-scripting RECIPES.md: the ## sections, not the # comments inside python fences", async () => {
    const anchors = await parseRecipeAnchors(path.join(maya, "maya-scripting/references/RECIPES.md"));
    expect(anchors.slice(0, 8)).toEqual([
      "primitives",
      "xform",
      "selection",
      "hierarchy",
      "attributes",
      "namespaces",
      "references",
      "materials",
    ]);
    expect(new Set(anchors).size).toBe(anchors.length);
    expect(anchors.every((a) => a.trim() === a && a !== "")).toBe(true);
    const content = await getRecipeContent(path.join(maya, "maya-scripting/references/RECIPES.md"), "primitives");
    expect(content).toMatch(/^## primitives\n/);
    expect(content).toContain("# polyCube");
    expect(content).not.toContain("## xform");
  });

  it("IO_CHECKLIST.md: anchors with spaces and punctuation", async () => {
    const file = path.join(maya, "maya-geometry/references/IO_CHECKLIST.md");
    expect(await parseRecipeAnchors(file)).toEqual(["Before export (FBX / OBJ)", "Before import (FBX)", "Gateway agents"]);
    const c = await getRecipeContent(file, "Before import (FBX)");
    expect(c?.split("\n").at(-1)).toMatch(/^3\. Use a \*\*`namespace`\*\*/);
    expect(await getRecipeContent(file, "missing")).toBeNull();
  });
});

describe("seed helpers on a temp file", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "md-anchors-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("first anchor of a repeated name wins in getRecipeContent", async () => {
    const f = path.join(dir, "R.md");
    await writeFile(f, "## x\nfirst\n## x\nsecond\n");
    expect(await parseRecipeAnchors(f)).toEqual(["x", "x"]);
    expect(await getRecipeContent(f, "x")).toBe("## x\nfirst");
  });
});

describe("parseMarkdownAnchors: trailing whitespace", () => {
  it("right-trims an anchor's content of every Unicode space and line terminator, and only at the end", () => {
    const tail = " \t\u00a0\u2003\u3000\ufeff\u2028\u2029\v\f";
    const text = `## a\nbody  with\u00a0inner\tspace${tail}\n\n## b\n  indented${tail}   \n`;
    const [a, b] = parseMarkdownAnchors(text);
    expect(a!.content).toBe("## a\nbody  with\u00a0inner\tspace");
    expect(b!.content).toBe("## b\n  indented");
  });

  it("keeps content ending in many whitespace runs whole up to its last visible character", () => {
    const body = Array.from({ length: 2000 }, (_, i) => `w${i} \t `).join("\n");
    const [a] = parseMarkdownAnchors(`## many\n${body}\n\n   \n`);
    expect(a!.content).toBe(`## many\n${body}`.replace(/\s+$/, ""));
    expect(a!.content.endsWith("w1999")).toBe(true);
  });
});
