/**
 * One line at the bottom of a terminal that progress rewrites in place
 * (carriage return, erase line), with log lines scrolling above it: every
 * line written through `print` first erases the status line, then redraws it.
 * Only for a terminal; anything else gets whole lines (startup-report.ts).
 */

/** What the status line writes to: a terminal's stream. */
interface TerminalOut {
  write(text: string): unknown;
  readonly columns?: number;
}

export interface StatusLine {
  /** Replace the status line's text. */
  show(text: string): void;
  /** Erase it (progress finished, or the process stops). */
  clear(): void;
  /** Write whole lines above it. */
  print(lines: string): void;
}

const ERASE = "\r\u001b[2K";

export function createStatusLine(out: TerminalOut): StatusLine {
  let text = "";
  const fit = (s: string): string => {
    // One physical line: a wrapped status line could not be erased with one \r.
    const width = Math.max(20, (out.columns ?? 80) - 1);
    const single = s.replace(/[\r\n]+/g, " ");
    return single.length > width ? `${single.slice(0, width - 1)}…` : single;
  };
  return {
    show(next) {
      text = fit(next);
      out.write(`${ERASE}${text}`);
    },
    clear() {
      if (text === "") return;
      text = "";
      out.write(ERASE);
    },
    print(lines) {
      out.write(text === "" ? lines : `${ERASE}${lines}${text}`);
    },
  };
}
