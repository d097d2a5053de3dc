/**
 * The catalog page in a real headless browser (Debian's chromium driven by
 * playwright-core) against a real daemon with the real watcher: the page
 * loads, search finds a recipe, a hostile recipe stays inert, a reload shows
 * up without a refresh, and a token server asks for the token. Screenshots
 * go to test-artifacts/catalog-page/.
 */
import { existsSync } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_SKILLS, makeTempDir, REPO_ROOT, skillMd, startDaemonIn, writeTree } from "./harness.js";
import type { RecipeServer } from "../../src/compose/app.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts", "catalog-page");
const hasChromium = existsSync(CHROMIUM);
// Outside CI a missing browser skips with this reason; in CI it is a failure (.ci/run installs chromium).
if (!hasChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing in CI: .ci/run installs it`);
if (!hasChromium) console.warn(`catalog page browser test skipped: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`);

const HOSTILE = [
  "## Bake normals",
  "",
  "Bake a **normal map** from the high-poly mesh. <script>window.__pwned = 1</script>",
  "",
  '<img src="x" onerror="window.__pwned = 2">',
  "",
  "[click me](javascript:window.__pwned=3) and [the docs](https://example.com/bake).",
  "",
  "```python",
  "cmds.bake('<b>not bold</b>')",
  "```",
  "",
].join("\n");

const PACK = `recipes:
  - name: export_fbx
    description: Export the selection to FBX
    inputs_schema:
      type: object
      required: [path]
      properties:
        path: {type: string, description: "target .fbx"}
    steps: [{tool: maya_export, args: {path: "\${path}"}}]
    output_contract:
      type: object
      required: [written]
      properties: {written: {type: boolean}}
`;

/** A daemon on `skillsPath`, its state under `tmp`; watching unless --no-watch is among `extra`. */
async function startDaemon(tmp: string, skillsPath: string, extra: string[]): Promise<{ server: RecipeServer; url: string }> {
  return startDaemonIn(tmp, ["--skills-path", skillsPath, ...extra]);
}

async function daemon(tmp: string, extra: string[] = []): Promise<{ server: RecipeServer; url: string }> {
  return startDaemon(tmp, path.join(tmp, "skills"), ["--dcc", "maya", ...extra]);
}

async function daemonOn(root: string, dccs: string[]): Promise<{ server: RecipeServer; url: string }> {
  return startDaemon(await makeTempDir(), root, [...dccs, "--no-watch"]);
}

