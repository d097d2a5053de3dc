// A small Markdown reader for recipe text: it builds a tree of plain data,
// and render.js turns that tree into DOM nodes with textContent only. No
// string of the recipe ever becomes HTML, so raw HTML, <script> and event
// attributes in a recipe show as the text they are; links keep only http(s)
// and mailto targets (javascript:, data: and the rest render as plain text).

const SAFE_HREF = /^(https?:\/\/|mailto:)/i;

/** The href a link may have, or null. */
export function safeHref(raw) {
  const href = String(raw).trim();
  // Control characters and spaces inside a scheme are how "java\tscript:" slips past naive checks.
  if (/[\u0000-\u0020\u007f]/.test(href)) return null;
  return SAFE_HREF.test(href) ? href : null;
}

// Spans are bounded (a recipe line is short; an unbounded lazy match from
// every "*" of a hostile line is quadratic) and matched in place (sticky
// regexes, no slicing).
const CODE = /(`{1,8})([^`][\s\S]{0,1998}?)\1(?!`)/y;
const STRONG = /(\*\*|__)(?=\S)([^\n]{0,498}?\S)\1/y;
const EM = /(\*|_)(?=\S)([^\n*_]{0,498}?\S)\1(?![A-Za-z0-9])/y;
const LINK = /\[([^\]\n]{1,500})\]\(([^)\s]{0,2000})(?:\s+"[^"\n]{0,200}")?\)/y;

function at(re, text, i) {
  re.lastIndex = i;
  return re.exec(text);
}

/** Inline spans: text, code, strong, em, link (href already checked, else plain text). */
export function parseInline(text) {
  const out = [];
  let i = 0;
  let plain = "";
  const flush = () => {
    if (plain !== "") out.push({ type: "text", text: plain });
    plain = "";
  };
  while (i < text.length) {
    const c = text[i];
    let m = null;
    if (c === "`" && (m = at(CODE, text, i))) {
      flush();
      out.push({ type: "code", text: m[2].replace(/^ (.*) $/s, "$1") });
    } else if ((c === "*" || c === "_") && (m = at(STRONG, text, i))) {
      flush();
      out.push({ type: "strong", children: parseInline(m[2]) });
    } else if ((c === "*" || c === "_") && (m = at(EM, text, i))) {
      flush();
      out.push({ type: "em", children: parseInline(m[2]) });
    } else if (c === "[" && (m = at(LINK, text, i))) {
      flush();
      const href = safeHref(m[2]);
      if (href === null) out.push({ type: "text", text: m[0] });
      else out.push({ type: "link", href, children: parseInline(m[1]) });
    }
    if (m) {
      i += m[0].length;
    } else {
      plain += c;
      i += 1;
    }
  }
  flush();
  return out;
}

/** Blocks: heading, code, list, quote, hr, paragraph. */
export function parseMarkdown(source) {
  const lines = String(source).replace(/\r\n?/g, "\n").split("\n");
  const blocks = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (line.trim() === "") {
      i += 1;
    } else if ((m = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/.exec(line))) {
      const fence = m[1];
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
      i += 1;
      blocks.push({ type: "code", lang: m[2] || "", text: body.join("\n") });
    } else if ((m = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      blocks.push({ type: "heading", level: m[1].length, children: parseInline(m[2]) });
      i += 1;
    } else if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ type: "hr" });
      i += 1;
    } else if (/^ {0,3}>/.test(line)) {
      const body = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i])) body.push(lines[i++].replace(/^ {0,3}> ?/, ""));
      blocks.push({ type: "quote", children: parseMarkdown(body.join("\n")) });
    } else if ((m = /^ {0,3}([-*+]|\d{1,9}[.)])\s+/.exec(line))) {
      const ordered = /\d/.test(m[1]);
      const items = [];
      while (i < lines.length) {
        const item = /^ {0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(lines[i]);
        if (item === null || /\d/.test(item[1]) !== ordered) break;
        const text = [item[2]];
        i += 1;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*+]|\d{1,9}[.)])\s+/.test(lines[i])) text.push(lines[i++].trim());
        items.push(parseInline(text.join(" ")));
      }
      blocks.push({ type: "list", ordered, items });
    } else {
      const body = [];
      while (i < lines.length && lines[i].trim() !== "" && !/^ {0,3}(#{1,6}\s|`{3,}|~{3,}|>|([-*+]|\d{1,9}[.)])\s)/.test(lines[i])) body.push(lines[i++].trim());
      if (body.length === 0) body.push(lines[i++].trim());
      blocks.push({ type: "paragraph", children: parseInline(body.join(" ")) });
    }
  }
  return blocks;
}
