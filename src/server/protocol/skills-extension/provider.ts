/**
 * The Skills extension (io.modelcontextprotocol/skills, SEP-2640),
 * protocol-neutral: skills/list, skills/get, resources/read of skill files
 * and resources/directory/read, answered from the catalog snapshot current
 * at call time and the files on disk, as results or JSON-RPC error data.
 * No cache fields: the 2026-07-28 leg adds `ttlMs`/`cacheScope` (the 2025
 * backport of the extension has none).
 */
import { createHash } from "node:crypto";
import type { CatalogSnapshot } from "../../../recipes/catalog/catalog.js";
import { readInside } from "../../../util/read-inside.js";
import { isRecord } from "../prompts/arguments.js";
import { decodeCursor, encodeCursor, failure, indexAfter, INVALID_PARAMS, quoted, echoed, success, type Outcome } from "../outcome.js";
import type { PublishedFrontmatter } from "./frontmatter.js";
import { MAX_FILE_BYTES, SKILL_BYTE_LIMIT, walkSkill, type SkillFile, type SkillTree } from "./files.js";
import { publishCatalog, type PublishedCatalog, type PublishedSkill } from "./published.js";
import { parseSkillUri, skillUri, SKILL_SCHEME } from "./uri.js";

export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";
/** The extension's capability value: this server implements resources/directory/read. */
export const SKILLS_CAPABILITY: Readonly<{ directoryRead: true }> = Object.freeze({ directoryRead: true });

interface CatalogReader {
  current(): CatalogSnapshot | null;
}

interface SkillsProviderOptions {
  readonly source: CatalogReader;
  /** Skills per skills/list page and children per directory page (default 50). */
  readonly pageSize?: number;
  /** Told once per snapshot of each skill the extension cannot serve, and why. */
  readonly onLeftOut?: (skill: string, reason: string) => void;
  /** Told of each skill file read and hashed for a manifest: once per file and change, not per request. */
  readonly onHashed?: (skill: string, path: string) => void;
}

interface SkillResource {
  readonly uri: string;
  /** `sha256:` + 64 lowercase hex digits of exactly the bytes served. */
  readonly digest: string;
  readonly size: number;
}

export interface Skill {
  readonly uri: string;
  readonly frontmatter: PublishedFrontmatter;
  readonly resources: readonly SkillResource[];
}

type ResourceContents =
  | { readonly uri: string; readonly mimeType: string; readonly text: string }
  | { readonly uri: string; readonly mimeType: string; readonly blob: string };

interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size?: number;
}

interface ListedResource {
  readonly uri: string;
  readonly name: string;
  readonly description: string;
  readonly mimeType: string;
  readonly size: number;
}

export interface SkillsProvider {
  /** Is `uri` one this provider answers resources/read for (a `skill://` URI)? */
  handles(uri: unknown): boolean;
  list(params?: unknown): Promise<Outcome<{ skills: Skill[]; nextCursor?: string }>>;
  get(params: unknown): Promise<Outcome<{ skill: Skill }>>;
  /** resources/read of a skill file (`params.uri`). */
  read(params: unknown): Promise<Outcome<{ contents: ResourceContents[] }>>;
  readDirectory(params: unknown): Promise<Outcome<{ resources: DirectoryChild[]; nextCursor?: string }>>;
  /** The SKILL.md of every served skill, for resources/list. */
  listResources(): ListedResource[];
}

