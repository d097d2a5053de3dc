/**
 * vitest globalSetup: names the directory the run's shared PostgreSQL lives
 * in (test/postgres.ts starts it there on first use, so a run that needs no
 * database starts none) and, when the run ends, stops it and removes it.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { findPostgresBin, stopCluster } from "./postgres-cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresHome: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const home = path.join(os.tmpdir(), `recipe-pg-run-${randomBytes(6).toString("hex")}`);
  project.provide("postgresHome", home);
  return async () => {
    const bin = findPostgresBin();
    if (bin !== null && fs.existsSync(path.join(home, "data"))) await stopCluster(bin, home);
    fs.rmSync(home, { recursive: true, force: true });
  };
}
