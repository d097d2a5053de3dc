import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The e2e suites start real servers and watchers; two cores in CI.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