const SKILL_CURSOR = "skill";
const CHILD_CURSOR = "child";
const EMPTY: PublishedCatalog = { names: [], skills: new Map(), left: [] };
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function createSkillsProvider(options: SkillsProviderOptions): SkillsProvider {
  const pageSize = options.pageSize ?? 50;
  const catalogs = new WeakMap<CatalogSnapshot, PublishedCatalog>();
  /**
   * Digests per published skill (so per catalog revision), by file: a file
   * is read and hashed again only when the walk sees a new stamp (it changed
   * on disk), not on every skills/list or skills/get.
   */
  const digests = new WeakMap<PublishedSkill, Map<string, { readonly stamp: string; readonly digest: string; readonly size: number }>>();
  const current = (): PublishedCatalog => {
    const snapshot = options.source.current();
    if (snapshot === null) return EMPTY;
    let catalog = catalogs.get(snapshot);
    if (catalog === undefined) {
      catalog = publishCatalog(snapshot);
      catalogs.set(snapshot, catalog);
      for (const { skill, reason } of catalog.left) options.onLeftOut?.(skill, reason);
    }
    return catalog;
  };
  const notServed = (uri: unknown): Outcome<never> =>
    failure(INVALID_PARAMS, `No skill is served at ${quoted(String(uri))}`, typeof uri === "string" ? { uri: echoed(uri) } : undefined);
  const notFound = (uri: string): Outcome<never> => failure(INVALID_PARAMS, `Resource not found: ${quoted(uri)}`, { uri: echoed(uri) });

  /** A served skill with its current files, or why it is not served. */
  const load = async (published: PublishedSkill): Promise<{ tree: SkillTree } | { reason: string }> => {
    const tree = await walkSkill(published.entry.info.dir, published.refused, published.entry.info.realDir);
    if (tree.overLimit) return { reason: "it has more files than the Skills extension's limit of 512" };
    return { tree };
  };

  const entryOf = async (published: PublishedSkill): Promise<Skill | null> => {
    const loaded = await load(published);
    if (!("tree" in loaded)) {
      options.onLeftOut?.(published.name, loaded.reason);
      return null;
    }
    const tooLarge = (): null => {
      options.onLeftOut?.(published.name, "its files are over the Skills extension's limit of 16 MiB");
      return null;
    };
    // The sizes the walk saw decide before anything is read; the bytes read decide again below.
    let seen = published.skillMd.length;
    for (const file of loaded.tree.files) seen += file.size;
    if (seen > SKILL_BYTE_LIMIT) return tooLarge();
    let known = digests.get(published);
    if (known === undefined) digests.set(published, (known = new Map()));
    // The served SKILL.md is made from the snapshot: one digest per published skill.
    let skillMd = known.get("");
    if (skillMd === undefined) known.set("", (skillMd = { stamp: "", ...digestOf(published.skillMd) }));
    const resources: SkillResource[] = [{ uri: published.uri, digest: skillMd.digest, size: skillMd.size }];
    let total = published.skillMd.length;
    for (const file of loaded.tree.files) {
      const uri = fileUri(published.name, file.path);
      if (uri === null) continue;
      let digest = known.get(file.path);
      if (digest === undefined || digest.stamp !== file.stamp) {
        const read = readInside(loaded.tree.root, file.real, MAX_FILE_BYTES);
        if (!read.ok) {
          known.delete(file.path);
          continue;
        }
        digest = { stamp: file.stamp, ...digestOf(read.bytes) };
        known.set(file.path, digest);
        options.onHashed?.(published.name, file.path);
      }
      total += digest.size;
      resources.push({ uri, digest: digest.digest, size: digest.size });
    }
    // Files gone from the disk leave the cache (a rename storm cannot grow it past the skill's files).
    if (known.size > loaded.tree.files.length + 1) {
      const present = new Set(loaded.tree.files.map((f) => f.path));
      for (const key of known.keys()) if (key !== "" && !present.has(key)) known.delete(key);
    }
    if (total > SKILL_BYTE_LIMIT) return tooLarge();
    resources.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    return { uri: published.uri, frontmatter: published.frontmatter, resources };
  };

  return {
    handles: (uri) => typeof uri === "string" && uri.startsWith(SKILL_SCHEME),

    async list(params) {
      const cursor = isRecord(params) ? params["cursor"] : undefined;
      const after = cursor === undefined ? null : decodeCursor(SKILL_CURSOR, cursor);
      if (cursor !== undefined && after === null) return failure(INVALID_PARAMS, "Invalid cursor");
      const catalog = current();
      const start = after === null ? 0 : indexAfter(catalog.names, after);
      const names = catalog.names.slice(start, start + pageSize);
      const skills: Skill[] = [];
      for (const name of names) {
        const entry = await entryOf(catalog.skills.get(name)!);
        if (entry !== null) skills.push(entry);
      }
      const more = start + names.length < catalog.names.length && names.length > 0;
      return success(more ? { skills, nextCursor: encodeCursor(SKILL_CURSOR, names.at(-1)!) } : { skills });
    },

    async get(params) {
      const uri = isRecord(params) ? params["uri"] : undefined;
      const address = parseSkillUri(uri);
      if (address === null || address.path.length !== 1 || address.path[0] !== "SKILL.md") return notServed(uri);
      const published = current().skills.get(address.skill);
      const entry = published === undefined ? null : await entryOf(published);
      return entry === null ? notServed(uri) : success({ skill: entry });
    },

    async read(params) {
      const uri = isRecord(params) ? params["uri"] : undefined;
      if (typeof uri !== "string") return failure(INVALID_PARAMS, "resources/read needs a string uri");
      const address = parseSkillUri(uri);
      const published = address === null ? undefined : current().skills.get(address.skill);
      if (address === null || published === undefined) return notFound(uri);
      const relative = address.path.join("/");
      if (relative === "SKILL.md") return success({ contents: [contentsOf(uri, "SKILL.md", published.skillMd)] });
      const loaded = await load(published);
      if (!("tree" in loaded)) return notFound(uri);
      if (relative === "" || loaded.tree.dirs.includes(relative)) {
        return failure(INVALID_PARAMS, `${quoted(uri)} is a directory; use resources/directory/read`, { uri: echoed(uri) });
      }
      // Only a file the manifest can list: inside, served, and representable as a URI.
      const file = loaded.tree.files.find((f: SkillFile) => f.path === relative);
      const read = file === undefined || fileUri(published.name, file.path) === null ? null : readInside(loaded.tree.root, file.real, MAX_FILE_BYTES);
      if (read === null || !read.ok) return notFound(uri);
      return success({ contents: [contentsOf(uri, relative, read.bytes)] });
    },

    async readDirectory(params) {
      const uri = isRecord(params) ? params["uri"] : undefined;
      const cursor = isRecord(params) ? params["cursor"] : undefined;
      const after = cursor === undefined ? null : decodeCursor(CHILD_CURSOR, cursor);
      if (cursor !== undefined && after === null) return failure(INVALID_PARAMS, "Invalid cursor");
      const notDirectory = failure<never>(INVALID_PARAMS, `${quoted(String(uri))} is not a directory resource`);
      const address = parseSkillUri(uri);
      const published = address === null ? undefined : current().skills.get(address.skill);
      if (address === null || published === undefined) return notDirectory;
      const loaded = await load(published);
      const relative = address.path.join("/");
      if (!("tree" in loaded) || !loaded.tree.dirs.includes(relative)) return notDirectory;
      const children = childrenOf(published, loaded.tree, relative);
      const start = after === null ? 0 : indexAfter(children.map((c) => c.uri), after);
      const page = children.slice(start, start + pageSize);
      const more = start + page.length < children.length && page.length > 0;
      return success(more ? { resources: page, nextCursor: encodeCursor(CHILD_CURSOR, page.at(-1)!.uri) } : { resources: page });
    },

    listResources() {
      const catalog = current();
      return catalog.names.map((name) => {
        const published = catalog.skills.get(name)!;
        return {
          uri: published.uri,
          name,
          description: published.entry.info.description,
          mimeType: "text/markdown",
          size: published.skillMd.length,
        };
      });
    },
  };
}

