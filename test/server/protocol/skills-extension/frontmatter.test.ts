/**
 * The published frontmatter and the SKILL.md it is served in, checked with
 * the SDK 2.4.0 server's own entry builder (its SKILL.md parser and the
 * Agent Skills rules its client applies).
 */
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { describe, expect, it } from "vitest";
import { flattenMetadata, publishedFrontmatter } from "../../../../src/server/protocol/skills-extension/frontmatter.js";
import { renderSkillMd } from "../../../../src/server/protocol/skills-extension/skill-md.js";
import type { SkillInfo } from "../../../../src/skills/types.js";

function info(overrides: Partial<SkillInfo> = {}): SkillInfo {
  return {
    name: "maya-geometry", dir: "/x", root: "/", rootIndex: 0, description: "Geometry interchange", dcc: "maya",
    tags: [], recipePatterns: [], dccMetadata: {}, metadata: {}, body: "# Body\n", ...overrides,
  };
}

async function sdkReads(text: string, name: string): Promise<Record<string, unknown>> {
  return (await skillEntry(name, { "SKILL.md": text })).frontmatter;
}

describe("metadata flattening", () => {
  it("publishes nested dcc-mcp entries under flat names, non-strings as JSON", () => {
    expect(
      flattenMetadata({
        author: "td",
        "dcc-mcp": { dcc: "maya", version: "2.2.0", tags: ["maya", "mesh"], recipes_undo: { scene_qa: "single-step" }, layer: 3, on: true, none: null },
        extra: [1, 2],
      }),
    ).toEqual({
      author: "td",
      "dcc-mcp.dcc": "maya",
      "dcc-mcp.version": "2.2.0",
      "dcc-mcp.tags": '["maya","mesh"]',
      "dcc-mcp.recipes_undo": '{"scene_qa":"single-step"}',
      "dcc-mcp.layer": "3",
      "dcc-mcp.on": "true",
      "dcc-mcp.none": "null",
      extra: "[1,2]",
    });
  });

  it("lets the nested value win over a flat key beside it, and keeps the written order", () => {
    const out = flattenMetadata({ "dcc-mcp.tags": "flat", first: "1", "dcc-mcp": { tags: ["nested"] }, "dcc-mcp.dcc": "houdini" });
    expect(out).toEqual({ first: "1", "dcc-mcp.tags": '["nested"]', "dcc-mcp.dcc": "houdini" });
    expect(Object.keys(out)).toEqual(["first", "dcc-mcp.tags", "dcc-mcp.dcc"]);
  });

  it("keeps a dcc-mcp value that is not a mapping as its JSON, and leaves __proto__ out", () => {
    const metadata = JSON.parse('{"dcc-mcp": ["a"], "__proto__": "x"}') as Record<string, unknown>;
    expect(flattenMetadata(metadata)).toEqual({ "dcc-mcp": '["a"]' });
  });
});

describe("publishable skills", () => {
  it.each([
    ["an uppercase name", { name: "Maya_Tools" }],
    ["a name over 64 characters", { name: "a".repeat(65) }],
    ["a double hyphen", { name: "a--b" }],
    ["an empty description", { description: "" }],
    ["a description over 1024 characters", { description: "d".repeat(1025) }],
    ["an empty compatibility", { compatibility: "" }],
  ])("refuses %s with a reason", (_what, overrides) => {
    const published = publishedFrontmatter(info(overrides));
    expect(published.ok).toBe(false);
    if (!published.ok) expect(published.reason).toMatch(/^its /);
  });

  it("publishes the Agent Skills keys as loaded", () => {
    const published = publishedFrontmatter(info({ license: "MIT", compatibility: "Maya 2024", allowedTools: ["Bash", "Read"], metadata: { "dcc-mcp": { dcc: "maya" } } }));
    expect(published).toEqual({
      ok: true,
      frontmatter: { name: "maya-geometry", description: "Geometry interchange", license: "MIT", compatibility: "Maya 2024", metadata: { "dcc-mcp.dcc": "maya" }, "allowed-tools": ["Bash", "Read"] },
    });
  });
});

describe("served SKILL.md", () => {
  const hostile = [
    "plain",
    "two words",
    "colon: inside",
    "hash # inside",
    " leading and trailing ",
    "line one\nline two\n\nafter a blank",
    "---",
    "tab\there",
    'quotes "double" and \'single\'',
    "back\\slash",
    "true",
    "null",
    "~",
    "1.0",
    "0x1F",
    ".inf",
    "- dash",
    "[flow]",
    "{map}",
    "*alias",
    "&anchor",
    "!tag",
    "|",
    ">",
    "@at",
    "`tick`",
    "%percent",
    "em — dash, ü, 日本, 🦴",
    "control \u0001\u0007\u001b and DEL \u007f and C1 \u0085",
    "separators \u2028 \u2029 and BOM \ufeff inside",
  ];

  it.each(hostile)("round-trips %j through the SDK's frontmatter reader", async (text) => {
    const frontmatter = {
      name: "maya-geometry",
      description: text,
      license: text,
      metadata: { [text]: text, "dcc-mcp.tags": JSON.stringify([text]) },
      "allowed-tools": [text, "Read"],
    };
    expect(await sdkReads(renderSkillMd(frontmatter, "# Body\n"), "maya-geometry")).toEqual(frontmatter);
  });

  it("keeps the body as loaded after the closing line", () => {
    const body = "\n# Title\n\n---\n\nA rule above; `code`.\n";
    const text = renderSkillMd({ name: "a", description: "b" }, body);
    expect(text).toBe(`---\nname: a\ndescription: b\n---\n${body}`);
  });

  it("writes an empty metadata mapping as {}", async () => {
    const frontmatter = { name: "a", description: "b", metadata: {} };
    expect(await sdkReads(renderSkillMd(frontmatter, ""), "a")).toEqual(frontmatter);
  });
});
