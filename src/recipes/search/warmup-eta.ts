/**
 * Estimated time left in a DCC's semantic warm-up, from the search engine's
 * own status (embedded / total): the rate since warming was first observed.
 * Each caller keeps its own tracker; nothing here is shared.
 */
import type { SearchStatus } from "./engine.js";

export interface WarmupProgress {
  readonly embedded: number;
  readonly total: number;
  /** Recipes embedded per second since warming was first seen; null until measurable. */
  readonly perSecond: number | null;
  /** Seconds left at that rate; null until measurable. */
  readonly etaSeconds: number | null;
}

export interface EtaTracker {
  /** Feed the current status; answers progress while warming, null otherwise. */
  observe(status: Pick<SearchStatus, "semantic" | "embedded" | "total">): WarmupProgress | null;
}

export function createEtaTracker(now: () => number = () => performance.now()): EtaTracker {
  let start: { at: number; embedded: number } | null = null;
  return {
    observe(status) {
      if (status.semantic !== "warming") {
        start = null;
        return null;
      }
      const t = now();
      // A reload can shrink the total below what was embedded: restart the estimate.
      if (start === null || status.embedded < start.embedded) start = { at: t, embedded: status.embedded };
      const seconds = (t - start.at) / 1000;
      const done = status.embedded - start.embedded;
      const perSecond = seconds >= 0.5 && done > 0 ? done / seconds : null;
      const left = Math.max(0, status.total - status.embedded);
      return {
        embedded: status.embedded,
        total: status.total,
        perSecond: perSecond === null ? null : Math.round(perSecond * 10) / 10,
        etaSeconds: perSecond === null ? null : Math.ceil(left / perSecond),
      };
    },
  };
}

/** "1 h 02 min", "4 min 05 s", "12 s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${s} s`;
}
