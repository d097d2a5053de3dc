/**
 * The catalog page's static files, read once at start from the directory
 * beside this module: src/server/ui/static when run from the sources,
 * dist/server/ui/static as scripts/build-ui.mjs copies it. No CDN, nothing
 * fetched at run time.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Asset name → file, or an empty map when the files are absent (the page then answers 404). */
export function loadAssets(dir: URL = new URL("./static/", import.meta.url)): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  let names: string[];
  try {
    names = readdirSync(fileURLToPath(dir));
  } catch {
    return assets;
  }
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf("."));
    const contentType = TYPES[ext];
    if (contentType === undefined || !/^[a-z0-9-]+\.[a-z]+$/.test(name)) continue;
    assets.set(name, { body: readFileSync(new URL(name, dir)), contentType });
  }
  return assets;
}
