/**
 * A private playbook as a public recipe (`recipe-server promote`): a Markdown
 * recipe file of one `## <title>` anchor, or a YAML pack of one entry when the
 * playbook's document is a recipe entry (it carries `inputs_schema`,
 * `output_contract` or tool `steps`, as the document of a public YAML recipe
 * the `recipe` tool handed out does).
 *
 * Everything a playbook holds was typed by an agent, so nothing of it may
 * change the file's structure: the title becomes one heading line, headings
 * of level 1 and 2 inside the text are demoted (a level-2 heading would start
 * a second recipe), and a fence the text leaves open is closed where its
 * section ends. The rendered Markdown is parsed back with the loader's own
 * anchor parser, which must find exactly one anchor.
 */
import YAML from "yaml";
import { parseMarkdownAnchors } from "./markdown.js";
import type { Playbook } from "../types.js";

export interface Provenance {
  /** `private/<slug>`. */
  readonly from: string;
  readonly revision: number;
}

export type Rendered =
  | { readonly ok: true; readonly format: "markdown" | "yaml"; readonly name: string; readonly text: string }
  | { readonly ok: false; readonly message: string };

/** Keys that make a document a recipe entry rather than prose. */
const ENTRY_MARKERS = ["inputs_schema", "output_contract"] as const;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`+|~+)[ \t]*$/;
const LOW_HEADING = /^( {0,3})#{1,2}(?=[ \t]|$)/;

export function renderPlaybook(playbook: Playbook, provenance: Provenance): Rendered {
  const entry = recipeEntryOf(playbook.document);
  return entry === null ? renderMarkdown(playbook, provenance) : renderYaml(playbook, entry, provenance);
}

/** The document as a recipe entry (a YAML mapping, bare or in one ```yaml fence), or null when it is prose. */
export function recipeEntryOf(document: string): Record<string, unknown> | null {
  const fenced = /^\s*(`{3,}|~{3,})[ \t]*ya?ml[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*\1[ \t]*\s*$/.exec(document);
  const source = fenced ? fenced[2]! : document;
  let parsed: unknown;
  try {
    parsed = YAML.parse(source, { maxAliasCount: 100 });
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const map = parsed as Record<string, unknown>;
  const toolSteps = Array.isArray(map["steps"]) && map["steps"].length > 0 && map["steps"].every((s) => s !== null && typeof s === "object" && typeof (s as Record<string, unknown>)["tool"] === "string");
  return ENTRY_MARKERS.some((key) => key in map) || toolSteps ? map : null;
}

/** One line of heading or list text: no line breaks, no control characters, no runs of blanks. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu, " ").replace(/\s+/gu, " ").trim();
}

/** The text of a heading made from `title`: one line, without a trailing `#` run CommonMark would drop as the closing sequence. */
function headingTitle(title: string): string {
  let text = oneLine(title).replace(/^#+(?=\s|$)/, "").trim();
  while (/(^|[ \t])#+$/.test(text)) text = text.replace(/(^|[ \t])#+$/, "").trim();
  return text;
}

/** A block of agent text that cannot end the anchor or leave a fence open past its section. */
export function safeBlock(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").trimEnd().split("\n");
  let fence: { char: string; length: number } | null = null;
  const out: string[] = [];
  for (const line of lines) {
    if (fence !== null) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
      out.push(line);
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      out.push(line);
      continue;
    }
    out.push(line.replace(LOW_HEADING, "$1###"));
  }
  if (fence !== null) out.push(fence.char.repeat(fence.length));
  return out.join("\n");
}

/** The comment that records where a promoted Markdown recipe came from (docs/configuration.md). */
export function provenanceComment(provenance: Provenance): string {
  return `<!-- promoted from ${provenance.from} revision ${provenance.revision} -->`;
}

function renderMarkdown(playbook: Playbook, provenance: Provenance): Rendered {
  const title = headingTitle(playbook.title) || playbook.slug;
  const parts: string[] = [`## ${title}`];
  const section = (heading: string, body: string): void => {
    if (body.trim() !== "") parts.push(`### ${heading}`, safeBlock(body));
  };
  if (playbook.summary.trim() !== "") parts.push(safeBlock(playbook.summary));
  section("When to use", playbook.whenToUse);
  if (playbook.steps.length > 0) {
    parts.push("### Steps");
    playbook.steps.forEach((step, i) => {
      parts.push(`#### ${i + 1}. ${oneLine(step.title) || `Step ${i + 1}`}`);
      if (step.detail.trim() !== "") parts.push(safeBlock(step.detail));
    });
  }
  const criteria = playbook.acceptanceCriteria.map(oneLine).filter((c) => c !== "");
  if (criteria.length > 0) parts.push("### Acceptance criteria", criteria.map((c) => `- ${c}`).join("\n"));
  section("Document", playbook.document);
  parts.push(provenanceComment(provenance));
  const text = `${parts.join("\n\n")}\n`;
  const anchors = parseMarkdownAnchors(text);
  // The escaping above is meant to make this impossible; a file that would read otherwise is not written.
  if (anchors.length !== 1 || anchors[0]!.name === "") {
    return { ok: false, message: `the playbook does not render as one Markdown recipe (${anchors.length} anchors); edit its title or text` };
  }
  return { ok: true, format: "markdown", name: anchors[0]!.name, text };
}

function renderYaml(playbook: Playbook, document: Record<string, unknown>, provenance: Provenance): Rendered {
  const { name: _name, description: _description, provenance: _provenance, ...rest } = document;
  const description = oneLine(playbook.summary) || (typeof document["description"] === "string" ? oneLine(document["description"]) : "") || oneLine(playbook.title);
  const entry: Record<string, unknown> = {
    name: playbook.slug,
    description,
    ...rest,
    title: oneLine(playbook.title),
    ...(playbook.whenToUse.trim() !== "" ? { when_to_use: playbook.whenToUse } : {}),
    ...(playbook.acceptanceCriteria.length > 0 ? { acceptance_criteria: [...playbook.acceptanceCriteria] } : {}),
    ...(playbook.tags.length > 0 && rest["tags"] === undefined ? { tags: [...playbook.tags] } : {}),
    provenance: { from: provenance.from, revision: provenance.revision },
  };
  // lineWidth 0: long strings are never folded.
  const text = YAML.stringify({ recipes: [entry] }, { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
  return { ok: true, format: "yaml", name: playbook.slug, text };
}
