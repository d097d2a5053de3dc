/**
 * recipes__run and `undo: none`: the run goes ahead with `confirm: true`, or
 * once the client's user says yes when asked, on both eras with the SDK's
 * real clients: `elicitation/create` inside the call on 2025-11-25 (1.32.2
 * client), the input-required round trip on 2026-07-28 (v2 client, which
 * fulfils it through its own elicitation handler and sends the call again).
 * A no, a dismissed form, or a client that declared no elicitation is
 * `invalid_input` saying why, and nothing reaches the DCC. Also: the run's
 * one log line names the caller under `--users-file`.
 */
import { Writable } from "node:stream";
import fs from "node:fs/promises";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetDouble, startDccDouble, type DccDouble } from "./dcc-double.js";
import { call, connect, makeTempDir, skillMd, startServer, writeTree, type RunningServer, type ToolAnswer } from "./harness.js";
import { ALICE, bearer, usersFile } from "./users-fixture.js";
import { RUN_PACK } from "../recipes/run/fixtures.js";

type Answer = ElicitResult;

async function skillsDir(): Promise<string> {
  const dir = await makeTempDir("run-confirm-");
  await writeTree(dir, { "run-pack/SKILL.md": skillMd("run-pack", "any", "RECIPES.yaml"), "run-pack/RECIPES.yaml": RUN_PACK });
  return dir;
}

