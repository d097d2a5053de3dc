/**
 * The catalog page's inputs form, runs and playbook history in a real
 * headless browser (Debian's chromium via playwright-core) against real
 * daemons: core's unmodified mesh-ops pack run from the form on headless
 * Blender 3.4 through the example bridge (dry run, run, a contract failure
 * from a bridge whose bevel lies, invalid inputs shown on their fields with
 * nothing run, undo: none behind a confirm), a hostile schema rendered inert,
 * no run buttons without a token or an endpoint, and a user's playbook
 * history. Screenshots go to test-artifacts/catalog-page/.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call, connect, makeTempDir, REAL_SKILLS, REPO_ROOT, skillMd, startServer, writeTree, type RunningServer } from "./harness.js";
import { requireShared } from "../helpers/shared.js";
import { skipWithoutBlender, startBlenderBridge, type BlenderBridge } from "./blender.js";
import { playbook } from "./playbook-args.js";
import { ALICE, BOB, bearer, usersFile } from "./users-fixture.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts", "catalog-page");
const CORE_SKILLS = path.join(REAL_SKILLS, "dcc-mcp-core/skills");
const SUITE = "catalog page runs in chromium";
const TOKEN = "page-run-token";

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing in CI: .ci/run installs it`);
if (!hasChromium) console.warn(`${SUITE} skipped: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`);
const skip = !hasChromium || !requireShared(path.join(CORE_SKILLS, "mesh-ops"), SUITE) || skipWithoutBlender(SUITE);

const HOSTILE = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">';

/** A Blender skill beside mesh-ops: a recipe that cannot be undone, and one with a hostile schema. */
const STUDIO = `recipes:
  - name: triangulate_for_export
    description: Triangulate a mesh for export; the original topology is gone.
    undo: none
    inputs_schema:
      type: object
      additionalProperties: false
      required: [object_name]
      properties:
        object_name: {type: string, minLength: 1, description: "The mesh to triangulate"}
    steps:
      - tool: blender_mesh_ops__triangulate_mesh
        arguments: {object_name: "\${object_name}"}
    output_contract: {type: object, required: [object_name], properties: {changed: {const: true}}}
  - name: hostile_schema
    description: A schema written to break the page.
    inputs_schema:
      type: object
      required: ["__proto__", "${HOSTILE.replace(/"/g, '\\"')}"]
      properties:
        "__proto__": {type: string, description: '${HOSTILE}'}
        "${HOSTILE.replace(/"/g, '\\"')}": {type: integer, minimum: 3}
        pick: {enum: [${Array.from({ length: 1000 }, (_, i) => `v${i}`).join(", ")}]}
        choice: {enum: ["<b>bold</b>", 2, null]}
        nested: {type: object, properties: {deeper: {$ref: "#/properties/nested"}}}
    steps:
      - tool: blender_mesh_ops__get_poly_count
        arguments: {object_name: x}
`;

