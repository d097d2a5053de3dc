/**
 * The file store's history, hand-readable beside the playbooks:
 *
 *   <private dir>/.history/<slug>/<revision>.md
 *
 * one file per kept revision, in the playbook file format (format.ts) with
 * two more frontmatter keys: `event` (create, update, restore, delete) and,
 * for a restore, `restoredFrom`. A human can read, diff or copy any of them
 * back by hand. The folder starts with a dot, so the catalog, the watcher and
 * a directory listing of playbooks pass it by.
 *
 * A deleted playbook is one whose history exists and whose live file does
 * not; its newest record is the tombstone. Revision files are written
 * atomically; the newest `limit` are kept.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { decodeUtf8 } from "../../util/read-bounded.js";
import { ensurePrivateDir, writeFileAtomic } from "./atomic-write.js";
import { parsePlaybookFile, serialisePlaybook } from "./format.js";
import { pastRetention, REVISION_EVENTS, type RevisionEvent, type RevisionRecord } from "./history.js";

export const HISTORY_DIR = ".history";
const REVISION_FILE = /^([1-9][0-9]{0,15})\.md$/;

export class FileHistory {
  constructor(
    private readonly dir: string,
    private readonly maxFileBytes: number,
    private readonly limit: number,
  ) {}

  folder(slug: string): string {
    return path.join(this.dir, HISTORY_DIR, slug);
  }

  /** Whether the playbook has a history here (a slug with one stays taken after a delete). */
  async exists(slug: string): Promise<boolean> {
    return (await fs.stat(this.folder(slug)).catch(() => null))?.isDirectory() ?? false;
  }

  /** The kept revision numbers, oldest first. */
  async revisions(slug: string): Promise<number[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.folder(slug));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const out: number[] = [];
    for (const name of names) {
      const match = REVISION_FILE.exec(name);
      if (match) out.push(Number(match[1]));
    }
    return out.sort((a, b) => a - b);
  }

  /** One record; null when not kept or unreadable (a hand edit that broke it). */
  async read(slug: string, revision: number): Promise<RevisionRecord | null> {
    const file = path.join(this.folder(slug), `${revision}.md`);
    let handle: fs.FileHandle | undefined;
    let bytes: Buffer;
    let mtime: Date;
    try {
      handle = await fs.open(file, "r");
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > this.maxFileBytes) return null;
      mtime = stat.mtime;
      bytes = await handle.readFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    } finally {
      await handle?.close().catch(() => undefined);
    }
    const text = decodeUtf8(bytes);
    if (text === null) return null;
    const parsed = parsePlaybookFile(text, slug, mtime.toISOString());
    if (!parsed.ok) return null;
    const { playbook, extra } = parsed.stored;
    const event = REVISION_EVENTS.includes(extra.event as RevisionEvent) ? (extra.event as RevisionEvent) : "update";
    const from = extra.restoredFrom;
    return { playbook, event, ...(typeof from === "number" && Number.isSafeInteger(from) ? { restoredFrom: from } : {}) };
  }

  /** Every kept record, oldest first (at most `limit`, each at most the playbook size limit). */
  async records(slug: string): Promise<RevisionRecord[]> {
    const out: RevisionRecord[] = [];
    for (const revision of await this.revisions(slug)) {
      const record = await this.read(slug, revision);
      if (record !== null) out.push(record);
    }
    return out;
  }

  /** Writes one record (replacing a half-written one of the same number), then drops what falls past the limit. */
  async write(record: RevisionRecord): Promise<void> {
    const folder = this.folder(record.playbook.slug);
    await ensurePrivateDir(path.dirname(folder));
    await ensurePrivateDir(folder);
    const meta = { event: record.event, ...(record.restoredFrom !== undefined ? { restoredFrom: record.restoredFrom } : {}) };
    await writeFileAtomic(folder, `${record.playbook.revision}.md`, serialisePlaybook(record.playbook, meta));
    for (const old of pastRetention(await this.revisions(record.playbook.slug), this.limit)) {
      await fs.rm(path.join(folder, `${old}.md`), { force: true });
    }
  }

  /** Records `record` unless a record of its revision is kept already (the write that made it recorded it). */
  async ensure(record: RevisionRecord): Promise<void> {
    const kept = await fs.stat(path.join(this.folder(record.playbook.slug), `${record.playbook.revision}.md`)).catch(() => null);
    if (kept === null) await this.write(record);
  }
}
