/**
 * Parsed YAML packs cached across restarts. Parsing and compiling a large
 * catalog's packs is most of a cold start (20,000 recipes: ~2 s of YAML and
 * schema compiles on one core); reading the files again and hashing them is
 * a few dozen ms, so a restart only parses what changed.
 *
 * Keyed by a content hash of (the code that parses, the file's skill-relative
 * name, its bytes): no mtime games, and a new build of the daemon never
 * trusts what an older one parsed. The file is a header line and framed
 * entries, each with a digest (parse-cache-file.ts); a file that does not read back
 * whole is discarded, an entry that fails its digest or shape is a miss.
 * Writes happen after the catalog is served, in slices, atomically.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fstatSync, openSync, read as readAt, readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isPackRecord } from "./pack-record-check.js";
import { decodeValue, digestOf, encodeFrame, fileHeader, pendingFrame, readFrames, type Frame } from "./parse-cache-file.js";
import type { PackRecord } from "./parsed-pack.js";

/** The writer's one reused buffer: frames are encoded into it, written, and it is filled again. */
const WRITE_CHUNK_BYTES = 1024 * 1024;
/** Work done between yields while persisting, so requests keep flowing. */
const SLICE_MS = 5;

export interface ParseCacheLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface ParseCacheStats {
  readonly hits: number;
  readonly misses: number;
}

/**
 * Hash of the modules whose behaviour decides a PackRecord (loaders, YAML
 * fast path, validator) and of package.json (which pins the YAML parsers).
 */
function codeFingerprint(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const hash = createHash("sha256");
  const dirs = [here, path.join(here, "../../skills"), path.join(here, "../../jsonschema"), path.join(here, "../../jsonschema/keywords")];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => /\.(js|ts)$/.test(n) && !n.endsWith(".d.ts")).sort();
    } catch {
      continue;
    }
    for (const name of names) hash.update(name).update("\0").update(readFileSync(path.join(dir, name))).update("\0");
  }
  try {
    hash.update(readFileSync(path.join(here, "../../../package.json")));
  } catch {
    // Embedded without its package.json: the module hashes above still pin the code.
  }
  return hash.digest("base64url");
}

/** The parse cache key of a pack: code fingerprint, skill-relative name, raw bytes. */
export function packCacheKey(fingerprint: string, file: string, content: string | Uint8Array): string {
  return createHash("sha256").update(fingerprint).update("\0").update(file).update("\0").update(content).digest("base64url");
}

/** A write may take fewer bytes than asked: the rest goes in the next call (where a full disk fails). */
async function writeAll(handle: fs.FileHandle, bytes: Buffer, length: number): Promise<void> {
  for (let at = 0; at < length; ) {
    const { bytesWritten } = await handle.write(bytes, at, length - at);
    if (bytesWritten === 0) throw new Error("the parse cache file took no bytes");
    at += bytesWritten;
  }
}

/**
 * The cache file's bytes, or null when there is none. Opened and sized at
 * once, then read whole in one request to the thread pool, which copies it
 * while this thread evaluates the server's modules: fs.readFile's 512 KB
 * chunks each waited for a turn of the event loop, so a restart's load sat
 * idle behind the last ones (18 MB at 20,000 recipes).
 */
