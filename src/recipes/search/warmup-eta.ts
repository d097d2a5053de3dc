/**
 * Estimated time left in a DCC's semantic warm-up, from the search engine's
 * own status (embedded / total): the rate since warming was first observed.
 * While embedding advances, the estimate never rises: a slower stretch holds
 * it where it was instead of pushing the finish further out at every look
 * (a person watching a countdown that goes up stops trusting it). Only a
 * stall (no recipe embedded since the last look) or a reload lets it rise.
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
  let last: { at: number; embedded: number; total: number; eta: number } | null = null;
  return {
    observe(status) {
      if (status.semantic !== "warming") {
        start = null;
        last = null;
        return null;
      }
      const t = now();
      // A reload can shrink the total below what was embedded: restart the estimate.
      if (start === null || status.embedded < start.embedded) {
        start = { at: t, embedded: status.embedded };
        last = null;
      }
      const seconds = (t - start.at) / 1000;
      const done = status.embedded - start.embedded;
      const perSecond = seconds >= 0.5 && done > 0 ? done / seconds : null;
      const left = Math.max(0, status.total - status.embedded);
      let eta = perSecond === null ? null : Math.ceil(left / perSecond);
      if (eta !== null && last !== null && status.embedded > last.embedded && status.total <= last.total) {
        // Advancing: at most what was promised last time, less the time since.
        eta = Math.min(eta, Math.max(0, Math.ceil(last.eta - (t - last.at) / 1000)));
      }
      if (eta !== null && (last === null || status.embedded !== last.embedded || status.total !== last.total)) {
        last = { at: t, embedded: status.embedded, total: status.total, eta };
      }
      return {
        embedded: status.embedded,
        total: status.total,
        perSecond: perSecond === null ? null : Math.round(perSecond * 10) / 10,
        etaSeconds: eta,
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
