import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref } from "../../../src/server/ui/static/markdown.js";

describe("catalog page Markdown reader", () => {
  it("reads headings, lists, code fences, quotes and paragraphs", () => {
    const blocks = parseMarkdown("## Bake\n\nUse **this** `tool`.\n\n1. one\n2. two\n\n- a\n- b\n\n```python\nprint('<b>')\n```\n\n> note\n\n---\n");
    expect(blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "list", "list", "code", "quote", "hr"]);
    expect(blocks[1]).toEqual({ type: "paragraph", children: [{ type: "text", text: "Use " }, { type: "strong", children: [{ type: "text", text: "this" }] }, { type: "text", text: " " }, { type: "code", text: "tool" }, { type: "text", text: "." }] });
    expect(blocks[4]).toEqual({ type: "code", lang: "python", text: "print('<b>')" });
  });

  it("keeps raw HTML as text: the tree has no HTML nodes at all", () => {
    const blocks = parseMarkdown('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">');
    expect(blocks).toEqual([
      { type: "paragraph", children: [{ type: "text", text: "<script>alert(1)</script>" }] },
      { type: "paragraph", children: [{ type: "text", text: '<img src=x onerror="alert(2)">' }] },
    ]);
  });

  it.each(["javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:x", "//evil.example/x", "/relative"])(
    "renders a link to %j as plain text",
    (href) => {
      expect(safeHref(href)).toBeNull();
      const spans = parseInline(`[click](${href.replace(/\s/g, "%20")})`);
      expect(spans.some((s) => s.type === "link")).toBe(false);
    },
  );

  it("keeps http(s) and mailto links", () => {
    expect(parseInline("[docs](https://example.com/a?b=1)")).toEqual([{ type: "link", href: "https://example.com/a?b=1", children: [{ type: "text", text: "docs" }] }]);
    expect(safeHref("mailto:td@example.com")).toBe("mailto:td@example.com");
  });

  it("survives hostile input without blowing up", () => {
    const big = `${"*".repeat(5000)}${"[".repeat(5000)}${"`".repeat(5000)}`;
    // Bounded spans keep this linear; vitest's own timeout is the guard against a regression.
    expect(parseMarkdown(big)).toHaveLength(1);
    expect(parseMarkdown(`${"**a ".repeat(20_000)}\n${"_x ".repeat(20_000)}`)).toHaveLength(1);
    expect(parseMarkdown("")).toEqual([]);
    expect(parseMarkdown("```\nunclosed")).toEqual([{ type: "code", lang: "", text: "unclosed" }]);
  });
});
