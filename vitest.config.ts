import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The e2e suites start real servers and watchers; two cores in CI.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most files wait on servers, watchers, PostgreSQL or Blender rather than
    // compute, so one worker more than vitest's default (cores - 1) keeps both
    // cores busy on a 2-core CI machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // store (#24): stops and removes the run's shared PostgreSQL, started on first use (test/postgres.ts).
    globalSetup: ["test/postgres-global.ts"],
  },
});
