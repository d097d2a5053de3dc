// Turns markdown.js trees into DOM nodes. Only createElement, textContent
// and a checked href: nothing here parses HTML.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "className") node.className = String(value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function inlineNodes(spans) {
  return spans.map((span) => {
    switch (span.type) {
      case "code":
        return el("code", { text: span.text });
      case "strong":
        return el("strong", {}, ...inlineNodes(span.children));
      case "em":
        return el("em", {}, ...inlineNodes(span.children));
      case "link":
        return el("a", { href: span.href, rel: "noopener noreferrer nofollow", target: "_blank" }, ...inlineNodes(span.children));
      default:
        return document.createTextNode(span.text);
    }
  });
}

export function renderBlocks(blocks) {
  const out = document.createDocumentFragment();
  for (const block of blocks) {
    switch (block.type) {
      case "heading":
        out.append(el(`h${Math.min(6, block.level + 2)}`, {}, ...inlineNodes(block.children)));
        break;
      case "code":
        out.append(el("pre", {}, el("code", { text: block.text, "data-lang": block.lang || undefined })));
        break;
      case "hr":
        out.append(el("hr"));
        break;
      case "quote":
        out.append(el("blockquote", {}, renderBlocks(block.children)));
        break;
      case "list":
        out.append(el(block.ordered ? "ol" : "ul", {}, ...block.items.map((item) => el("li", {}, ...inlineNodes(item)))));
        break;
      default:
        out.append(el("p", {}, ...inlineNodes(block.children)));
    }
  }
  return out;
}
