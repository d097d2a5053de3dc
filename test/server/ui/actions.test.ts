/**
 * The catalog page's actions over HTTP on a real daemon: what a caller may
 * do (`me`) under each auth mode, validate and run through the same tool
 * path as MCP (a DCC double built with the SDK's own server stands in for
 * the DCC), the run's user attribution in the log, the private playbook
 * history per user, and answers to malformed, hostile and concurrent input.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRecipeServer, type RecipeServer } from "../../../src/compose/app.js";
import { resolveConfig } from "../../../src/config/resolve.js";
import { call, connect, makeTempDir, skillMd, writeTree } from "../../e2e/harness.js";
import { playbook } from "../../e2e/playbook-args.js";
import { ALICE, BOB, bearer, usersFile } from "../../e2e/users-fixture.js";
import { startDccDouble, type DccDouble } from "../../e2e/dcc-double.js";

const PACK = `
pack: {name: page-pack, dcc: any, canonical_namespace: mesh_ops}
tool_routing:
  adapters: [blender]
  tools:
    create_primitive: {blender: blender_mesh_ops__create_primitive}
    get_poly_count: {blender: blender_mesh_ops__get_poly_count}
    delete_object: {blender: blender_mesh_ops__delete_object}
recipes:
  - name: make_cube
    dcc: any
    description: Create a primitive and count it.
    undo: single-step
    inputs_schema:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        name: {type: string, minLength: 1, description: "Object name"}
        kind: {enum: [cube, plane], default: cube}
    steps:
      - tool: mesh_ops__create_primitive
        arguments: {primitive_type: "\${kind}", name: "\${name}"}
      - tool: mesh_ops__get_poly_count
        arguments: {object_name: "\${name}"}
    output_contract: {type: object, required: [face_count], properties: {face_count: {type: integer, minimum: 1}}}
  - name: expect_dense
    dcc: any
    description: Every tool succeeds; the receipt cannot meet the contract.
    inputs_schema: {type: object, required: [name], properties: {name: {type: string}}}
    steps:
      - tool: mesh_ops__create_primitive
        arguments: {primitive_type: cube, name: "\${name}"}
      - tool: mesh_ops__get_poly_count
        arguments: {object_name: "\${name}"}
    output_contract: {type: object, required: [face_count], properties: {face_count: {type: integer, minimum: 1000}}}
  - name: destroy
    dcc: any
    description: Cannot be undone.
    undo: none
    inputs_schema: {type: object, required: [name], properties: {name: {type: string}}}
    steps:
      - tool: mesh_ops__delete_object
        arguments: {object_name: "\${name}"}
`;

interface Daemon {
  readonly server: RecipeServer;
  readonly url: string;
  readonly logs: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** A daemon in this process whose log lines are kept (the run's attribution is read from them). */
