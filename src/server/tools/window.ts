/** Result windows (docs/tools.md): every tool's text can be paged by the caller. */
export const WINDOW_MAX = 8000;
export const DEFAULT_RESULT_END = 8000;

export interface WindowRequest {
  readonly resultStart: number;
  readonly resultEnd: number;
}

export interface WindowedText {
  readonly text: string;
  /** True when the window holds the whole text. */
  readonly complete: boolean;
  readonly page?: {
    readonly resultStart: number;
    readonly resultEnd: number;
    readonly totalChars: number;
    readonly nextResultStart: number | null;
  };
}

/** Reads and checks the window arguments; a string names the broken rule. */
export function readWindow(args: Readonly<Record<string, unknown>>): WindowRequest | string {
  const start = args.resultStart ?? 0;
  const end = args.resultEnd ?? DEFAULT_RESULT_END;
  if (typeof start !== "number" || !Number.isSafeInteger(start) || start < 0) {
    return "resultStart: must be an integer >= 0";
  }
  if (typeof end !== "number" || !Number.isSafeInteger(end) || end < 1) {
    return "resultEnd: must be an integer >= 1";
  }
  if (end <= start) return "resultEnd: must be greater than resultStart";
  if (end - start > WINDOW_MAX) return `resultEnd: resultEnd - resultStart must be at most ${WINDOW_MAX}`;
  return { resultStart: start, resultEnd: end };
}

export function applyWindow(text: string, window: WindowRequest): WindowedText {
  const total = text.length;
  if (window.resultStart === 0 && window.resultEnd >= total) return { text, complete: true };
  const start = Math.min(window.resultStart, total);
  const end = Math.min(window.resultEnd, total);
  return {
    text: text.slice(start, end),
    complete: false,
    page: {
      resultStart: start,
      resultEnd: end,
      totalChars: total,
      nextResultStart: end < total ? end : null,
    },
  };
}
