/**
 * Regression: the warm-up ETA rose at every look while embedding advanced at
 * a slowing rate (18 lines in 8 s, each with a later finish). While progress
 * advances it must never rise; a stall or a reload may let it.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createEtaTracker } from "../../../src/recipes/search/warmup-eta.js";

describe("warm-up ETA while progress advances", () => {
  it("holds instead of rising when the rate slows", () => {
    let t = 0;
    const tracker = createEtaTracker(() => t);
    tracker.observe({ semantic: "warming", embedded: 0, total: 1000 });
    t = 1000;
    const first = tracker.observe({ semantic: "warming", embedded: 200, total: 1000 })!.etaSeconds!; // 200/s → 4 s
    expect(first).toBe(4);
    t = 2000;
    // 50 more in the next second: the average rate fell to 125/s (6 s left at it); the estimate holds at 3 s.
    expect(tracker.observe({ semantic: "warming", embedded: 250, total: 1000 })!.etaSeconds).toBe(3);
  });

  it("falls when the rate rises", () => {
    let t = 0;
    const tracker = createEtaTracker(() => t);
    tracker.observe({ semantic: "warming", embedded: 0, total: 1000 });
    t = 1000;
    expect(tracker.observe({ semantic: "warming", embedded: 100, total: 1000 })!.etaSeconds).toBe(9);
    t = 2000;
    expect(tracker.observe({ semantic: "warming", embedded: 600, total: 1000 })!.etaSeconds).toBe(2);
  });

  it("may rise again after a stall, and starts over after a reload", () => {
    let t = 0;
    const tracker = createEtaTracker(() => t);
    tracker.observe({ semantic: "warming", embedded: 20, total: 120 });
    t = 1000;
    expect(tracker.observe({ semantic: "warming", embedded: 70, total: 120 })!.etaSeconds).toBe(1);
    t = 5000;
    const stalled = tracker.observe({ semantic: "warming", embedded: 70, total: 120 })!.etaSeconds!;
    expect(stalled).toBeGreaterThan(1); // nothing embedded for 4 s: the honest estimate is later
    t = 6000;
    expect(tracker.observe({ semantic: "warming", embedded: 10, total: 40 })!.etaSeconds).toBeNull();
  });

  it("property: over any advancing sequence of looks, the ETA never rises", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 100, max: 5000 })), { minLength: 2, maxLength: 60 }), (steps) => {
        let t = 0;
        let embedded = 0;
        const total = steps.reduce((sum, [n]) => sum + n, 0) + 1;
        const tracker = createEtaTracker(() => t);
        tracker.observe({ semantic: "warming", embedded, total });
        let previous: number | null = null;
        for (const [n, ms] of steps) {
          t += ms;
          embedded += n;
          const eta = tracker.observe({ semantic: "warming", embedded, total })!.etaSeconds;
          if (eta !== null && previous !== null && eta > previous) return false;
          if (eta !== null) previous = eta;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
