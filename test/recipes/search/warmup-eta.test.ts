import { describe, expect, it } from "vitest";
import { createEtaTracker, formatDuration } from "../../../src/recipes/search/warmup-eta.js";

describe("createEtaTracker", () => {
  it("estimates the time left from the rate since warming was first seen", () => {
    let t = 0;
    const tracker = createEtaTracker(() => t);
    expect(tracker.observe({ semantic: "warming", embedded: 100, total: 10_000 })).toEqual({ embedded: 100, total: 10_000, perSecond: null, etaSeconds: null });
    t = 2000;
    // 660 recipes in 2 s: 330/s, 9,240 left → 28 s.
    expect(tracker.observe({ semantic: "warming", embedded: 760, total: 10_000 })).toEqual({ embedded: 760, total: 10_000, perSecond: 330, etaSeconds: 28 });
  });

  it("answers null when not warming and restarts when the count goes back", () => {
    let t = 0;
    const tracker = createEtaTracker(() => t);
    tracker.observe({ semantic: "warming", embedded: 500, total: 1000 });
    t = 1000;
    expect(tracker.observe({ semantic: "warming", embedded: 100, total: 200 })?.etaSeconds).toBeNull();
    expect(tracker.observe({ semantic: "ready", embedded: 200, total: 200 })).toBeNull();
    expect(tracker.observe({ semantic: "off", embedded: 0, total: 200 })).toBeNull();
  });

  it("never divides by a stalled rate", () => {
    let t = 0;
    const tracker = createEtaTracker(() => t);
    tracker.observe({ semantic: "warming", embedded: 5, total: 10 });
    t = 5000;
    expect(tracker.observe({ semantic: "warming", embedded: 5, total: 10 })).toMatchObject({ perSecond: null, etaSeconds: null });
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0 s"],
    [12.4, "12 s"],
    [245, "4 min 05 s"],
    [3720, "1 h 02 min"],
  ])("%d s → %s", (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});
