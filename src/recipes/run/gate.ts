/**
 * One run at a time per DCC (a scene is single-threaded), with a bounded
 * line of waiting runs; past it, `enter` answers busy at once and nothing
 * reaches the DCC. A waiting run whose caller cancels leaves the line.
 */
type Entered = { readonly ok: true; readonly leave: () => void } | { readonly ok: false; readonly reason: "busy" | "cancelled" };

export class RunGate {
  private running = false;
  private readonly waiting: Array<{ readonly admit: () => void }> = [];

  constructor(private readonly maxQueued: number) {}

  /** Runs holding or waiting for the DCC. */
  load(): { running: boolean; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  enter(signal?: AbortSignal): Promise<Entered> {
    if (signal?.aborted === true) return Promise.resolve({ ok: false, reason: "cancelled" });
    if (!this.running) {
      this.running = true;
      return Promise.resolve({ ok: true, leave: this.leaver() });
    }
    if (this.waiting.length >= this.maxQueued) return Promise.resolve({ ok: false, reason: "busy" });
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve({ ok: false, reason: "cancelled" });
      };
      const entry = {
        admit: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve({ ok: true, leave: this.leaver() });
        },
      };
      this.waiting.push(entry);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      if (next === undefined) this.running = false;
      else next.admit();
    };
  }
}
