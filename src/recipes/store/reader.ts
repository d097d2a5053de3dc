/**
 * Reads one playbook file into a playbook or a diagnostic, with a cache of
 * the last parse per file. The cache key is inode, size and nanosecond
 * mtime/ctime: every write (ours by rename, an editor's in place) changes it,
 * so a hit is the same bytes. It spares re-parsing YAML when callers re-read an
 * unchanged file, as retries after a conflict and hot reloads do.
 */
import { promises as fs, type BigIntStats } from "node:fs";
import path from "node:path";
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import { decodeUtf8 } from "../../util/read-bounded.js";
import { parsePlaybookFile, type StoredPlaybook } from "./format.js";

export const PRIVATE_SKILL = "private";

export type ReadOutcome =
  | { readonly kind: "ok"; readonly stored: StoredPlaybook }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly diagnostic: Diagnostic };

interface Flight {
  running: Promise<ReadOutcome> | null;
  queued: Promise<ReadOutcome> | null;
}

export class PlaybookFileReader {
  private readonly parsed = new Map<string, { readonly key: string; readonly stored: StoredPlaybook }>();

  /**
   * Concurrent reads of one file share I/O: a caller arriving while a read is
   * running waits for the next read, which starts after it arrived, so it
   * still sees every write that finished before its call (read-your-writes)
   * while a crowd of callers costs two reads, not one each.
   */
  private readonly flights = new Map<string, Flight>();

  constructor(
    private readonly dir: string,
    private readonly maxFileBytes: number,
  ) {}

  read(slug: string): Promise<ReadOutcome> {
    let flight = this.flights.get(slug);
    if (flight === undefined) {
      flight = { running: null, queued: null };
      this.flights.set(slug, flight);
    }
    const { running, queued } = flight;
    if (running === null) return this.start(slug, flight);
    if (queued !== null) return queued;
    const f = flight;
    const again = (): Promise<ReadOutcome> => {
      f.queued = null;
      return this.start(slug, f);
    };
    const next = running.then(again, again);
    f.queued = next;
    return next;
  }

  private start(slug: string, flight: Flight): Promise<ReadOutcome> {
    const running: Promise<ReadOutcome> = this.readNow(slug).finally(() => {
      if (flight.running !== running) return;
      flight.running = null;
      if (flight.queued === null) this.flights.delete(slug);
    });
    flight.running = running;
    return running;
  }

  private async readNow(slug: string): Promise<ReadOutcome> {
    const file = `${slug}.md`;
    const invalid = (message: string, line?: number): ReadOutcome => ({
      kind: "invalid",
      diagnostic: diagnostic("error", "private_playbook_invalid", message, line === undefined ? { skill: PRIVATE_SKILL, file } : { skill: PRIVATE_SKILL, file, line }),
    });
    const full = path.join(this.dir, file);
    const cached = this.parsed.get(slug);
    if (cached) {
      // One stat instead of open + fstat + close: the common case is an unchanged file.
      const stat = await fs.stat(full, { bigint: true }).catch(() => null);
      if (stat && cacheKey(stat) === cached.key) return { kind: "ok", stored: cached.stored };
    }
    let bytes: Buffer;
    let mtime: Date;
    let key: string;
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(full, "r");
      const stat = await handle.stat({ bigint: true });
      if (!stat.isFile()) return invalid("not a regular file");
      if (stat.size > BigInt(this.maxFileBytes)) {
        return invalid(`the file is ${stat.size} bytes; the limit is ${this.maxFileBytes}`);
      }
      key = cacheKey(stat);
      if (cached?.key === key) return { kind: "ok", stored: cached.stored };
      mtime = stat.mtime;
      bytes = await handle.readFile();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        this.parsed.delete(slug);
        return { kind: "missing" };
      }
      return invalid(`the file cannot be read (${code ?? "error"})`);
    } finally {
      await handle?.close().catch(() => undefined);
    }
    // It may have grown between stat and read.
    if (bytes.length > this.maxFileBytes) return invalid(`the file is over ${this.maxFileBytes} bytes`);
    const text = decodeUtf8(bytes);
    if (text === null) return invalid("the file is not valid UTF-8");
    const parsed = parsePlaybookFile(text, slug, mtime.toISOString());
    if (!parsed.ok) {
      this.parsed.delete(slug);
      return invalid(parsed.message, parsed.line);
    }
    this.parsed.set(slug, { key, stored: parsed.stored });
    return { kind: "ok", stored: parsed.stored };
  }
}

function cacheKey(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
