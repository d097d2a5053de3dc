/**
 * The daemon's logger: JSON lines carry level labels (the real binary, read
 * from its stdout); the pretty format leaves out the info lines whose facts
 * the banner already gives, and prints above a terminal's status line.
 */
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDaemonLogger } from "../../src/cli/logger.js";
import { createStatusLine } from "../../src/cli/status-line.js";
import { EXAMPLE_SKILLS, makeTempDir, REPO_ROOT } from "../e2e/harness.js";

let tmp: string;
beforeEach(async () => {
  tmp = await makeTempDir("logger-");
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("JSON logs", () => {
  it("carry level labels, not pino's numbers", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "src/cli.ts"), "--dcc", "maya", "--port", "0", "--skills-path", EXAMPLE_SKILLS, "--skills-path", path.join(tmp, "typo"), "--embeddings", "none", "--no-watch", "--log-format", "json"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_DATA_HOME: path.join(tmp, "data"), DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const entries: Array<{ level: unknown; msg: string }> = [];
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((resolve, reject) => {
      let buffered = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          const entry = JSON.parse(line) as { level: unknown; msg: string };
          entries.push(entry);
          if (/^maya ready: /.test(entry.msg)) resolve();
        }
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(entries.length).toBeGreaterThan(2);
    for (const e of entries) expect(["trace", "debug", "info", "warn", "error", "fatal"]).toContain(e.level);
    expect(entries.find((e) => e.msg.includes("does not exist"))?.level).toBe("warn");
  }, 60_000);
});

describe("pretty logs", () => {
  const pretty = (statusLine: ReturnType<typeof createStatusLine> | null = null) => {
    const out: string[] = [];
    const logger = createDaemonLogger({ logLevel: "info", logFormat: "pretty" }, { out: { write: (s: string) => out.push(s) }, statusLine });
    return { out, logger };
  };

  it("leave out the info lines the banner already says, keep everything else", () => {
    const { out, logger } = pretty();
    logger.info({ dcc: "maya", skills: 2 }, "catalog loaded");
    logger.info({ url: "http://127.0.0.1:1/mcp" }, "serving MCP at http://127.0.0.1:1/mcp");
    logger.info("Server listening at http://127.0.0.1:1");
    expect(out).toEqual([]);
    logger.warn("catalog loaded");
    logger.info("maya ready: 2 skills");
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/WARN.*catalog loaded/);
    expect(out[1]).toMatch(/INFO.*maya ready: 2 skills/);
    for (const line of out) expect(line.endsWith("\n")).toBe(true);
  });

  it("print above the terminal's status line and redraw it", () => {
    const writes: string[] = [];
    const statusLine = createStatusLine({ write: (s: string) => writes.push(s), columns: 60 });
    const logger = createDaemonLogger({ logLevel: "info", logFormat: "pretty" }, { statusLine });
    statusLine.show("semantic warm-up: maya 1/2");
    logger.info("a line");
    expect(writes).toHaveLength(2);
    expect(writes[1]).toMatch(/^\r\u001b\[2K.*a line\nsemantic warm-up: maya 1\/2$/);
    statusLine.clear();
    logger.info("another");
    expect(writes.at(-1)).toMatch(/^[^\r].*another\n$/);
  });

  it("a status line never wraps: long or multi-line text is cut to the terminal's width", () => {
    const writes: string[] = [];
    const statusLine = createStatusLine({ write: (s: string) => writes.push(s), columns: 40 });
    statusLine.show(`x${"y".repeat(500)}\nsecond`);
    const shown = writes[0]!.replace("\r\u001b[2K", "");
    expect([...shown].length).toBeLessThanOrEqual(39);
    expect(shown).not.toContain("\n");
  });
});
