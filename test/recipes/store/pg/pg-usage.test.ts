/** Usage counts in PostgreSQL: replicas add up instead of overwriting, and counts survive a restart. */
import { afterAll, describe, expect, it } from "vitest";
import { openStores, type OpenedStores } from "../../../../src/recipes/store/open-store.js";
import { sharedPostgres } from "../../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`usage table tests skipped: ${cluster}`);

const opened: OpenedStores[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
});

function open(url: string): OpenedStores {
  const stores = openStores({ dcc: "maya", privateDir: "/nonexistent", usageFile: "/nonexistent/usage.json", storeUrl: url });
  opened.push(stores);
  return stores;
}

describe.skipIf(typeof cluster === "string")("PostgreSQL usage counts", () => {
  it("two replicas' counts add up in the table and a restarted one reads them", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const a = open(url);
    const b = open(url);
    await Promise.all([a.usage.load(), b.usage.load()]);
    for (let i = 0; i < 5; i++) a.usage.record("private/x");
    for (let i = 0; i < 3; i++) b.usage.record("private/x");
    b.usage.record("maya-modeling/bevel 'quoted' \u0000");
    await Promise.all([a.usage.flush(), b.usage.flush()]);
    a.usage.record("private/x");
    await a.usage.flush();
    const restarted = open(url);
    await restarted.usage.load();
    expect(restarted.usage.get("private/x")?.count).toBe(9);
    // An id PostgreSQL text cannot hold is counted in memory only, and holds back no other count.
    expect(b.usage.get("maya-modeling/bevel 'quoted' \u0000")?.count).toBe(1);
    expect(restarted.usage.get("maya-modeling/bevel 'quoted' \u0000")).toBeUndefined();
  });
});
