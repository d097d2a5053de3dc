/**
 * Hot reload end to end: a real daemon with the real watcher on temp dirs,
 * driven through MCP tools by the SDK client. Every assertion polls the tools
 * until the expected state (generous bound), never a fixed sleep.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, until, makeTempDir, skillMd, startDaemonIn, writeTree } from "./harness.js";
import type { RecipeServer } from "../../src/compose/app.js";

interface Daemon {
  readonly server: RecipeServer;
  readonly url: string;
}

async function startDaemon(tmp: string, roots: string[], extra: string[] = []): Promise<Daemon> {
  return startDaemonIn(tmp, ["--dcc", "maya", "--dcc", "houdini", ...roots.flatMap((r) => ["--skills-path", r]), ...extra]);
}

const anchors = (...names: string[]): string => names.map((n) => `## ${n}\n\nHow to ${n.toLowerCase()}.\n`).join("\n");
const pack = (...names: string[]): string =>
  `recipes:\n${names.map((n) => `  - name: ${n}\n    description: ${n} recipe\n    steps: [{tool: maya_run}]\n`).join("")}`;

let tmp = "";
let skills = "";
let lateRoot = "";
let daemon: Daemon;
let client: Client;
let houdiniClient: Client;
const notified = { maya: 0, houdini: 0 };

async function recipeIds(skill?: string, c: Client = client): Promise<string[]> {
  const answer = await call(c, "recipes__search", { limit: 50, ...(skill !== undefined ? { skill } : {}) });
  return (answer.context.recipes as Array<{ recipeId: string }>).map((r) => r.recipeId).sort();
}
async function listed(): Promise<{ skills: Array<{ name: string; recipe_count: number }>; diagnostics: Array<{ code: string; skill?: string; file?: string }> }> {
  return (await call(client, "recipes__list")).context;
}
beforeAll(async () => {
  tmp = await makeTempDir("hot-reload-");
  skills = path.join(tmp, "skills");
  lateRoot = path.join(tmp, "later", "root");
  await writeTree(skills, {
    "rig/SKILL.md": skillMd("rig", "maya", "RECIPES.md"),
    "rig/RECIPES.md": anchors("Bind skin", "Paint weights"),
    "fx/SKILL.md": skillMd("fx", "maya", ["packs/*.yaml", "references/RECIPES.yaml"]),
    "fx/packs/one.yaml": pack("smoke"),
    "fx/references/RECIPES.yaml": pack("fire"),
    "hou/SKILL.md": skillMd("hou", "houdini", "R.md"),
    "hou/R.md": anchors("Scatter"),
  });
  daemon = await startDaemon(tmp, [skills, lateRoot]);
  client = await connect(daemon.url, "/mcp/maya");
  houdiniClient = await connect(daemon.url, "/mcp/houdini");
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (notified.maya += 1));
  houdiniClient.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (notified.houdini += 1));
  expect(await recipeIds()).toEqual(["fx/fire", "fx/smoke", "rig/Bind skin", "rig/Paint weights"]);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await houdiniClient?.close();
  await daemon?.server.stop();
  await rm(tmp, { recursive: true, force: true });
});

describe("hot reload through the MCP tools", () => {
  it("Markdown recipe file: edit, then the change is searchable", async () => {
    await writeFile(path.join(skills, "rig", "RECIPES.md"), anchors("Bind skin", "Mirror weights"));
    await until(async () => (await recipeIds("rig")).includes("rig/Mirror weights"));
    expect(await recipeIds("rig")).toEqual(["rig/Bind skin", "rig/Mirror weights"]);
    const hit = await call(client, "recipes__search", { query: "mirror weights" });
    expect(hit.context.recipes[0].recipeId).toBe("rig/Mirror weights");
  });

  it("YAML pack: malformed keeps the last good recipes with a diagnostic, fixed clears it", async () => {
    const file = path.join(skills, "fx", "references", "RECIPES.yaml");
    await writeFile(file, "recipes:\n  - name: fire\n    steps: [unclosed\n");
    await until(async () => (await listed()).diagnostics.some((d) => d.code === "reload_kept_last_good"));
    expect(await recipeIds("fx")).toContain("fx/fire");
    const diag = (await listed()).diagnostics.filter((d) => d.skill === "fx").map((d) => d.code).sort();
    expect(diag).toEqual(["reload_kept_last_good", "yaml_parse_error"]);

    await writeFile(file, pack("fire", "embers"));
    await until(async () => (await recipeIds("fx")).includes("fx/embers"));
    expect((await listed()).diagnostics.filter((d) => d.skill === "fx")).toEqual([]);
  });

  it("glob: a new matching file adds recipes, deleting it removes them", async () => {
    const file = path.join(skills, "fx", "packs", "two.yaml");
    await writeFile(file, pack("sparks"));
    await until(async () => (await recipeIds("fx")).includes("fx/sparks"));
    await rm(file);
    await until(async () => !(await recipeIds("fx")).includes("fx/sparks"));
  });

  it("SKILL.md: malformed keeps the skill, an edit naming another file switches recipes, fixed clears the diagnostic", async () => {
    const md = path.join(skills, "rig", "SKILL.md");
    await writeFile(md, "---\nname: rig\ndcc: maya\n---\n");
    await until(async () => (await listed()).diagnostics.some((d) => d.skill === "rig" && d.code === "reload_kept_last_good"));
    expect(await recipeIds("rig")).toEqual(["rig/Bind skin", "rig/Mirror weights"]);

    await writeFile(path.join(skills, "rig", "MORE.md"), anchors("Retarget"));
    await writeFile(md, skillMd("rig", "maya", ["RECIPES.md", "MORE.md"]));
    await until(async () => (await recipeIds("rig")).includes("rig/Retarget"));
    expect((await listed()).diagnostics.filter((d) => d.skill === "rig")).toEqual([]);

    await writeFile(md, skillMd("rig", "maya", ["MORE.md"]));
    await until(async () => (await recipeIds("rig")).join() === "rig/Retarget");
  });

  it("skill directories added, renamed and removed", async () => {
    await writeTree(skills, { "cam/SKILL.md": skillMd("", "maya", "C.md"), "cam/C.md": anchors("Frame all") });
    await until(async () => (await recipeIds()).includes("cam/Frame all"));
    await rename(path.join(skills, "cam"), path.join(skills, "camera"));
    await until(async () => {
      const ids = await recipeIds();
      return ids.includes("camera/Frame all") && !ids.includes("cam/Frame all");
    });
    await rm(path.join(skills, "camera"), { recursive: true });
    await until(async () => !(await recipeIds()).some((id) => id.startsWith("camera/")));
  });

  it("a skill root that did not exist at start is picked up when it appears", async () => {
    await writeTree(lateRoot, { "late/SKILL.md": skillMd("late", "maya", "L.md"), "late/L.md": anchors("Arrived") });
    await until(async () => (await recipeIds()).includes("late/Arrived"));
  });

  it("editor save patterns never show an empty or half-read catalog", async () => {
    const file = path.join(skills, "fx", "packs", "one.yaml");
    let sawMissing = false;
    let polling = true;
    const watcher = (async () => {
      while (polling) {
        if (!(await recipeIds("fx")).includes("fx/smoke")) sawMissing = true;
      }
    })();
    // 1. Save by rename: write a temp file beside it, rename over.
    await writeFile(path.join(skills, "fx", "packs", ".one.yaml.swp"), pack("smoke", "v1"));
    await rename(path.join(skills, "fx", "packs", ".one.yaml.swp"), file);
    await until(async () => (await recipeIds("fx")).includes("fx/v1"));
    // 2. Truncate, then write (with a pause in between).
    const handle = await open(file, "w");
    await new Promise((r) => setTimeout(r, 30));
    await handle.writeFile(pack("smoke", "v2"));
    await handle.close();
    await until(async () => (await recipeIds("fx")).includes("fx/v2"));
    // 3. Several chunks, the first of which does not parse on its own.
    const text = pack("smoke", "v3");
    const chunked = await open(file, "w");
    await chunked.write(text.slice(0, 30));
    await new Promise((r) => setTimeout(r, 30));
    await chunked.write(text.slice(30));
    await chunked.close();
    await until(async () => (await recipeIds("fx")).includes("fx/v3"));
    polling = false;
    await watcher;
    expect(sawMissing).toBe(false);
  });

  it("sessions hear resources/list_changed iff something they can see changed", async () => {
    await until(async () => notified.maya > 0); // earlier edits were visible to maya sessions
    const before = { ...notified };
    const library = daemon.server.libraries.get("maya")!;
    // Diagnostics only (kept last good): a new revision, but nothing a session sees changes.
    const revision = library.current()!.revision;
    await writeFile(path.join(skills, "fx", "packs", "one.yaml"), "recipes: [broken\n");
    await until(async () => (await call(client, "recipes__search", { limit: 1 })).revision! > revision);
    expect((await recipeIds("fx")).includes("fx/smoke")).toBe(true);
    // A houdini-only edit: maya sessions see nothing of it.
    await writeFile(path.join(skills, "hou", "R.md"), anchors("Scatter", "Vellum"));
    await until(async () => (await recipeIds(undefined, houdiniClient)).includes("hou/Vellum"));
    await until(async () => notified.houdini > before.houdini);
    await library.whenIdle();
    expect(notified.maya).toBe(before.maya);
    // A visible maya change is announced to maya sessions.
    await writeFile(path.join(skills, "fx", "packs", "one.yaml"), pack("smoke", "fixed"));
    await until(async () => notified.maya > before.maya);
    // The resources the notification points at reflect the change.
    const resources = await client.listResources();
    expect(resources.resources.map((r) => r.name)).toContain("fx/fixed");
    const read = await client.readResource({ uri: "recipe://maya/rig/Retarget" });
    expect((read.contents[0] as { text: string }).text).toContain("## Retarget");
  });

  it("a private playbook the daemon wrote is not republished by its own file event; a hand edit is picked up", async () => {
    const library = daemon.server.libraries.get("maya")!;
    const created = await library.createPlaybook({
      title: "Bake normals", summary: "Bake them", whenToUse: "always", steps: [], acceptanceCriteria: [], document: "Body\n",
    });
    expect(created.ok).toBe(true);
    const revision = library.current()!.revision;
    // An unrelated visible edit: once it shows, the playbook's own event has been handled too.
    await writeFile(path.join(skills, "rig", "MORE.md"), anchors("Retarget", "Constrain"));
    await until(async () => (await recipeIds("rig")).includes("rig/Constrain"));
    await library.whenIdle();
    expect(library.current()!.revision).toBe(revision + 1);

    const file = path.join(tmp, "private", "bake-normals.md");
    const { readFile } = await import("node:fs/promises");
    await writeFile(file, (await readFile(file, "utf8")).replace("summary: Bake them", "summary: Edited by hand"));
    await until(async () => library.current()!.recipes.get("private/bake-normals")?.description === "Edited by hand");
  });

  it("--no-watch leaves the catalog as loaded", async () => {
    const still = await startDaemon(path.join(tmp, "nowatch"), [skills], ["--no-watch"]);
    try {
      const c = await connect(still.url, "/mcp/maya");
      const before = await recipeIds("rig", c);
      await writeFile(path.join(skills, "rig", "MORE.md"), anchors("Retarget", "Constrain", "Unwatched"));
      // The watching daemon sees the edit; by then the other one would have, had it watched.
      await until(async () => (await recipeIds("rig")).includes("rig/Unwatched"));
      await daemon.server.libraries.get("maya")!.whenIdle();
      expect(await recipeIds("rig", c)).toEqual(before);
      await c.close();
    } finally {
      await still.server.stop();
    }
  });
  it("a 500-file burst reloads the skill a handful of times, not 500", async () => {
    const library = daemon.server.libraries.get("maya")!;
    await writeTree(skills, { "burst/SKILL.md": skillMd("burst", "maya", "recipes/*.md") });
    await until(async () => (await recipeIds()).length > 0 && library.current()!.skills.has("burst"));
    let publishes = 0;
    const off = library.onChange(() => void (publishes += 1));
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => writeFile(path.join(skills, "burst", "recipes", `r${String(i).padStart(3, "0")}.md`), anchors(`Step ${i}`)).catch(async () => {
        await mkdir(path.join(skills, "burst", "recipes"), { recursive: true });
        await writeFile(path.join(skills, "burst", "recipes", `r${String(i).padStart(3, "0")}.md`), anchors(`Step ${i}`));
      })),
    );
    // (recipes__list of 500 anchors is a windowed answer: count on the snapshot, spot-check via search)
    await until(async () => library.current()!.skills.get("burst")?.recipeIds.length === 500);
    off();
    expect(await recipeIds("burst")).toHaveLength(50);
    expect(publishes).toBeLessThanOrEqual(5);
  });
});