describe.skipIf(skip)(SUITE, () => {
  let browser: Browser;
  let bridge: BlenderBridge;
  let liar: BlenderBridge;
  let runner: RunningServer;
  let lying: RunningServer;
  let open: RunningServer;
  let users: RunningServer;
  let studio: string;
  const problems: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    studio = await makeTempDir("page-studio-");
    await writeTree(studio, { "studio/SKILL.md": skillMd("studio", "blender", "RECIPES.yaml"), "studio/RECIPES.yaml": STUDIO });
    [bridge, liar] = await Promise.all([startBlenderBridge(), startBlenderBridge({ lyingTools: ["bevel_edges"] })]);
    const skills = [CORE_SKILLS, studio];
    const dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
    [runner, lying, open, users] = await Promise.all([
      startServer({ dccs: ["blender"], skillsPaths: skills, args: ["--token", TOKEN, "--dcc-endpoint", `blender=${bridge.url}`] }),
      startServer({ dccs: ["blender"], skillsPaths: skills, args: ["--token", TOKEN, "--dcc-endpoint", `blender=${liar.url}`] }),
      startServer({ dccs: ["blender"], skillsPaths: skills, args: ["--dcc-endpoint", `blender=${bridge.url}`] }),
      startServer({ dccs: ["blender"], skillsPaths: skills, args: ["--users-file", file] }),
    ]);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([runner, lying, open, users].map((s) => s?.stop()));
    await Promise.all([bridge, liar].map((b) => b?.stop()));
  });

  async function newPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      // A token server answers the first, tokenless request 401: the browser logs it as a failed resource.
      if (message.type() === "error" && !/status of 401/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return page;
  }

  /** Opens the page on `server`, signing in with `token` when given. */
  async function openPage(server: RunningServer, token?: string): Promise<Page> {
    const page = await newPage();
    await page.goto(`${server.url}/ui/blender`);
    if (token !== undefined) {
      await page.locator("#token").waitFor();
      await page.fill("#token", token);
      await page.click('#token-form button[type="submit"]');
    }
    await page.locator("#recipes li").first().waitFor();
    return page;
  }

  async function openRecipe(page: Page, id: string): Promise<void> {
    await page.click(`#recipes button[data-recipe="${id}"]`);
    await page.locator("#recipe h2", { hasText: id }).waitFor();
    await page.locator("#recipe .schema-form").waitFor();
  }

  const field = (page: Page, name: string, control = "input, select, textarea") => page.locator(`#recipe .field[data-name="${name}"]`).locator(control).first();

  /** Clicks Run (or Dry run) and waits for the report. */
  async function run(page: Page, button: "#run" | "#dry-run"): Promise<string> {
    await page.click(button);
    const report = page.locator("#run-result .run-report");
    await report.waitFor({ timeout: 60_000 });
    return (await report.getAttribute("data-status")) ?? "";
  }

  it("builds the form from mesh-ops' schema, dry-runs the plan and runs it on Blender with the verdict", async () => {
    const page = await openPage(runner, TOKEN);
    expect(await page.locator("#who").innerText()).toBe("operator");
    await openRecipe(page, "mesh-ops/create_primitive");
    // Types, required marks, defaults prefilled, the enum as a select; the raw schema still one click away.
    expect(await page.locator('#recipe .field[data-name="name"] abbr.required').count()).toBe(1);
    expect(await page.locator('#recipe .field[data-name="size"] abbr.required').count()).toBe(0);
    expect(await field(page, "size").inputValue()).toBe("1");
    expect(JSON.parse(await field(page, "location").inputValue())).toEqual([0, 0, 0]);
    expect(await page.locator('#recipe .field[data-name="primitive_type"] select option').count()).toBe(9);
    expect(await page.locator("#recipe details.raw-schema pre").count()).toBe(1);
    await field(page, "name").fill("PageCube");
    await field(page, "primitive_type").selectOption({ label: "cube" });

    expect(await run(page, "#dry-run")).toBe("dry_run");
    const plan = await page.locator("#run-result").innerText();
    expect(plan).toContain("Dry run: nothing ran on the DCC");
    expect(plan).toContain("blender_mesh_ops__create_primitive");
    expect(await page.locator("#run-result td.step-status").allInnerTexts()).toEqual(["not_run"]);
    await page.screenshot({ path: path.join(ARTIFACTS, "run-1-dry-run.png"), fullPage: true });

    expect(await run(page, "#run")).toBe("succeeded");
    expect(await page.locator("#run-result .verdict-title").innerText()).toBe("Succeeded");
    expect(await page.locator("#run-result tr[data-step] td").nth(2).innerText()).toBe("blender_mesh_ops__create_primitive");
    expect(await page.locator("#run-result td.step-status").allInnerTexts()).toEqual(["ok"]);
    const receipt = JSON.parse(await page.locator("#run-result .run-report > pre").first().innerText()) as Record<string, unknown>;
    expect(receipt).toMatchObject({ object_name: "PageCube", changed: true, face_count: 6, vertex_count: 8 });
    expect(await page.locator("#run-result .contract").innerText()).toBe("output_valid: true");
    await page.screenshot({ path: path.join(ARTIFACTS, "run-2-succeeded.png"), fullPage: true });

    await openRecipe(page, "mesh-ops/bevel_edges");
    await field(page, "object_name").fill("PageCube");
    await field(page, "edge_indices").fill("[0, 1, 2, 3]");
    await field(page, "width").fill("0.1");
    expect(await run(page, "#run")).toBe("succeeded");
    const bevelled = JSON.parse(await page.locator("#run-result .run-report > pre").first().innerText()) as { face_count: number };
    expect(bevelled.face_count).toBeGreaterThan(6);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it("shows invalid inputs on their fields and runs nothing", async () => {
    const page = await openPage(runner, TOKEN);
    await openRecipe(page, "mesh-ops/bevel_edges");
    // Text the form cannot read is caught before anything is sent.
    await field(page, "edge_indices").fill("[0,");
    await page.click("#run");
    await page.locator('#recipe .field[data-name="edge_indices"] .field-error', { hasText: "not valid JSON" }).waitFor();
    expect(await page.locator("#run-result").innerText()).toBe("");

    await field(page, "edge_indices").fill("[]");
    await field(page, "width").fill("-1");
    await field(page, "segments").fill("100");
    await page.click("#validate");
    await page.locator("#form-status", { hasText: "Inputs are invalid" }).waitFor();
    await page.click("#run");
    await page.locator("#form-status .invalid-inputs", { hasText: "nothing ran" }).waitFor();
    for (const name of ["object_name", "edge_indices", "width", "segments"]) {
      const error = page.locator(`#recipe .field[data-name="${name}"] .field-error`);
      expect(await error.isVisible(), name).toBe(true);
      expect((await error.innerText()).length, name).toBeGreaterThan(0);
    }
    expect(await page.locator('#recipe .field[data-name="object_name"] .field-error').innerText()).toBe("required");
    expect(await page.locator("#run-result").innerText()).toBe("");
    await page.screenshot({ path: path.join(ARTIFACTS, "run-3-invalid.png"), fullPage: true });

    // Fixed, the same form validates clean and the marks go away.
    await field(page, "object_name").fill("PageCube");
    await field(page, "edge_indices").fill("[0]");
    await field(page, "width").fill("0.05");
    await field(page, "segments").fill("2");
    await page.click("#validate");
    await page.locator("#form-status", { hasText: "Inputs are valid." }).waitFor();
    expect(await page.locator("#recipe .field.invalid").count()).toBe(0);
    await page.close();
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows a contract failure as a failure although every tool said success", async () => {
    const page = await openPage(lying, TOKEN);
    await openRecipe(page, "mesh-ops/create_primitive");
    await field(page, "name").fill("Liar");
    await field(page, "primitive_type").selectOption({ label: "cube" });
    expect(await run(page, "#run")).toBe("succeeded");
    await openRecipe(page, "mesh-ops/bevel_edges");
    await field(page, "object_name").fill("Liar");
    await field(page, "edge_indices").fill("[0]");
    await field(page, "width").fill("0.1");
    expect(await run(page, "#run")).toBe("failed");
    expect(await page.locator("#run-result .verdict-title").innerText()).toBe("Failed: contract not met");
    expect(await page.locator("#run-result .verdict").getAttribute("class")).toContain("failed");
    expect(await page.locator("#run-result td.step-status").allInnerTexts()).toEqual(["ok"]);
    expect(await page.locator("#run-result .contract").innerText()).toBe("output_valid: false");
    expect((await page.locator("#run-result .output-errors").innerText())).toMatch(/changed/);
    await page.screenshot({ path: path.join(ARTIFACTS, "run-4-contract-failed.png"), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it("runs an undo: none recipe only once its confirm box is ticked", async () => {
    const page = await openPage(runner, TOKEN);
    await openRecipe(page, "mesh-ops/create_primitive");
    await field(page, "name").fill("ToTriangulate");
    await field(page, "primitive_type").selectOption({ label: "cube" });
    expect(await run(page, "#run")).toBe("succeeded");
    await openRecipe(page, "studio/triangulate_for_export");
    await field(page, "object_name").fill("ToTriangulate");
    expect(await page.locator("#run").isDisabled()).toBe(true);
    expect(await page.locator("#dry-run").isDisabled()).toBe(false);
    await page.check("#confirm-undo-none");
    expect(await page.locator("#run").isDisabled()).toBe(false);
    expect(await run(page, "#run")).toBe("succeeded");
    expect(await page.locator("#run-result tr[data-step] td").nth(2).innerText()).toBe("blender_mesh_ops__triangulate_mesh");
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it("has no run buttons without the token or without an endpoint, says why, and keeps a hostile schema inert", async () => {
    const page = await openPage(open);
    await openRecipe(page, "studio/hostile_schema");
    expect(await page.locator("#run, #dry-run").count()).toBe(0);
    expect(await page.locator("#run-unavailable").innerText()).toMatch(/token/);
    // Markup in names, descriptions and enum values is text; nothing of it runs or renders.
    expect(await page.locator("#recipe script, #recipe img, #recipe [onerror], #recipe b").count()).toBe(0);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    expect(await page.locator('#recipe .field[data-name="__proto__"] .help').innerText()).toBe(HOSTILE);
    expect(await page.locator(`#recipe .field[data-name='${HOSTILE}'] .field-name`).innerText()).toBe(HOSTILE);
    expect(await page.locator('#recipe .field[data-name="pick"]').getAttribute("data-kind")).toBe("json");
    expect(await page.locator('#recipe .field[data-name="pick"]').innerText()).toContain("1000 allowed values");
    expect(await page.locator('#recipe .field[data-name="choice"] option').allInnerTexts()).toEqual(["(not set)", "<b>bold</b>", "2", "null"]);
    expect(await page.locator('#recipe fieldset[data-name="nested"] > fieldset[data-name="deeper"]').count()).toBe(1);
    // The server's validator still judges it: both required fields are marked, the hostile name's included.
    await page.click("#validate");
    await page.locator("#form-status", { hasText: "Inputs are invalid" }).waitFor();
    expect(await page.locator('#recipe .field[data-name="__proto__"] .field-error').innerText()).toBe("required");
    expect(await page.locator(`#recipe .field[data-name='${HOSTILE}'] .field-error`).innerText()).toBe("required");
    await page.locator('#recipe .field[data-name="__proto__"] input').fill("kept as a key");
    await page.locator(`#recipe .field[data-name='${HOSTILE}'] input`).fill("2");
    await page.click("#validate");
    await page.locator(`#recipe .field[data-name='${HOSTILE}'] .field-error`, { hasText: "3" }).waitFor();
    expect(await page.locator('#recipe .field[data-name="__proto__"] .field-error').isVisible()).toBe(false);
    expect(await page.evaluate("typeof window.__pwned + Object.keys(Object.prototype).length")).toBe("undefined0");
    await page.screenshot({ path: path.join(ARTIFACTS, "run-5-hostile-schema.png"), fullPage: true });
    await page.close();

    const noEndpoint = await openPage(users, ALICE);
    await openRecipe(noEndpoint, "mesh-ops/create_primitive");
    expect(await noEndpoint.locator("#run, #dry-run").count()).toBe(0);
    expect(await noEndpoint.locator("#run-unavailable").innerText()).toMatch(/--dcc-endpoint/);
    await noEndpoint.close();
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows a user's own playbook history read-only, an old revision, and nothing to another user", async () => {
    const alice: Client = await connect(users.url, "/mcp/blender", bearer(ALICE));
    let id = "";
    try {
      const created = await call(alice, "recipe", playbook({ title: `Alice's bake ${HOSTILE}` }));
      id = created.context.recipeId as string;
      expect((await call(alice, "recipe", { action: "update", recipeId: id, summary: "Second take, with a cage.", expectedRevision: 1 })).success).toBe(true);
    } finally {
      await alice.close();
    }
    const page = await openPage(users, ALICE);
    expect(await page.locator("#who").innerText()).toBe("user alice");
    await page.locator(`#playbooks button[data-playbook="${id}"]`).click();
    await page.locator("#revision-heading", { hasText: "Current revision (2)" }).waitFor();
    expect(await page.locator("#recipe .pb-summary").innerText()).toBe("Second take, with a cage.");
    const rows = page.locator("#recipe .history-table tbody tr");
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator("td").allInnerTexts()).toEqual(["2", expect.any(String), "alice", "update", "summary", "view"]);
    expect(await rows.nth(1).locator("td").nth(3).innerText()).toBe("create");
    await page.click('#recipe [data-view-revision="1"]');
    await page.locator("#revision-heading", { hasText: "Revision 1 (read-only; current is 2)" }).waitFor();
    expect(await page.locator("#recipe .pb-summary").innerText()).toBe(String(playbook()["summary"]));
    expect(await page.locator("#recipe .pb-title").innerText()).toBe(`Alice's bake ${HOSTILE}`);
    // Read-only: nothing on the page writes.
    expect(await page.locator("#recipe button", { hasText: /restore|delete|save/i }).count()).toBe(0);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    await page.screenshot({ path: path.join(ARTIFACTS, "history-1-alice.png"), fullPage: true });
    await page.close();

    const bob = await openPage(users, BOB);
    await bob.locator("#playbooks-note", { hasText: "none yet" }).waitFor();
    expect(await bob.locator("#playbooks li").count()).toBe(0);
    await bob.close();
    expect(problems).toEqual([]);
  }, 60_000);
});
