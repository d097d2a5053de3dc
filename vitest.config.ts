import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The e2e suites start real servers and watchers; two cores in CI.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // store (#24): stops and removes the run's shared PostgreSQL, started on first use (test/postgres.ts).
    globalSetup: ["test/postgres-global.ts"],
  },
});
