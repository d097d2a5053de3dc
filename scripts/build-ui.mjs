#!/usr/bin/env node
/**
 * Build step for the catalog page: copies its static files (plain ES
 * modules, CSS and the HTML shell, no framework, no CDN) from
 * src/server/ui/static to dist/server/ui/static, beside the compiled
 * src/server/ui/assets.js that serves them.
 */
import { cpSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const from = path.join(root, "src/server/ui/static");
const to = path.join(root, "dist/server/ui/static");
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
