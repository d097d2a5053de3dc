// Types of markdown.js for the project's TypeScript tests (the page itself loads the .js).
export type Inline =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "strong" | "em"; children: Inline[] }
  | { type: "link"; href: string; children: Inline[] };
export type Block =
  | { type: "heading"; level: number; children: Inline[] }
  | { type: "code"; lang: string; text: string }
  | { type: "hr" }
  | { type: "quote"; children: Block[] }
  | { type: "list"; ordered: boolean; items: Inline[][] }
  | { type: "paragraph"; children: Inline[] };
export function safeHref(raw: string): string | null;
export function parseInline(text: string): Inline[];
export function parseMarkdown(source: string): Block[];
