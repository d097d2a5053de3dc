/**
 * A call's context pins the snapshot it answers from: a publish during the
 * call changes neither what the handler sees nor the revision the answer is
 * stamped with.
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { answerRevision, recipeContext, snapshotOf } from "../../../src/server/tools/context.js";
import { createArgs, makeFixture, type Fixture } from "./recipe-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("recipeContext", () => {
  it("pins the library's snapshot on first read, for the whole call", async () => {
    fixture = await makeFixture();
    const f = fixture;
    const context = recipeContext(f.library, pino({ level: "silent" }), { signal: new AbortController().signal });
    const pinned = snapshotOf(context);
    expect(pinned).toBe(f.library.current());
    expect((await f.call(createArgs())).success).toBe(true);
    expect(f.library.current()!.revision).toBeGreaterThan(pinned!.revision);
    expect(snapshotOf(context)).toBe(pinned);
    expect(answerRevision(context)).toBe(pinned!.revision);
    // A context without a pinned snapshot (a plain object) reads the current one.
    expect(answerRevision(f.context)).toBe(f.library.current()!.revision);
  });

  it("pins nothing before the first load", async () => {
    fixture = await makeFixture({ load: false });
    const f = fixture;
    const context = recipeContext(f.library, pino({ level: "silent" }), { signal: new AbortController().signal });
    expect(snapshotOf(context)).toBeNull();
    await f.library.load();
    expect(snapshotOf(context)).toBe(f.library.current());
  });
});
