/** MIME types of skill files by extension; unknown ones are octet streams. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  py: "text/x-python",
  mel: "text/plain",
  sh: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

export const DIRECTORY_MIME_TYPE = "inode/directory";

export function mimeTypeOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  const extension = fileName.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension]! : "application/octet-stream";
}