async function readWhole(file: string): Promise<Buffer | null> {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.allocUnsafeSlow(size);
    for (let at = 0; at < size; ) {
      const read = await new Promise<number>((resolve, reject) => readAt(fd, bytes, at, size - at, at, (err, n) => (err === null ? resolve(n) : reject(err))));
      // Shorter than it was when opened: readFrames judges what there is.
      if (read === 0) return bytes.subarray(0, at);
      at += read;
    }
    return bytes;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export class ParseCache {
  /** Entries read from disk, decoded on first use. */
  private stored = new Map<string, Frame>();
  private live = new Map<string, PackRecord>();
  private hits = 0;
  private misses = 0;
  private persisting: Promise<void> | null = null;
  /** Keys of the file on disk, when this process wrote or read it whole. */
  private onDisk: ReadonlySet<string> = new Set();
  /**
   * The file on disk is this build's, as onDisk says. Until then even an
   * empty cache is written: the file's presence tells the next start that a
   * load finished here (see firstLoadParses), so it starts no early workers.
   */
  private fileCurrent = false;

  private readonly fingerprint = codeFingerprint();

  constructor(
    /** null: memory only (tests, embedding without a state dir). */
    private readonly file: string | null,
    private readonly logger?: ParseCacheLogger,
  ) {}

  /** Reads the persisted entries (replacing any not yet used). */
  async load(): Promise<void> {
    if (this.file !== null) await this.read(this.file);
  }

  /** True while nothing is cached: every pack of a load will have to be parsed. */
  isEmpty(): boolean {
    return this.stored.size === 0 && this.live.size === 0;
  }

  /** Key of a pack file by its skill-relative name and raw content. */
  keyOf(file: string, content: string | Uint8Array): string {
    return packCacheKey(this.fingerprint, file, content);
  }

  get(key: string): PackRecord | undefined {
    const live = this.live.get(key);
    if (live !== undefined) {
      this.hits += 1;
      return live;
    }
    const frame = this.stored.get(key);
    if (frame === undefined) {
      this.misses += 1;
      return undefined;
    }
    this.stored.delete(key);
    let parsed: unknown;
    try {
      parsed = digestOf(frame.value).equals(frame.digest) ? decodeValue(frame.value) : null;
    } catch {
      parsed = null; // summaries that are not JSON
    }
    if (!isPackRecord(parsed)) {
      this.misses += 1;
      return undefined;
    }
    this.live.set(key, parsed);
    this.hits += 1;
    return parsed;
  }

  set(key: string, parsed: PackRecord): void {
    this.live.set(key, parsed);
  }

  /** A pack parsed without a lookup (a cold load keys it where it is read): a miss, then kept. */
  setParsed(key: string, parsed: PackRecord): void {
    this.misses += 1;
    this.live.set(key, parsed);
  }

  /** What packCacheKey needs to key a pack elsewhere (a parse worker) as keyOf does. */
  get keyFingerprint(): string {
    return this.fingerprint;
  }

  stats(): ParseCacheStats {
    return { hits: this.hits, misses: this.misses };
  }

  /**
   * Writes the entries named by `keep` (the files the catalog serves now) and
   * forgets the rest. Calls run one after another; one that finds the file
   * already holding exactly these entries writes nothing.
   */
  persist(keep: ReadonlySet<string>): Promise<void> {
    const run = (this.persisting ?? Promise.resolve()).then(() => this.write(keep));
    this.persisting = run;
    const settle = (): void => {
      if (this.persisting === run) this.persisting = null;
    };
    run.then(settle, settle);
    return run;
  }

  /** Drops parses the catalog no longer serves (memory only; the file changes on the next persist). */
  forget(keep: ReadonlySet<string>): void {
    for (const key of [...this.live.keys()]) if (!keep.has(key)) this.live.delete(key);
  }

  /** Resolves when no write is in flight. */
  async idle(): Promise<void> {
    while (this.persisting !== null) await this.persisting;
  }

  private async write(keep: ReadonlySet<string>): Promise<void> {
    this.forget(keep);
    this.stored.clear();
    if (this.file === null) return;
    // Nothing parsed or dropped since the file was read or written: keep it.
    if (this.fileCurrent && this.live.size === this.onDisk.size && [...this.live.keys()].every((k) => this.onDisk.has(k))) return;
    const entries = [...this.live];
    const file = this.file;
    // Streamed to a temp file through one reused megabyte: built whole in
    // memory, a 20,000-recipe cache (24 MB, twice over with the final
    // concat) left the process ~60 MB larger after its first start; each
    // entry v8-serialised on its own, ~28 MB (native buffers, freed late and
    // kept mapped). See parse-cache-file.ts.
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      const handle = await fs.open(temp, "w");
      try {
        const chunk = Buffer.allocUnsafeSlow(WRITE_CHUNK_BYTES);
        let used = chunk.write(fileHeader(this.fingerprint));
        let sliceStart = performance.now();
        for (const [key, parsed] of entries) {
          const frame = pendingFrame(key, parsed);
          if (used + frame.length > chunk.length && used > 0) {
            await writeAll(handle, chunk, used);
            used = 0;
          }
          if (frame.length > chunk.length) {
            // A pack larger than the chunk (rare: see MAX_RECIPE_FILE_BYTES) gets a buffer of its own.
            const own = Buffer.allocUnsafeSlow(frame.length);
            encodeFrame(own, 0, frame);
            await writeAll(handle, own, own.length);
          } else used = encodeFrame(chunk, used, frame);
          if (performance.now() - sliceStart > SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
          }
        }
        if (used > 0) await writeAll(handle, chunk, used);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, file);
      this.onDisk = new Set(entries.map(([key]) => key));
      this.fileCurrent = true;
    } catch (err) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      this.logger?.warn({ err: (err as Error).message }, "parse cache not written; the next start parses every pack");
    }
  }

  private async read(file: string): Promise<void> {
    const bytes = await readWhole(file);
    if (bytes === null) return; // no cache yet
    const entries = readFrames(bytes, this.fingerprint);
    if (entries === "foreign") {
      // Expected once after every upgrade: nothing is wrong, the packs are parsed afresh.
      this.logger?.info({ cache: path.basename(file) }, "parse cache is from another build of the daemon; packs are parsed afresh");
      return;
    }
    if (entries === null) {
      this.logger?.warn({ cache: path.basename(file) }, "parse cache is corrupt; discarded, packs are parsed afresh");
      return;
    }
    this.stored = entries;
    this.onDisk = new Set(entries.keys());
    this.fileCurrent = true;
  }
}