/** What one client of either era does here: call a tool, and (when it can be asked) answer each question with `answer`. */
interface Caller {
  readonly questions: string[];
  answer: Answer;
  run(args: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

async function legacyCaller(url: string, canBeAsked: boolean): Promise<Caller> {
  const client = new Client({ name: "e2e-confirm", version: "1.0.0" }, canBeAsked ? { capabilities: { elicitation: { form: {} } } } : {});
  const caller: Caller = {
    questions: [],
    answer: { action: "accept", content: { confirm: true } },
    run: (args) => call(client, "recipes__run", args),
    close: () => client.close(),
  };
  if (canBeAsked) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      caller.questions.push(request.params.message);
      return caller.answer;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/blender`)));
  return caller;
}

async function modernCaller(url: string, canBeAsked: boolean): Promise<Caller> {
  const client = new ModernClient(
    { name: "e2e-confirm-v2", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, ...(canBeAsked ? { capabilities: { elicitation: { form: {} } } } : {}) },
  );
  const caller: Caller = {
    questions: [],
    answer: { action: "accept", content: { confirm: true } },
    async run(args) {
      const result = (await client.callTool({ name: "recipes__run", arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
      return { ...(JSON.parse(result.content[0]!.text) as Omit<ToolAnswer, "isError" | "raw">), isError: result.isError === true, raw: result };
    },
    close: () => client.close(),
  };
  if (canBeAsked) {
    client.setRequestHandler("elicitation/create", (request) => {
      caller.questions.push((request.params as { message: string }).message);
      return caller.answer;
    });
  }
  await client.connect(new ModernTransport(new URL(`${url}/mcp/blender`)));
  return caller;
}

const DESTROY = { skill: "run-pack", recipe: "destroy", inputs: { name: "Doomed" } };

describe("recipes__run: undo: none needs the user's yes", () => {
  let dcc: DccDouble;
  let running: RunningServer;
  let skills: string;

  beforeAll(async () => {
    dcc = await startDccDouble({ era: "2025" });
    skills = await skillsDir();
    running = await startServer({ dccs: ["blender"], skillsPaths: [skills], args: ["--dcc-endpoint", `blender=${dcc.url}`] });
  });
  afterEach(() => resetDouble(dcc));
  afterAll(async () => {
    await running?.stop();
    await dcc?.stop();
    await fs.rm(skills, { recursive: true, force: true });
  });

  for (const [era, open] of [
    ["2025-11-25 (elicitation/create)", legacyCaller],
    ["2026-07-28 (input-required round trip)", modernCaller],
  ] as const) {
    describe(era, () => {
      it("asks the user; a yes runs the recipe", async () => {
        const caller = await open(running.url, true);
        try {
          const answer = await caller.run(DESTROY);
          expect(answer.success).toBe(true);
          expect(answer.context.status).toBe("succeeded");
          expect(caller.questions).toHaveLength(1);
          expect(caller.questions[0]).toMatch(/run-pack\/destroy.*undo: none/);
          expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__delete_object"]);
        } finally {
          await caller.close();
        }
      });

      it("a no, an unticked box or a dismissed form is invalid_input saying why; nothing reaches the DCC", async () => {
        const caller = await open(running.url, true);
        try {
          const cases: Array<[Answer, string, RegExp]> = [
            [{ action: "decline" }, "declined", /declined/],
            [{ action: "accept", content: { confirm: false } }, "declined", /answered no/],
            [{ action: "cancel" }, "cancelled", /dismissed/],
          ];
          for (const [reply, reason, message] of cases) {
            caller.answer = reply;
            const answer = await caller.run(DESTROY);
            expect(answer.error).toBe("invalid_input");
            expect(answer.message).toMatch(/undo: none/);
            expect(answer.message).toMatch(message);
            expect(answer.message).toMatch(/confirm: true/);
            expect(answer.context).toMatchObject({ undo: "none", confirmation: reason });
          }
          expect(caller.questions).toHaveLength(3);
          expect(dcc.calls).toEqual([]);
        } finally {
          await caller.close();
        }
      });

      it("a client that declared no elicitation is told to pass confirm: true, and is not asked", async () => {
        const caller = await open(running.url, false);
        try {
          const answer = await caller.run(DESTROY);
          expect(answer.error).toBe("invalid_input");
          expect(answer.message).toMatch(/confirm: true.*no elicitation/);
          expect(answer.context).toMatchObject({ confirmation: "unsupported" });
          expect(dcc.calls).toEqual([]);
          const confirmed = await caller.run({ ...DESTROY, confirm: true });
          expect(confirmed.success).toBe(true);
          expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__delete_object"]);
        } finally {
          await caller.close();
        }
      });

      it("confirm: true and dry runs never ask", async () => {
        const caller = await open(running.url, true);
        try {
          expect((await caller.run({ ...DESTROY, confirm: true })).success).toBe(true);
          expect((await caller.run({ ...DESTROY, dryRun: true })).context.status).toBe("dry_run");
          expect(caller.questions).toEqual([]);
        } finally {
          await caller.close();
        }
      });
    });
  }

  it("several clients asked at once each get their own answer", async () => {
    const callers = await Promise.all([legacyCaller(running.url, true), modernCaller(running.url, true), legacyCaller(running.url, true), modernCaller(running.url, true)]);
    try {
      callers.forEach((caller, i) => {
        caller.answer = i % 2 === 0 ? { action: "accept", content: { confirm: true } } : { action: "decline" };
      });
      const answers = await Promise.all(callers.map((caller, i) => caller.run({ ...DESTROY, inputs: { name: `N${i}` } })));
      expect(answers.map((a) => a.error ?? "ok")).toEqual(["ok", "invalid_input", "ok", "invalid_input"]);
      expect(dcc.calls.map((c) => c.arguments["object_name"]).sort()).toEqual(["N0", "N2"]);
    } finally {
      await Promise.all(callers.map((c) => c.close()));
    }
  });
});

describe("recipes__run's log line under --users-file", () => {
  it("names the user who ran the recipe, and no token", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const dcc = await startDccDouble({ era: "2025" });
    const skills = await skillsDir();
    const users = await usersFile(skills, [["alice", ALICE]]);
    const running = await startServer({
      dccs: ["blender"],
      skillsPaths: [skills],
      args: ["--dcc-endpoint", `blender=${dcc.url}`, "--users-file", users],
      logger: pino({ level: "info" }, sink),
    });
    try {
      const client = await connect(running.url, "/mcp/blender", bearer(ALICE));
      try {
        const answer = await call(client, "recipes__run", { skill: "run-pack", recipe: "bevel_receipt", inputs: { name: "Mine" } });
        expect(answer.success).toBe(true);
      } finally {
        await client.close();
      }
      const runs = lines.filter((line) => line["msg"] === "recipe run");
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ user: "alice", dcc: "blender", recipeId: "run-pack/bevel_receipt", status: "succeeded", run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(JSON.stringify(lines)).not.toContain(ALICE);
    } finally {
      await running.stop();
      await dcc.stop();
      await fs.rm(skills, { recursive: true, force: true });
    }
  });
});
