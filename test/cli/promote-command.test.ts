/**
 * `recipe-server promote` against real files: a real file store holds the
 * playbooks, real skill roots receive them, the real linter and loader judge
 * the result.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { runPromote } from "../../src/cli/promote-command.js";
import { promotePlaybook } from "../../src/cli/promote.js";
import { lintRoots } from "../../src/lint/engine.js";
import { loadSkill } from "../../src/skills/discover.js";
import { loadSkillRecipes } from "../../src/recipes/packs/loader.js";
import { openPrivateStore } from "../../src/recipes/store/store.js";
import type { PlaybookDraft } from "../../src/recipes/store/playbook-values.js";
import { makeTempDir, skillMd, writeTree } from "../e2e/harness.js";

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => fs.rm(t, { recursive: true, force: true })));
});

interface Setup {
  readonly tmp: string;
  readonly root: string;
  readonly privateDir: string;
}

async function setup(files: Record<string, string> = { "rig/SKILL.md": skillMd("rig", "maya", "recipes/*.md"), "rig/recipes/bind.md": "## Bind skin\n\nBind the skin.\n" }): Promise<Setup> {
  const tmp = await makeTempDir("promote-");
  temps.push(tmp);
  const root = path.join(tmp, "skills");
  await writeTree(root, files);
  return { tmp, root, privateDir: path.join(tmp, "private") };
}

const draft = (over: Partial<PlaybookDraft> = {}): PlaybookDraft => ({
  title: "Bake normals",
  summary: "Bake tangent-space normals from the high to the low mesh.",
  whenToUse: "When a low-poly asset needs detail from its sculpt.",
  steps: [{ title: "Select meshes", detail: "High first, then low." }, { title: "Bake", detail: "Use 2k maps." }],
  acceptanceCriteria: ["no seams visible", "map is 2048 square"],
  tags: ["texturing"],
  document: "Check the cage before baking.",
  ...over,
});

async function playbook(s: Setup, over: Partial<PlaybookDraft> = {}): Promise<string> {
  const store = openPrivateStore({ dir: s.privateDir });
  const created = await store.create(draft(over));
  await store.close();
  if (!created.ok) throw new Error(created.message);
  return created.playbook.slug;
}

async function promote(s: Setup, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await runPromote([...args, "--dcc", "maya", "--private-dir", s.privateDir, "--skills-path", s.root], {
    stdout,
    stderr,
    env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(s.tmp, "data"), HOME: s.tmp },
    cwd: s.tmp,
  });
  return { code, out, err };
}

async function recipesOf(dir: string, root: string): Promise<Map<string, string>> {
  const { skill } = await loadSkill(dir, root, 0);
  const loaded = await loadSkillRecipes(skill!);
  return new Map(loaded.recipes.map((r) => [r.name, r.format === "markdown" ? r.content : JSON.stringify(r.format === "yaml" ? r.entry : null)]));
}

async function lintErrors(dir: string): Promise<string[]> {
  const report = await lintRoots([dir], { cwd: dir, requireSkills: true });
  return report.findings.filter((f) => f.severity === "error").map((f) => `${f.code} ${f.file}: ${f.message}`);
}

describe("recipe-server promote: Markdown", () => {
  it("writes the playbook as one ## recipe the loader reads, with its provenance, lint clean", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig")]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^promoted private\/bake-normals revision 1 to rig\/Bake normals \(markdown, .*recipes\/bake-normals\.md\)\n$/);
    const text = await fs.readFile(path.join(s.root, "rig/recipes/bake-normals.md"), "utf8");
    expect(text.startsWith("## Bake normals\n\nBake tangent-space normals")).toBe(true);
    for (const part of ["### When to use", "#### 1. Select meshes", "High first, then low.", "#### 2. Bake", "- no seams visible", "### Document", "Check the cage"]) {
      expect(text).toContain(part);
    }
    expect(text.trimEnd().endsWith("<!-- promoted from private/bake-normals revision 1 -->")).toBe(true);
    const recipes = await recipesOf(path.join(s.root, "rig"), s.root);
    expect([...recipes.keys()].sort()).toEqual(["Bake normals", "Bind skin"]);
    expect(await lintErrors(path.join(s.root, "rig"))).toEqual([]);
    const mode = (await fs.stat(path.join(s.root, "rig/recipes/bake-normals.md"))).mode & 0o777;
    expect(mode & 0o044).not.toBe(0); // readable by the pack's other users, unlike a private playbook
    expect((await fs.readdir(path.join(s.root, "rig/recipes"))).sort()).toEqual(["bake-normals.md", "bind.md"]); // no temp file left
  });

  it("promotes an older revision with --revision, and says which in the provenance", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const store = openPrivateStore({ dir: s.privateDir });
    const updated = await store.update(slug, { title: "Bake normals v2", summary: "second take" });
    await store.close();
    expect(updated.ok).toBe(true);
    const r = await promote(s, [`private/${slug}`, "--revision", "1", "--to", path.join(s.root, "rig")]);
    expect(r.code).toBe(0);
    const text = await fs.readFile(path.join(s.root, "rig/recipes/bake-normals.md"), "utf8");
    expect(text.startsWith("## Bake normals\n")).toBe(true);
    expect(text).toContain("revision 1 -->");
    const latest = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig")]);
    // Same slug, same file name: the second promotion is refused, not written over the first.
    expect(latest.code).toBe(1);
    expect(latest.err).toMatch(/rig\/recipes\/bake-normals\.md exists; promote never overwrites a file/);
  });

  it("keeps a hostile title and text inside one recipe: no path, no second anchor, no front matter", async () => {
    const s = await setup();
    const slug = await playbook(s, {
      title: "../../etc/passwd\n---\nname: evil\n---\n## Injected #",
      summary: "# top level\n## second anchor\n```\nunclosed fence",
      whenToUse: "~~~\n## inside tilde fence",
      steps: [{ title: "a\nb ## c", detail: "## not an anchor" }],
      acceptanceCriteria: ["line one\n## line two"],
      document: "---\ntitle: fake\n---\n## Also not an anchor",
    });
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig")]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // The file is named by the slug, never by the title.
    const files = (await fs.readdir(path.join(s.root, "rig/recipes"))).sort();
    expect(files).toEqual(["bind.md", `${slug}.md`]);
    expect(slug).toMatch(/^[a-z0-9-]+$/);
    const recipes = await recipesOf(path.join(s.root, "rig"), s.root);
    expect(recipes.size).toBe(2);
    const name = [...recipes.keys()].find((n) => n !== "Bind skin")!;
    expect(name).toBe("../../etc/passwd --- name: evil --- ## Injected");
    expect(recipes.get(name)).toContain("## not an anchor".replace("##", "###"));
    expect(await lintErrors(path.join(s.root, "rig"))).toEqual([]);
  });
});

describe("recipe-server promote: YAML", () => {
  it("writes a recipe entry document as a YAML pack entry with a provenance key", async () => {
    const s = await setup({ "fx/SKILL.md": skillMd("fx", "maya", ["recipes/*.md", "packs/*.yaml"]) });
    const document = [
      "name: scatter_points",
      "description: scatter",
      "inputs_schema:",
      "  type: object",
      "  properties:",
      "    count: {type: integer, minimum: 1}",
      "  required: [count]",
      "steps:",
      "  - tool: maya_scatter",
      "    args: {count: \"{count}\"}",
      "output_contract:",
      "  type: object",
      "  required: [points]",
    ].join("\n");
    const slug = await playbook(s, { title: "Scatter points", summary: "Scatter points on a mesh.", document: `\`\`\`yaml\n${document}\n\`\`\`` });
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "fx")]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("(yaml, ");
    const recipes = await recipesOf(path.join(s.root, "fx"), s.root);
    const entry = JSON.parse(recipes.get("scatter-points")!) as Record<string, unknown>;
    expect(entry["provenance"]).toEqual({ from: "private/scatter-points", revision: 1 });
    expect(entry["description"]).toBe("Scatter points on a mesh.");
    expect(entry["steps"]).toEqual([{ tool: "maya_scatter", args: { count: "{count}" } }]);
    expect(await fs.readdir(path.join(s.root, "fx/packs"))).toEqual(["scatter-points.yaml"]);
    expect(await lintErrors(path.join(s.root, "fx"))).toEqual([]);
  });

  it("refuses an entry lint rejects, naming the finding, and writes nothing", async () => {
    const s = await setup({ "fx/SKILL.md": skillMd("fx", "maya", "packs/*.yaml") });
    // An inputs_schema that is not a schema fails closed: every call would be refused.
    const slug = await playbook(s, { document: "inputs_schema:\n  type: 42\nsteps:\n  - tool: maya_bake\n" });
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "fx")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^recipe-server promote: lint finds \d+ errors? in the promoted recipe; nothing written\n/);
    expect(r.err).toMatch(/packs\/bake-normals\.yaml/);
    expect(await fs.readdir(path.join(s.root, "fx")).then((f) => f.sort())).toEqual(["SKILL.md"]);
  });
});

describe("recipe-server promote: refusals", () => {
  it.each([
    [["private/Bad_Slug", "--to", "x"], /"private\/Bad_Slug" is not a playbook id/],
    [["private/../etc", "--to", "x"], /is not a playbook id/],
    [["bake-normals", "--to", "x"], /is not a playbook id/],
    [["private/a", "private/b", "--to", "x"], /one playbook at a time/],
    [["private/a"], /--to SKILL_DIR is required/],
    [["--to", "x"], /name the playbook/],
    [["private/a", "--to", "x", "--revision", "0"], /--revision must be a positive integer/],
    [["private/a", "--to", "x", "--revision", "1e3"], /--revision must be a positive integer/],
    [["private/a", "--to"], /--to needs a value/],
  ])("usage error for %j: exit 2, one line", async (args, message) => {
    const s = await setup();
    const r = await promote(s, args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trimEnd().split("\n")).toHaveLength(1);
  });

  it("asks for one DCC when several are served", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig"), "--dcc", "houdini"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/name one DCC/);
  });

  it("refuses a missing playbook, a missing revision, a missing skill and a directory outside the skill roots", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const rig = path.join(s.root, "rig");
    const cases: Array<[string[], RegExp]> = [
      [["private/no-such", "--to", rig], /no private playbook private\/no-such for maya/],
      [[`private/${slug}`, "--revision", "9", "--to", rig], /has no kept revision 9/],
      [[`private/${slug}`, "--to", path.join(s.root, "nope")], /does not exist/],
      [[`private/${slug}`, "--to", s.root], /is not a skill directory \(no SKILL\.md\)/],
    ];
    const outside = path.join(s.tmp, "elsewhere");
    await writeTree(outside, { "SKILL.md": skillMd("elsewhere", "maya", "*.md") });
    cases.push([[`private/${slug}`, "--to", outside], /is not a skill of maya's skill roots/]);
    for (const [args, message] of cases) {
      const r = await promote(s, args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.err).toMatch(message);
      expect(r.err.trimEnd().split("\n")).toHaveLength(1);
    }
    expect((await fs.readdir(path.join(rig, "recipes"))).sort()).toEqual(["bind.md"]);
  });

  it("refuses a deleted playbook unless an earlier revision is named", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const store = openPrivateStore({ dir: s.privateDir });
    expect((await store.remove(slug)).ok).toBe(true);
    await store.close();
    const gone = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig")]);
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/no private playbook/);
    expect((await promote(s, [`private/${slug}`, "--revision", "1", "--to", path.join(s.root, "rig")])).code).toBe(0);
  });

  it("refuses a recipe name the skill already has, and a file that exists", async () => {
    const s = await setup();
    const same = await playbook(s, { title: "Bind skin" });
    const r = await promote(s, [`private/${same}`, "--to", path.join(s.root, "rig")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/skill rig already has a recipe "Bind skin"; nothing written/);
    const other = await playbook(s, { title: "Paint weights" });
    await fs.writeFile(path.join(s.root, "rig/recipes/paint-weights.md"), "hand written\n");
    const exists = await promote(s, [`private/${other}`, "--to", path.join(s.root, "rig")]);
    expect(exists.code).toBe(1);
    expect(exists.err).toMatch(/rig\/recipes\/paint-weights\.md exists/);
    expect(await fs.readFile(path.join(s.root, "rig/recipes/paint-weights.md"), "utf8")).toBe("hand written\n");
  });

  it("refuses when no recipe glob of the skill takes a new file, naming the globs", async () => {
    const s = await setup({ "rig/SKILL.md": skillMd("rig", "maya", "RECIPES.md"), "rig/RECIPES.md": "## Bind skin\n\nBind.\n" });
    const slug = await playbook(s);
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/skill rig's metadata\.dcc-mcp\.recipes "RECIPES\.md" takes no new Markdown file/);
    expect(await fs.readdir(path.join(s.root, "rig")).then((f) => f.sort())).toEqual(["RECIPES.md", "SKILL.md"]);
  });

  it("with a users file, promotes the named user's playbook and no one else's", async () => {
    const s = await setup();
    const users = path.join(s.tmp, "users.json");
    await fs.writeFile(users, JSON.stringify({ users: [] }));
    // The server keeps a user's playbooks in <private dir>/<user> (owner = user).
    const store = openPrivateStore({ dir: path.join(s.privateDir, "alice"), owner: "alice" });
    const created = await store.create(draft());
    await store.close();
    expect(created.ok).toBe(true);
    const rig = path.join(s.root, "rig");
    const noUser = await promote(s, ["private/bake-normals", "--to", rig, "--users-file", users]);
    expect(noUser.code).toBe(2);
    expect(noUser.err).toMatch(/name the user with --user ID/);
    const bob = await promote(s, ["private/bake-normals", "--to", rig, "--users-file", users, "--user", "bob"]);
    expect(bob.code).toBe(1);
    expect(bob.err).toMatch(/no private playbook private\/bake-normals/);
    const hostile = await promote(s, ["private/bake-normals", "--to", rig, "--users-file", users, "--user", "../alice"]);
    expect(hostile.code).toBe(2);
    const alice = await promote(s, ["private/bake-normals", "--to", rig, "--users-file", users, "--user", "alice"]);
    expect(alice.err).toBe("");
    expect(alice.code).toBe(0);
    const single = await promote(s, ["private/bake-normals", "--to", rig, "--user", "alice"]);
    expect(single.code).toBe(2);
    expect(single.err).toMatch(/--user needs --users-file/);
  });

  it("refuses a skill of another DCC", async () => {
    const s = await setup({ "hou/SKILL.md": skillMd("hou", "houdini", "*.md") });
    const slug = await playbook(s);
    const r = await promote(s, [`private/${slug}`, "--to", path.join(s.root, "hou")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/skill hou is for houdini, not maya/);
  });

  it("two promotions of one playbook racing: one file, one refusal", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const [a, b] = await Promise.all([0, 1].map(() => promote(s, [`private/${slug}`, "--to", path.join(s.root, "rig")])));
    expect([a!.code, b!.code].sort()).toEqual([0, 1]);
    expect((await fs.readdir(path.join(s.root, "rig/recipes"))).sort()).toEqual(["bake-normals.md", "bind.md"]);
  });
});

describe("promotePlaybook: refusals as data, with the tool table's codes", () => {
  it("not_found for a playbook or skill, conflict for an existing recipe, invalid_input for the rest", async () => {
    const s = await setup();
    const slug = await playbook(s);
    const dcc = { name: "maya", skillRoots: [s.root], builtInRoots: [], privateDir: s.privateDir, stateDir: path.join(s.tmp, "state"), storeUrl: null };
    const rig = path.join(s.root, "rig");
    const ask = (over: { slug?: string; skillDir?: string; revision?: number }) =>
      promotePlaybook({ dcc, slug: over.slug ?? slug, revision: over.revision, user: undefined, skillDir: over.skillDir ?? rig, historyLimit: 50 });
    expect(await ask({ slug: "missing" })).toMatchObject({ ok: false, code: "not_found" });
    expect(await ask({ revision: 7 })).toMatchObject({ ok: false, code: "not_found" });
    expect(await ask({ skillDir: path.join(s.root, "none") })).toMatchObject({ ok: false, code: "not_found" });
    expect(await ask({})).toMatchObject({ ok: true, recipeId: "rig/Bake normals", format: "markdown", revision: 1, from: `private/${slug}` });
    expect(await ask({})).toMatchObject({ ok: false, code: "conflict" });
    const outside = path.join(s.tmp, "outside");
    await writeTree(outside, { "SKILL.md": skillMd("outside", "maya", "*.md") });
    expect(await ask({ skillDir: outside })).toMatchObject({ ok: false, code: "invalid_input", findings: [] });
  });
});
