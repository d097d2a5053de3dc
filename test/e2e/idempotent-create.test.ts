/**
 * Regression for #22 row "kill -9 during creates": on the file store, a
 * server kill -9'd during creates left unacknowledged playbooks on disk, so a
 * client's retry made a duplicate. With an idempotencyKey the retry answers
 * the first create; every acknowledged create is there; one file per key.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connect, EXAMPLE_SKILLS, makeTempDir, startServer } from "./harness.js";
import { killDuringKeyedCreates, retryEveryKey } from "./kill-during-creates.js";

describe("kill -9 during creates, file store", () => {
  it("a retry with the same idempotencyKey after the kill answers the first result and makes no duplicate", async () => {
    const tmp = await makeTempDir();
    const privateDir = path.join(tmp, "private");
    try {
      const args = ["--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--skills-path", EXAMPLE_SKILLS, "--private-dir", privateDir];
      const run = await killDuringKeyedCreates(args);
      const survivor = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--private-dir", privateDir] });
      const client = await connect(survivor.url);
      try {
        await retryEveryKey(client, run);
      } finally {
        await client.close();
        await survivor.stop();
      }
      const files = (await fs.readdir(privateDir)).filter((name) => name.startsWith("kill-test-") && name.endsWith(".md"));
      expect(files).toHaveLength(run.sent.length);
      for (const id of run.acknowledged.values()) expect(files).toContain(`${id.slice("private/".length)}.md`);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 120_000); // a real process killed and a survivor retrying every key
});