function fileUri(skill: string, relative: string): string | null {
  return skillUri(skill, relative.split("/"));
}

function digestOf(bytes: Buffer): { digest: string; size: number } {
  return { digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, size: bytes.length };
}

/** Text when the bytes are UTF-8 (a BOM kept, so the text re-encodes to the same bytes), else base64. */
function contentsOf(uri: string, relative: string, bytes: Buffer): ResourceContents {
  const mimeType = mimeTypeOf(relative.slice(relative.lastIndexOf("/") + 1));
  try {
    return { uri, mimeType, text: utf8.decode(bytes) };
  } catch {
    return { uri, mimeType, blob: bytes.toString("base64") };
  }
}

function childrenOf(published: PublishedSkill, tree: SkillTree, dir: string): DirectoryChild[] {
  const parentOf = (p: string): string => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
  const baseOf = (p: string): string => p.slice(p.lastIndexOf("/") + 1);
  const children: DirectoryChild[] = [];
  if (dir === "") children.push({ uri: published.uri, name: "SKILL.md", mimeType: "text/markdown", size: published.skillMd.length });
  for (const sub of tree.dirs) {
    if (sub === "" || parentOf(sub) !== dir) continue;
    const uri = fileUri(published.name, sub);
    if (uri !== null) children.push({ uri, name: baseOf(sub), mimeType: DIRECTORY_MIME_TYPE });
  }
  for (const file of tree.files) {
    if (parentOf(file.path) !== dir) continue;
    const uri = fileUri(published.name, file.path);
    if (uri !== null) children.push({ uri, name: baseOf(file.path), mimeType: mimeTypeOf(baseOf(file.path)), size: file.size });
  }
  children.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return children;
}

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

const DIRECTORY_MIME_TYPE = "inode/directory";

function mimeTypeOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  const extension = fileName.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension]! : "application/octet-stream";
}
