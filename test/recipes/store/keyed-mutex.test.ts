import { describe, expect, it } from "vitest";
import { KeyedMutex } from "../../../src/recipes/store/keyed-mutex.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