describe.skipIf(!hasChromium)("catalog page in chromium", () => {
  let tmp = "";
  let browser: Browser;
  let open: { server: RecipeServer; url: string };
  let locked: { server: RecipeServer; url: string };
  const problems: string[] = [];

  beforeAll(async () => {
    tmp = await makeTempDir();
    await writeTree(path.join(tmp, "skills"), {
      "maya-test/SKILL.md": skillMd("maya-test", "maya", ["RECIPES.md", "pack.yaml"]),
      "maya-test/RECIPES.md": HOSTILE,
      "maya-test/pack.yaml": PACK,
      "broken/SKILL.md": "---\nname: broken\ndcc: maya\n---\n",
    });
    await mkdir(ARTIFACTS, { recursive: true });
    open = await daemon(tmp);
    const tmp2 = await makeTempDir();
    await writeTree(path.join(tmp2, "skills"), { "maya-test/SKILL.md": skillMd("maya-test", "maya", "RECIPES.md"), "maya-test/RECIPES.md": "## Only\n\nOne recipe.\n" });
    locked = await daemon(tmp2, ["--token", "s3cret-token"]);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await open?.server.stop();
    await locked?.server.stop();
  });

  async function newPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return page;
  }

  it("loads, searches with the server's engine, shows a hostile recipe inert, and shows a reload without a refresh", async () => {
    const page = await newPage();
    await page.goto(`${open.url}/ui/maya`);
    await page.locator("#recipes li").first().waitFor();
    expect(await page.locator("#recipes li").count()).toBe(2);
    expect(await page.locator("#skills li").count()).toBe(1);
    expect(await page.locator("#diagnostics tbody tr").count()).toBeGreaterThan(0);
    await page.selectOption("#severity", "warning");
    const warnings = await page.locator("#diagnostics tbody tr.error").count();
    expect(warnings).toBe(0);
    await page.selectOption("#severity", "");
    await page.screenshot({ path: path.join(ARTIFACTS, "1-loaded.png"), fullPage: true });

    await page.fill("#search", "normal map");
    const hit = page.locator('#results button[data-recipe="maya-test/Bake normals"]');
    await hit.waitFor();
    await hit.click();
    await page.locator("#recipe h2", { hasText: "maya-test/Bake normals" }).waitFor();
    const recipeText = await page.locator("#recipe").innerText();
    expect(recipeText).toContain("<script>window.__pwned = 1</script>");
    expect(recipeText).toContain('<img src="x" onerror="window.__pwned = 2">');
    expect(recipeText).toContain("[click me](javascript:window.__pwned=3)");
    expect(await page.locator("#recipe script, #recipe img, #recipe iframe, #recipe [onerror]").count()).toBe(0);
    expect(await page.locator('#recipe a[href^="javascript"]').count()).toBe(0);
    expect(await page.locator('#recipe a[href="https://example.com/bake"]').count()).toBe(1);
    expect(await page.locator("#recipe b").count()).toBe(0);
    expect(await page.locator("#recipe strong").innerText()).toBe("normal map");
    // Evaluated in the page (a string: this file's TypeScript has no DOM types).
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    await page.screenshot({ path: path.join(ARTIFACTS, "2-hostile-recipe.png"), fullPage: true });

    await page.click('#recipes button[data-recipe="maya-test/export_fbx"]');
    await page.locator("#recipe h3", { hasText: "Inputs schema" }).waitFor();
    expect(await page.locator("#recipe").innerText()).toContain('"required": [\n    "written"\n  ]');

    const before = await page.locator("#revision").innerText();
    await appendFile(path.join(tmp, "skills/maya-test/RECIPES.md"), "\n## Freshly added\n\nAppeared by hot reload.\n");
    await page.locator('#recipes button[data-recipe="maya-test/Freshly added"]').waitFor({ timeout: 20_000 });
    expect(await page.locator("#revision").innerText()).not.toBe(before);
    expect(await page.locator("#live").innerText()).toMatch(/updated to revision \d+/);
    await page.screenshot({ path: path.join(ARTIFACTS, "3-after-reload.png"), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows skills-example's Houdini catalog with a YAML recipe's schema and contract (the README's screenshot)", async () => {
    const example = await daemonOn(EXAMPLE_SKILLS, ["--dcc", "houdini"]);
    try {
      const page = await newPage();
      await page.goto(`${example.url}/ui/houdini`);
      await page.fill("#search", "pyro explosion");
      await page.locator('#results button[data-recipe="houdini-fx/pyro_explosion"]').click();
      await page.locator("#recipe h3", { hasText: "Output contract" }).waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, "skills-example-houdini.png") });
      await page.close();
      expect(problems).toEqual([]);
    } finally {
      await example.server.stop();
    }
  }, 60_000);

  it("with --token, asks for the token and keeps it out of URLs, cookies and storage", async () => {
    const page = await newPage();
    await page.goto(`${locked.url}/`);
    await page.locator("#token").waitFor();
    expect(await page.locator("#app").isHidden()).toBe(true);
    await page.fill("#token", "wrong");
    await page.click('#token-form button[type="submit"]');
    await page.locator("#auth-error", { hasText: "refused" }).waitFor();
    await page.fill("#token", "s3cret-token");
    await page.click('#token-form button[type="submit"]');
    await page.locator('#recipes button[data-recipe="maya-test/Only"]').waitFor();
    expect(page.url()).not.toContain("s3cret");
    const stored = await page.evaluate("document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage)");
    expect(stored).not.toContain("s3cret");
    expect(await page.context().cookies()).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, "4-token.png"), fullPage: true });
    await page.close();
    // A refused request is logged by the browser as a failed resource; nothing else may be.
    expect(problems.filter((p) => !/401/.test(p))).toEqual([]);
  }, 60_000);
});