async function daemon(skills: string, flags: string[]): Promise<Daemon> {
  const tmp = await makeTempDir();
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const resolved = resolveConfig({
    argv: ["--port", "0", "--embeddings", "none", "--no-watch", "--private-dir", path.join(tmp, "private"), "--dcc", "blender", "--skills-path", skills, ...flags],
    env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data") },
    homeDir: tmp,
  });
  if (resolved.kind !== "serve") throw new Error(`bad test config: ${JSON.stringify(resolved)}`);
  const server = createRecipeServer(resolved.config, { logger: pino({ level: "info" }, sink) });
  const { url } = await server.start();
  await server.ready();
  return {
    server,
    url,
    logs,
    async stop() {
      await server.stop();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}

type Json = Record<string, any>; // eslint-style escape: tests read deep, loosely-typed answers

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as Json };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

describe("catalog page actions", () => {
  let skills: string;
  let dcc: DccDouble;
  let open: Daemon;
  let token: Daemon;
  let users: Daemon;
  let noEndpoint: Daemon;
  const OP = bearer("operator-token");

  beforeAll(async () => {
    skills = await makeTempDir("page-skills-");
    await writeTree(skills, {
      "page-pack/SKILL.md": skillMd("page-pack", "any", "RECIPES.yaml"),
      "page-pack/RECIPES.yaml": PACK,
      "notes/SKILL.md": skillMd("notes", "blender", "RECIPES.md"),
      "notes/RECIPES.md": "# Notes\n\n## Tidy the scene\nDelete what you do not need.\n",
    });
    dcc = await startDccDouble({ era: "2025" });
    const endpoint = ["--dcc-endpoint", `blender=${dcc.url}`];
    const dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
    [open, token, users, noEndpoint] = await Promise.all([
      daemon(skills, endpoint),
      daemon(skills, [...endpoint, "--token", "operator-token"]),
      daemon(skills, [...endpoint, "--users-file", file, "--token", "operator-token"]),
      daemon(skills, ["--token", "operator-token"]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([open, token, users, noEndpoint].map((d) => d?.stop()));
    await dcc?.stop();
    await fs.rm(skills, { recursive: true, force: true });
  });

  it("says per auth mode and DCC whether this caller may run and see playbooks, and why not", async () => {
    const none = (await get(`${open.url}/ui/api/blender/me`)).body;
    expect(none).toMatchObject({ auth: "none", user: null, run: { available: false }, playbooks: { available: false } });
    expect(none.run.reason).toMatch(/token/);
    const op = (await get(`${token.url}/ui/api/blender/me`, OP)).body;
    expect(op).toMatchObject({ auth: "token", user: null, run: { available: true, reason: null }, playbooks: { available: true } });
    expect(op.run.endpoint).toMatchObject({ running: false, queued: 0 });
    const missing = (await get(`${noEndpoint.url}/ui/api/blender/me`, OP)).body;
    expect(missing.run).toMatchObject({ available: false, endpoint: null });
    expect(missing.run.reason).toMatch(/--dcc-endpoint/);
    const operator = (await get(`${users.url}/ui/api/blender/me`, OP)).body;
    expect(operator).toMatchObject({ auth: "users", user: null, run: { available: false }, playbooks: { available: false } });
    expect(operator.run.reason).toMatch(/user's token/);
    expect((await get(`${users.url}/ui/api/blender/me`, bearer(ALICE))).body).toMatchObject({ user: "alice", run: { available: true }, playbooks: { available: true } });
    expect((await get(`${users.url}/ui/api/blender/me`)).status).toBe(401);
    expect((await get(`${token.url}/ui/api/nope/me`, OP)).status).toBe(404);
  });

  it("validates with the server's validator: the same answer recipes__validate gives over MCP", async () => {
    const inputs = { name: "", kind: "sphere", extra: 1 };
    const page = await post(`${token.url}/ui/api/blender/validate`, { recipeId: "page-pack/make_cube", inputs }, OP);
    expect(page.status).toBe(200);
    expect(page.body.context.valid).toBe(false);
    const client = await connect(token.url, "/mcp/blender", OP);
    try {
      const mcp = await call(client, "recipes__validate", { skill: "page-pack", recipe: "make_cube", inputs });
      expect(page.body.context.errors).toEqual(mcp.context.errors);
    } finally {
      await client.close();
    }
    const fine = await post(`${open.url}/ui/api/blender/validate`, { recipeId: "page-pack/make_cube", inputs: { name: "A" } });
    expect(fine.body).toMatchObject({ success: true, context: { valid: true, errors: [] } });
  });

  it("runs nothing without the token, for the operator under a users file, or on a DCC without an endpoint", async () => {
    const body = { recipeId: "page-pack/make_cube", inputs: { name: "Nope" } };
    for (const [d, headers] of [[open, {}], [users, OP], [noEndpoint, OP]] as const) {
      const answer = await post(`${d.url}/ui/api/blender/run`, body, headers);
      expect(answer.status).toBe(403);
      expect(answer.body.message).toBeTypeOf("string");
    }
    expect(dcc.calls).toEqual([]);
  });

  it("dry-runs, runs, refuses invalid inputs with nothing run, and reports a contract failure as a failure", async () => {
    dcc.calls.length = 0;
    const url = `${token.url}/ui/api/blender/run`;
    const dry = await post(url, { recipeId: "page-pack/make_cube", inputs: { name: "Dry" }, dryRun: true }, OP);
    expect(dry.body.context).toMatchObject({ status: "dry_run" });
    expect(dry.body.context.steps.map((s: Json) => [s.resolved_tool, s.status])).toEqual([
      ["blender_mesh_ops__create_primitive", "not_run"],
      ["blender_mesh_ops__get_poly_count", "not_run"],
    ]);
    expect(dry.body.context.steps[0].arguments).toEqual({ primitive_type: "cube", name: "Dry" });
    expect(dcc.calls).toEqual([]);

    const invalid = await post(url, { recipeId: "page-pack/make_cube", inputs: { name: "", kind: "torus" } }, OP);
    expect(invalid.body).toMatchObject({ success: false, error: "invalid_input" });
    expect(invalid.body.context.errors.join(" ")).toMatch(/name/);
    expect(dcc.calls).toEqual([]);

    const ran = await post(url, { recipeId: "page-pack/make_cube", inputs: { name: "PageCube" } }, OP);
    expect(ran.body).toMatchObject({ success: true, context: { status: "succeeded", output_valid: true, receipt: { object_name: "PageCube", face_count: 6 } } });
    expect(ran.body.context.steps.map((s: Json) => s.status)).toEqual(["ok", "ok"]);
    expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__create_primitive", "blender_mesh_ops__get_poly_count"]);

    const lied = await post(url, { recipeId: "page-pack/expect_dense", inputs: { name: "Sparse" } }, OP);
    expect(lied.body).toMatchObject({ success: false, error: "contract_failed", context: { status: "failed", output_valid: false } });
    expect(lied.body.context.steps.every((s: Json) => s.status === "ok")).toBe(true);
    expect(lied.body.context.output_errors.join(" ")).toMatch(/face_count/);
  });

  it("runs an undo: none recipe only with confirm", async () => {
    dcc.calls.length = 0;
    const url = `${token.url}/ui/api/blender/run`;
    const refused = await post(url, { recipeId: "page-pack/destroy", inputs: { name: "X" } }, OP);
    expect(refused.body).toMatchObject({ success: false, error: "invalid_input", context: { undo: "none" } });
    expect(dcc.calls).toEqual([]);
    const confirmed = await post(url, { recipeId: "page-pack/destroy", inputs: { name: "X" }, confirm: true }, OP);
    expect(confirmed.body.context.status).toBe("succeeded");
    expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__delete_object"]);
  });

  it("records a page run as the user's, with the tool call's and the run's log lines and metrics", async () => {
    const before = users.logs.length;
    const ran = await post(`${users.url}/ui/api/blender/run`, { recipeId: "page-pack/make_cube", inputs: { name: "AliceCube" } }, bearer(ALICE));
    expect(ran.body.context.status).toBe("succeeded");
    const lines = users.logs.slice(before);
    expect(lines.find((l) => l["msg"] === "recipe run")).toMatchObject({ user: "alice", status: "succeeded", recipeId: "page-pack/make_cube", dcc: "blender" });
    expect(lines.find((l) => l["msg"] === "tool call")).toMatchObject({ user: "alice", tool: "recipes__run", success: true });
    const metrics = await (await fetch(`${users.url}/metrics`, { headers: OP })).text();
    expect(metrics).toMatch(/recipe_runs_total\{[^}]*status="succeeded"[^}]*\} [1-9]/);
    // Nothing of the token reaches the log.
    expect(JSON.stringify(lines)).not.toContain(ALICE);
  });

  it("shows each user only their own playbooks and history, read-only", async () => {
    const alice = await connect(users.url, "/mcp/blender", bearer(ALICE));
    try {
      const created = await call(alice, "recipe", playbook({ title: "Alice's <b>bake</b>" }));
      const id = created.context.recipeId as string;
      expect((await call(alice, "recipe", { action: "update", recipeId: id, summary: "Second take.", expectedRevision: 1 })).success).toBe(true);
      const base = `${users.url}/ui/api/blender`;
      const list = await get(`${base}/playbooks`, bearer(ALICE));
      expect(list.body).toMatchObject({ user: "alice", playbooks: [{ recipeId: id, title: "Alice's <b>bake</b>", revision: 2 }] });
      const history = await get(`${base}/playbook/history?id=${encodeURIComponent(id)}`, bearer(ALICE));
      expect(history.body.context.entries.map((e: Json) => [e.revision, e.user, e.event])).toEqual([
        [2, "alice", "update"],
        [1, "alice", "create"],
      ]);
      expect(history.body.context.entries[0].changed).toEqual(["summary"]);
      const old = await get(`${base}/playbook/revision?id=${encodeURIComponent(id)}&revision=1`, bearer(ALICE));
      expect(old.body).toMatchObject({ success: true, context: { revision: 1, summary: playbook()["summary"] } });

      // Bob sees none of it: not in his list, not_found for its history and revisions.
      expect((await get(`${base}/playbooks`, bearer(BOB))).body.playbooks).toEqual([]);
      const bobHistory = await get(`${base}/playbook/history?id=${encodeURIComponent(id)}`, bearer(BOB));
      expect(bobHistory.body).toMatchObject({ success: false, error: "not_found" });
      expect(JSON.stringify(bobHistory.body)).not.toContain("Second take");
      const bobRevision = await get(`${base}/playbook/revision?id=${encodeURIComponent(id)}&revision=1`, bearer(BOB));
      expect(bobRevision.body).toMatchObject({ success: false, error: "not_found" });
      // The operator holds no playbooks; a server without a token shows none.
      expect((await get(`${base}/playbooks`, OP)).status).toBe(403);
      expect((await get(`${open.url}/ui/api/blender/playbooks`)).status).toBe(403);
    } finally {
      await alice.close();
    }
  });

  it.each([
    ["/validate", "not json", 400],
    ["/validate", "[]", 400],
    ["/validate", { recipeId: "page-pack/make_cube" }, 400],
    ["/validate", { recipeId: 7, inputs: {} }, 400],
    ["/validate", { recipeId: "x".repeat(1001), inputs: {} }, 400], // an id past 1,000 characters
    ["/validate", { recipeId: "page-pack/nope", inputs: {} }, 400],
    ["/validate", { recipeId: "notes/Tidy the scene", inputs: {} }, 400],
    ["/validate", { recipeId: "private/mine", inputs: {} }, 400],
    ["/validate", { recipeId: "page-pack/make_cube", inputs: "not an object" }, 200],
    ["/run", { recipeId: "page-pack/make_cube", inputs: {}, dryRun: "yes" }, 400],
    ["/run", { recipeId: "page-pack/make_cube", inputs: {}, confirm: 1 }, 400],
    ["/run", { recipeId: "notes/Tidy the scene", inputs: {} }, 400],
    ["/run", { inputs: {} }, 400],
  ])("answers POST %s %s with %d and JSON", async (route, body, status) => {
    const answer = await post(`${token.url}/ui/api/blender${route}`, body, OP);
    expect(answer.status).toBe(status);
    expect(answer.body).toBeTypeOf("object");
  });

  it.each([
    ["/playbook/history", 400],
    ["/playbook/history?id=page-pack/make_cube", 400],
    ["/playbook/history?id=private/x&start=-1", 400],
    ["/playbook/history?id=private/x&start=1e9", 400],
    ["/playbook/revision?id=private/x", 400],
    ["/playbook/revision?id=private/x&revision=0", 400],
    ["/playbook/revision?id=private/x&revision=abc", 400],
    [`/playbook/history?id=private/${"x".repeat(1000)}`, 400], // an id past 1,000 characters
    ["/playbook/history?id=private/nope", 200],
  ])("answers GET %# with %d and JSON", async (route, status) => {
    const answer = await get(`${token.url}/ui/api/blender${route}`, OP);
    expect(answer.status).toBe(status);
    expect(answer.body).toBeTypeOf("object");
  });

  it("answers hostile inputs as data: oversized, deep, __proto__ keys", async () => {
    const url = `${token.url}/ui/api/blender/validate`;
    const proto = await post(url, '{"recipeId":"page-pack/make_cube","inputs":{"__proto__":{"polluted":1},"name":"A"}}', OP);
    expect(proto.body.context.valid).toBe(false);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    const deep = `${'{"d":'.repeat(5000)}"leaf"${"}".repeat(5000)}`;
    const nested = await post(url, `{"recipeId":"page-pack/make_cube","inputs":{"name":"A","deep":${deep}}}`, OP);
    expect(nested).toMatchObject({ status: 400, body: { error: "invalid_input", message: expect.stringMatching(/deeper than 128/) } });
    const huge = await post(url, { recipeId: "page-pack/make_cube", inputs: { name: "x".repeat(8 * 1024 * 1024) } }, OP);
    expect(huge.status).toBe(413);
    // Under the body limit, over the tool arguments' bound (1 MiB): refused as MCP refuses it.
    const large = await post(url, { recipeId: "page-pack/make_cube", inputs: { name: "x".repeat(2 * 1024 * 1024) } }, OP);
    expect(large).toMatchObject({ status: 400, body: { error: "invalid_input", message: expect.stringMatching(/exceed/) } });
    expect(huge.body).toBeTypeOf("object");
  });

  it("answers 60 concurrent validates and dry runs, each with its own answer", async () => {
    dcc.calls.length = 0;
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 2 === 0
          ? post(`${token.url}/ui/api/blender/validate`, { recipeId: "page-pack/make_cube", inputs: { name: `N${i}` } }, OP)
          : post(`${token.url}/ui/api/blender/run`, { recipeId: "page-pack/make_cube", inputs: { name: `N${i}` }, dryRun: true }, OP),
      ),
    );
    answers.forEach((a, i) => {
      expect(a.status).toBe(200);
      if (i % 2 === 0) expect(a.body.context.valid).toBe(true);
      // A dry run waits its turn at the DCC's gate like any run: past the queue it is told busy.
      else if (a.body.error === "busy") expect(a.body.success).toBe(false);
      else expect(a.body.context.status).toBe("dry_run");
    });
    expect(dcc.calls).toEqual([]);
  });
});
