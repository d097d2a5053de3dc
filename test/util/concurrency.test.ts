import { describe, expect, it } from "vitest";
import { createPacer, KeyedMutex, mapLimit } from "../../src/util/concurrency.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("mapLimit", () => {
  it("keeps input order and never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, n));
      running -= 1;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(peak).toBe(3);
  });

  it("handles empty input and a limit above the item count", async () => {
    expect(await mapLimit([], 8, async () => 1)).toEqual([]);
    expect(await mapLimit([1, 2], 100, async (n) => n + 1)).toEqual([2, 3]);
  });

  it("rejects with the first failure", async () => {
    await expect(mapLimit([1, 2, 3], 2, async (n) => {
      if (n === 2) throw new Error("boom");
      return n;
    })).rejects.toThrow("boom");
  });
});

describe("createPacer", () => {
  it("lets a queued macrotask run once the budget is spent, not before", async () => {
    const pace = createPacer(5);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await pace();
    expect(ran).toBe(false);
    const until = performance.now() + 8;
    while (performance.now() < until) {
      /* a slice of CPU-bound loading */
    }
    await pace();
    expect(ran).toBe(true);
  });
});

describe("KeyedMutex", () => {
  it("runs tasks of one key one at a time, in call order", async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    let active = 0;
    let maxActive = 0;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        mutex.run("k", async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await tick();
          log.push(String(i));
          active--;
        }),
      ),
    );
    expect(maxActive).toBe(1);
    expect(log).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    expect(mutex.size).toBe(0);
  });

  it("runs different keys concurrently", async () => {
    const mutex = new KeyedMutex();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const blocked = mutex.run("a", () => gate);
    let otherRan = false;
    await mutex.run("b", async () => {
      otherRan = true;
    });
    expect(otherRan).toBe(true);
    release();
    await blocked;
  });

  it("keeps the chain going after a task fails", async () => {
    const mutex = new KeyedMutex();
    const failed = mutex.run("k", async () => {
      throw new Error("boom");
    });
    const next = mutex.run("k", async () => "after");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("after");
  });

  it("idle waits for tasks queued while waiting", async () => {
    const mutex = new KeyedMutex();
    const done: number[] = [];
    void mutex.run("a", async () => {
      await tick();
      done.push(1);
      void mutex.run("b", async () => {
        await tick();
        done.push(2);
      });
    });
    await mutex.idle();
    expect(done).toEqual([1, 2]);
  });
});
