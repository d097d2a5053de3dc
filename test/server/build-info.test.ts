/** recipe_server_build_info: one series, value 1, labelled with the package and Node versions. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createServerMetrics } from "../../src/server/metrics.js";

const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

describe("recipe_server_build_info", () => {
  it("is a gauge of 1 labelled {version, node}", async () => {
    const text = await createServerMetrics({ catalogs: () => [], processMetrics: false }).render();
    expect(text).toContain("# TYPE recipe_server_build_info gauge");
    const series = text.split("\n").filter((l) => l.startsWith("recipe_server_build_info{"));
    expect(series).toEqual([`recipe_server_build_info{version="${version}",node="${process.versions.node}"} 1`]);
  });

  it("two servers in one process each carry it once (no shared registry)", async () => {
    const a = await createServerMetrics({ catalogs: () => [], processMetrics: false }).render();
    const b = await createServerMetrics({ catalogs: () => [], processMetrics: false }).render();
    for (const text of [a, b]) expect(text.split("\n").filter((l) => l.startsWith("recipe_server_build_info{"))).toHaveLength(1);
  });
});
