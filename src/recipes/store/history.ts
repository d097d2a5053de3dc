/**
 * Playbook history, the part both stores share: every write (create, update,
 * restore, delete) keeps the playbook as it stood after it as one revision
 * record, so a bad edit can be undone and a deletion is a tombstone that can
 * be restored. A store keeps the newest `historyLimit` records per playbook
 * (default 50) and answers history newest first, a window at a time.
 *
 * The live playbook is always the newest record; a deleted playbook's newest
 * record is its tombstone (event "delete", holding the content it had), and
 * the playbook is not_found everywhere but in its history.
 */
import type { Playbook } from "../types.js";
import { playbookFields, type PlaybookFields } from "./playbook-values.js";

export const DEFAULT_HISTORY_LIMIT = 50;
/** Fewer would make restore useless; more is the operator's call. */
export const MIN_HISTORY_LIMIT = 2;

export type RevisionEvent = "create" | "update" | "restore" | "delete";
export const REVISION_EVENTS: readonly RevisionEvent[] = ["create", "update", "restore", "delete"];

/** One kept revision: the playbook after the write, and what the write was. */
export interface RevisionRecord {
  readonly playbook: Playbook;
  readonly event: RevisionEvent;
  /** For a restore: the revision whose content it brought back. */
  readonly restoredFrom?: number;
}

/** The live playbook as a history record, for a revision written before history was kept: a create at revision 1, an update after. */
export function liveRecord(playbook: Playbook): RevisionRecord {
  return { playbook, event: playbook.revision === 1 ? "create" : "update" };
}

/** A history line as the tool answers it. */
interface RevisionEntry {
  readonly revision: number;
  readonly at: string;
  /** Whose write: the store's owner (a users-file id), or null for the single user. */
  readonly user: string | null;
  readonly event: RevisionEvent;
  /** Fields that differ from the revision before (all of them for the first kept one when nothing older is kept). */
  readonly changed: readonly string[];
  readonly restoredFrom?: number;
}

export interface HistoryPage {
  /** Newest first. */
  readonly entries: readonly RevisionEntry[];
  /** Revisions kept in all (the window is a part of them). */
  readonly total: number;
  /** The newest record is a tombstone. */
  readonly deleted: boolean;
}

export interface HistoryWindow {
  /** Records to skip from the newest. */
  readonly start: number;
  readonly limit: number;
}

const FIELD_NAMES = ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"] as const;

/** Field names whose values differ between two revisions. */
function changedFields(before: Playbook | null, after: Playbook): string[] {
  if (before === null) return [...FIELD_NAMES];
  const a: PlaybookFields = playbookFields(before);
  const b: PlaybookFields = playbookFields(after);
  return FIELD_NAMES.filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
}

/** The window of `records` (oldest first, as kept) as history entries, newest first. */
export function historyPage(records: readonly RevisionRecord[], owner: string, window: HistoryWindow): HistoryPage {
  const newestFirst = [...records].sort((x, y) => y.playbook.revision - x.playbook.revision);
  const slice = newestFirst.slice(window.start, window.start + window.limit);
  const entries = slice.map((record) => {
    const index = newestFirst.indexOf(record);
    const previous = newestFirst[index + 1]?.playbook ?? null;
    const changed = record.event === "delete" ? [] : changedFields(previous, record.playbook);
    return {
      revision: record.playbook.revision,
      at: record.playbook.updatedAt,
      user: owner === "" ? null : owner,
      event: record.event,
      changed,
      ...(record.restoredFrom !== undefined ? { restoredFrom: record.restoredFrom } : {}),
    };
  });
  return { entries, total: records.length, deleted: newestFirst[0]?.event === "delete" };
}

/**
 * The kept records (oldest first) with the live playbook folded in: the live
 * copy is the truth for its revision (a hand edit may have changed it without
 * a new record), and a playbook gone without a tombstone record (a delete cut
 * short after its commit) shows its deletion. Mutates and returns `records`.
 */
export function withLive(records: RevisionRecord[], live: Playbook | null): RevisionRecord[] {
  if (live !== null) {
    const at = records.findIndex((r) => r.playbook.revision === live.revision);
    if (at >= 0) records[at] = { ...records[at]!, playbook: live };
    else records.push({ playbook: live, event: live.revision === 1 ? "create" : "update" });
    records.sort((a, b) => a.playbook.revision - b.playbook.revision);
  } else {
    const last = records.at(-1);
    if (last !== undefined && last.event !== "delete") records.push({ playbook: { ...last.playbook, revision: last.playbook.revision + 1 }, event: "delete" });
  }
  return records;
}

/** Revisions past the newest `limit` (to remove), given the revision numbers kept. */
export function pastRetention(revisions: readonly number[], limit: number): number[] {
  const sorted = [...revisions].sort((a, b) => b - a);
  return sorted.slice(limit);
}
