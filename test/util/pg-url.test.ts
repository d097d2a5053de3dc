import { describe, expect, it } from "vitest";
import { checkStoreUrl, redactStoreUrl } from "../../src/util/pg-url.js";

describe("--store URL", () => {
  it("accepts postgres:// and postgresql:// and shows them without the password", () => {
    expect(checkStoreUrl("postgres://app:hunter2@db.internal:5432/recipes?sslmode=require&password=x")).toEqual({ ok: true, location: "postgres://app@db.internal:5432/recipes" });
    expect(checkStoreUrl("postgresql://db/recipes")).toEqual({ ok: true, location: "postgresql://db/recipes" });
  });

  it("refuses what is not a database URL, never echoing it (it may hold a password)", () => {
    for (const bad of ["postgres//app:hunter2@db/recipes", "mysql://app:hunter2@db/recipes", "postgres://app:hunter2@db", "postgres://app:hunter2@db/", "hunter2"]) {
      const checked = checkStoreUrl(bad);
      expect(checked.ok).toBe(false);
      expect(JSON.stringify(checked)).not.toContain("hunter2");
    }
  });

  it("redacts even an unparseable URL", () => {
    expect(redactStoreUrl("::not a url hunter2")).not.toContain("hunter2");
  });
});
