import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOST_TAG } from "../../../src/recipes/store/atomic-write.js";
import { parsePlaybookFile } from "../../../src/recipes/store/format.js";
import { toPrivateRecipe } from "../../../src/recipes/catalog/playbook-state.js";
import { HISTORY_DIR } from "../../../src/recipes/store/file-history.js";
import { openPrivateStore, type PlaybookDraft, type PlaybookPatch, type PrivateStore, type StoreResult } from "../../../src/recipes/store/store.js";
import type { Playbook } from "../../../src/recipes/types.js";

let root: string;
let dir: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "private-store-"));
  dir = path.join(root, "private");
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function draft(over: Partial<PlaybookDraft> = {}): PlaybookDraft {
  return {
    title: "Bake normals",
    summary: "Bake high-poly normals onto the low-poly cage.",
    whenToUse: "A game asset needs a tangent-space normal map.",
    steps: [
      { title: "Check UVs", detail: "No overlapping shells on the low-poly mesh." },
      { title: "Bake", detail: "Use a cage with 0.02 envelope." },
    ],
    acceptanceCriteria: ["No visible seams", "Map is 16-bit"],
    tags: ["maya", "baking"],
    document: "# Bake normals\n\nLonger notes.\n",
    ...over,
  };
}

function clock(start = Date.parse("2026-11-29T10:00:00.000Z")): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

function expectOk(result: StoreResult): Playbook {
  if (!result.ok) throw new Error(`expected ok, got ${result.code}: ${result.message}`);
  return result.playbook;
}

async function listDir(): Promise<string[]> {
  // The history folder is the store's own (file-history.ts); everything else here is a playbook or debris.
  return (await fs.readdir(dir)).filter((n) => n !== HISTORY_DIR).sort();
}

async function readParsed(slug: string): Promise<Playbook> {
  const text = await fs.readFile(path.join(dir, `${slug}.md`), "utf8");
  const parsed = parsePlaybookFile(text, slug, new Date().toISOString());
  if (!parsed.ok) throw new Error(`${slug}.md does not parse: ${parsed.message}`);
  return parsed.stored.playbook;
}

describe("create", () => {
  it("writes a readable file that loadAll reads back identically", async () => {
    const store = openPrivateStore({ dir, now: clock() });
    const created = expectOk(await store.create(draft()));
    expect(created).toMatchObject({ slug: "bake-normals", revision: 1, createdAt: "2026-11-29T10:00:01.000Z", updatedAt: "2026-11-29T10:00:01.000Z" });
    const text = await fs.readFile(path.join(dir, "bake-normals.md"), "utf8");
    expect(text.startsWith("---\ntitle: Bake normals\nsummary: ")).toBe(true);
    expect(text.endsWith("---\n# Bake normals\n\nLonger notes.\n")).toBe(true);
    const loaded = await openPrivateStore({ dir }).loadAll();
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.playbooks).toEqual([created]);
  });

  it("round-trips hostile documents exactly", async () => {
    const store = openPrivateStore({ dir });
    const documents = [
      "\n\n\nleading and trailing blank lines\n\n\n",
      "---\ntitle: fake\n---\n---",
      "crlf\r\nlines\r\n\r\n",
      "unicode 日本語 🎨 e\u0301 \u2028 \u0000",
      "y".repeat(80_000),
    ];
    const created: Playbook[] = [];
    for (const document of documents) created.push(expectOk(await store.create(draft({ document, title: "Hostile" }))));
    const loaded = await openPrivateStore({ dir }).loadAll();
    expect(loaded.diagnostics).toEqual([]);
    created.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    expect(loaded.playbooks.map((p) => p.document)).toEqual(created.map((p) => p.document));
    expect(loaded.playbooks).toEqual(created);
  });

  it("creates the directory with mode 0700 and files with 0600", async () => {
    const nested = path.join(dir, "deeper");
    const store = openPrivateStore({ dir: nested });
    expectOk(await store.create(draft()));
    if (process.platform !== "win32") {
      expect((await fs.stat(nested)).mode & 0o777).toBe(0o700);
      expect((await fs.stat(path.join(nested, "bake-normals.md"))).mode & 0o777).toBe(0o600);
    }
  });

  it("numbers repeated titles and never overwrites an existing file", async () => {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "bake-normals.md"), "hand written, not even valid");
    const store = openPrivateStore({ dir });
    expect(expectOk(await store.create(draft())).slug).toBe("bake-normals-2");
    expect(expectOk(await store.create(draft())).slug).toBe("bake-normals-3");
    expect(await fs.readFile(path.join(dir, "bake-normals.md"), "utf8")).toBe("hand written, not even valid");
    expect(expectOk(await store.create(draft({ title: "日本語" }))).slug).toBe("playbook");
    expect(expectOk(await store.create(draft({ title: "CON" }))).slug).toBe("con-playbook");
  });

  it("does not hand out one slug twice when two stores share a directory", async () => {
    const a = openPrivateStore({ dir });
    const b = openPrivateStore({ dir });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).create(draft({ document: `doc ${i}` }))));
    const slugs = results.map((r) => expectOk(r).slug);
    expect(new Set(slugs).size).toBe(40);
    const loaded = await a.loadAll();
    expect(loaded.playbooks.map((p) => p.document).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `doc ${i}`).sort());
  });

  it("500 concurrent creates of one title give 500 distinct, complete files", async () => {
    const store = openPrivateStore({ dir });
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => store.create(draft({ document: `body ${i}\n` }))));
    const slugs = results.map((r) => expectOk(r).slug);
    expect(new Set(slugs).size).toBe(500);
    expect(slugs).toContain("bake-normals");
    expect(slugs).toContain("bake-normals-500");
    const names = await listDir();
    expect(names).toHaveLength(500);
    expect(names.every((n) => /^bake-normals(-\d+)?\.md$/.test(n))).toBe(true);
    const loaded = await openPrivateStore({ dir }).loadAll();
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.playbooks.map((p) => p.document).sort()).toEqual(Array.from({ length: 500 }, (_, i) => `body ${i}\n`).sort());
  });

  it("refuses text it could not store faithfully", async () => {
    const store = openPrivateStore({ dir, maxFileBytes: 4096 });
    const big = await store.create(draft({ document: "z".repeat(5000) }));
    expect(big).toMatchObject({ ok: false, code: "invalid_input" });
    expect(!big.ok && big.message).toMatch(/limit is 4096/);
    const surrogate = await store.create(draft({ steps: [{ title: "a", detail: "broken \ud800 half" }] }));
    expect(surrogate).toMatchObject({ ok: false, code: "invalid_input" });
    expect(!surrogate.ok && surrogate.message).toMatch(/steps\[0\]\.detail/);
    expect(await store.create(draft({ title: "" }))).toMatchObject({ ok: false, code: "invalid_input" });
    await expect(fs.readdir(dir)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("reports an unusable directory as internal, without host paths", async () => {
    await fs.writeFile(dir, "a file where the directory should be");
    const store = openPrivateStore({ dir });
    const result = await store.create(draft());
    expect(result).toMatchObject({ ok: false, code: "internal" });
    expect(!result.ok && result.message).not.toContain(root);
    const loaded = await store.loadAll();
    expect(loaded.playbooks).toEqual([]);
    expect(loaded.diagnostics).toHaveLength(1);
    expect(loaded.diagnostics[0]?.message).not.toContain(root);
    expect(await store.update("bake-normals", { summary: "x" })).toMatchObject({ ok: false });
  });

  it("defaults tags to an empty list", async () => {
    const store = openPrivateStore({ dir });
    const { tags: _omit, ...noTags } = draft();
    expect(expectOk(await store.create(noTags)).tags).toEqual([]);
  });
});

describe("update", () => {
  let store: PrivateStore;
  beforeEach(() => {
    store = openPrivateStore({ dir, now: clock() });
  });

  it("patches the given fields, bumps revision and updatedAt, keeps the rest", async () => {
    const created = expectOk(await store.create(draft()));
    const updated = expectOk(await store.update("bake-normals", { summary: "New summary", tags: ["x"] }));
    expect(updated).toEqual({ ...created, summary: "New summary", tags: ["x"], revision: 2, updatedAt: "2026-11-29T10:00:02.000Z" });
    expect(await readParsed("bake-normals")).toEqual(updated);
  });

  it("keeps the slug when the title changes", async () => {
    expectOk(await store.create(draft()));
    const updated = expectOk(await store.update("bake-normals", { title: "Bake normal maps (v2)" }));
    expect(updated.slug).toBe("bake-normals");
    expect(await listDir()).toEqual(["bake-normals.md"]);
  });

  it("answers not_found for unknown or path-like slugs without touching the disk", async () => {
    expectOk(await store.create(draft()));
    for (const slug of ["missing", "../private/bake-normals", "Bake-Normals", "", "con", "a/b"]) {
      const result = await store.update(slug, { summary: "x" });
      expect(result).toMatchObject({ ok: false, code: "not_found" });
    }
    expect(await listDir()).toEqual(["bake-normals.md"]);
  });

  it("reports a stale expectedRevision as a conflict naming the current revision", async () => {
    expectOk(await store.create(draft()));
    expectOk(await store.update("bake-normals", { summary: "two" }, 1));
    const stale = await store.update("bake-normals", { summary: "three" }, 1);
    expect(stale).toMatchObject({ ok: false, code: "conflict" });
    expect(!stale.ok && stale.message).toMatch(/revision 2/);
    expect((await readParsed("bake-normals")).summary).toBe("two");
    expect(await store.update("bake-normals", { summary: "x" }, 0)).toMatchObject({ ok: false, code: "invalid_input" });
    expect(await store.update("bake-normals", { summary: "x" }, 1.5)).toMatchObject({ ok: false, code: "invalid_input" });
  });

  it("applies the patch to what a human wrote since, and keeps their extra keys", async () => {
    expectOk(await store.create(draft()));
    const file = path.join(dir, "bake-normals.md");
    const edited = (await fs.readFile(file, "utf8"))
      .replace("title: Bake normals", "title: Bake normals (edited)\nauthor: Ana")
      .replace("Longer notes.", "Notes a human added.");
    await fs.writeFile(file, edited);
    const updated = expectOk(await store.update("bake-normals", { tags: ["edited"] }));
    expect(updated.title).toBe("Bake normals (edited)");
    expect(updated.document).toContain("Notes a human added.");
    expect(updated.revision).toBe(2);
    expect(await fs.readFile(file, "utf8")).toContain("author: Ana");
  });

  it("refuses to overwrite a file that is malformed on disk", async () => {
    expectOk(await store.create(draft()));
    await fs.writeFile(path.join(dir, "bake-normals.md"), "---\ntitle: [broken\n---\n");
    const result = await store.update("bake-normals", { summary: "x" });
    expect(result).toMatchObject({ ok: false, code: "conflict" });
    expect(await fs.readFile(path.join(dir, "bake-normals.md"), "utf8")).toBe("---\ntitle: [broken\n---\n");
  });

  it("an empty patch changes nothing", async () => {
    const created = expectOk(await store.create(draft()));
    expect(expectOk(await store.update("bake-normals", {}))).toEqual(created);
    expect(expectOk(await store.update("bake-normals", { summary: undefined }))).toEqual(created);
  });

  it("refuses a patch that would exceed the size limit and keeps the old file", async () => {
    const small = openPrivateStore({ dir, maxFileBytes: 2048 });
    expectOk(await small.create(draft()));
    const result = await small.update("bake-normals", { document: "é".repeat(1500) });
    expect(result).toMatchObject({ ok: false, code: "invalid_input" });
    expect((await readParsed("bake-normals")).revision).toBe(1);
  });

  it("200 concurrent read-modify-write updates with expectedRevision lose nothing", async () => {
    expectOk(await store.create(draft({ document: "start\n" })));
    let conflicts = 0;
    const appendLine = async (i: number): Promise<void> => {
      for (;;) {
        const { playbook } = await store.loadOne("bake-normals");
        if (!playbook) throw new Error("playbook vanished");
        const result = await store.update("bake-normals", { document: `${playbook.document}line ${i}\n` }, playbook.revision);
        if (result.ok) return;
        expect(result.code).toBe("conflict");
        conflicts++;
      }
    };
    await Promise.all(Array.from({ length: 200 }, (_, i) => appendLine(i)));
    const final = await readParsed("bake-normals");
    expect(final.revision).toBe(201);
    const lines = final.document.split("\n").filter(Boolean);
    expect(lines[0]).toBe("start");
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `line ${i}`).sort());
    expect(conflicts).toBeGreaterThan(0); // the retries were exercised
  });

  it("200 concurrent blind updates of different field subsets end in the serial outcome, never torn", async () => {
    const created = expectOk(await store.create(draft()));
    const fields = ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"] as const;
    const valueFor = (field: (typeof fields)[number], i: number): PlaybookPatch[keyof PlaybookPatch] => {
      switch (field) {
        case "steps":
          return [{ title: `step ${i}`, detail: `detail ${i}\n`.repeat(i % 7 + 1) }];
        case "acceptanceCriteria":
        case "tags":
          return Array.from({ length: (i % 4) + 1 }, (_, k) => `${field} ${i}.${k}`);
        case "document":
          return `document ${i}\n`.repeat(200 + i);
        default:
          return `${field} ${i}`;
      }
    };
    const patches: PlaybookPatch[] = Array.from({ length: 200 }, (_, i) => {
      const patch: Record<string, unknown> = {};
      fields.forEach((field, bit) => {
        if ((((i % 127) + 1) >> bit) & 1) patch[field] = valueFor(field, i);
      });
      return patch as PlaybookPatch;
    });
    const results = await Promise.all(patches.map((patch) => store.update("bake-normals", patch)));
    for (const r of results) expectOk(r);
    // Updates to one playbook run in call order, so the serial outcome is the patches folded in order.
    const expected: Record<string, unknown> = { ...created };
    for (const patch of patches) Object.assign(expected, patch);
    const final = await readParsed("bake-normals");
    for (const field of fields) expect(final[field]).toEqual(expected[field]);
    expect(final.revision).toBe(201);
    expect(final.createdAt).toBe(created.createdAt);
  });

  it("updates of different playbooks run side by side without interfering", async () => {
    const a = expectOk(await store.create(draft({ title: "A" })));
    const b = expectOk(await store.create(draft({ title: "B" })));
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => store.update(i % 2 ? a.slug : b.slug, { summary: `s${i}` })),
    );
    expect((await readParsed("a")).revision).toBe(31);
    expect((await readParsed("b")).revision).toBe(31);
  });

  it("flush waits for queued writes", async () => {
    expectOk(await store.create(draft()));
    const pending = Array.from({ length: 20 }, (_, i) => store.update("bake-normals", { summary: `s${i}` }));
    await store.flush();
    expect((await readParsed("bake-normals")).revision).toBe(21);
    await Promise.all(pending);
    await store.flush(); // idle store: resolves at once
  });
});

describe("loadAll with hand-made files", () => {
  async function put(name: string, content: string | Uint8Array): Promise<void> {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, name), content);
  }

  it("missing directory → nothing, no diagnostics", async () => {
    expect(await openPrivateStore({ dir }).loadAll()).toEqual({ playbooks: [], diagnostics: [] });
  });

  it("diagnoses each broken file by its relative name and still loads the good ones", async () => {
    const store = openPrivateStore({ dir });
    expectOk(await store.create(draft({ title: "Good one" })));
    expectOk(await store.create(draft({ title: "Edited title" })));
    const editedPath = path.join(dir, "edited-title.md");
    await fs.writeFile(editedPath, (await fs.readFile(editedPath, "utf8")).replace("title: Edited title", "title: A human renamed me"));
    await put("title-only.md", "---\ntitle: Only a title\n---\nSome body text.\n");
    await put("no-frontmatter.md", "# Just notes\n\nno frontmatter here\n");
    await put("not-a-mapping.md", "---\n- one\n- two\n---\nbody\n");
    await put("bad-yaml.md", "---\ntitle: ok\nsteps: [unclosed\n---\nbody\n");
    await put("empty-title.md", "---\ntitle: \"\"\n---\nbody\n");
    await put("latin1.md", Uint8Array.from([...Buffer.from("---\ntitle: caf"), 0xe9, ...Buffer.from("\n---\nbody\n")]));
    await put("huge.md", `---\ntitle: Huge\n---\n${"x".repeat(2 * 1024 * 1024)}`);
    await put("Bad Name.md", "---\ntitle: Bad name\n---\n");
    await put("empty.md", "");
    await put(".hidden.md", "---\ntitle: hidden\n---\n");
    await put("notes.txt", "not markdown");
    await fs.mkdir(path.join(dir, "folder.md"));

    const { playbooks, diagnostics } = await store.loadAll();
    expect(playbooks.map((p) => [p.slug, p.title])).toEqual([
      ["edited-title", "A human renamed me"],
      ["good-one", "Good one"],
      ["title-only", "Only a title"],
    ]);
    const byFile = Object.fromEntries(diagnostics.map((d) => [d.file, d]));
    expect(Object.keys(byFile).sort()).toEqual(
      ["Bad Name.md", "bad-yaml.md", "empty-title.md", "empty.md", "huge.md", "latin1.md", "no-frontmatter.md", "not-a-mapping.md"].sort(),
    );
    for (const d of diagnostics) {
      expect(d).toMatchObject({ severity: "error", code: "private_playbook_invalid", skill: "private" });
      expect(d.message).not.toContain(root);
    }
    expect(byFile["huge.md"]?.message).toMatch(/limit is 1048576/);
    expect(byFile["latin1.md"]?.message).toMatch(/UTF-8/);
    expect(byFile["no-frontmatter.md"]?.message).toMatch(/frontmatter/);
    expect(byFile["not-a-mapping.md"]?.message).toMatch(/mapping/);
    expect(byFile["bad-yaml.md"]).toMatchObject({ line: expect.any(Number) });
    expect(byFile["Bad Name.md"]?.message).toMatch(/rename it to bad-name\.md/);
  });

  it("ignores temp files, and removes those a dead writer left behind", async () => {
    const store = openPrivateStore({ dir });
    expectOk(await store.create(draft()));
    const deadPid = 2 ** 22 + 12345; // above Linux pid_max: never a live process
    const dead = `.bake-normals.md.${deadPid}.${HOST_TAG}.0123456789ab.tmp`;
    const liveFresh = `.bake-normals.md.${process.pid}.${HOST_TAG}.aaaaaaaaaaaa.tmp`;
    const liveOld = `.bake-normals.md.${process.pid}.${HOST_TAG}.bbbbbbbbbbbb.tmp`;
    for (const name of [dead, liveFresh, liveOld]) await put(name, "---\ntitle: half writ");
    const old = new Date(Date.now() - 10 * 60_000);
    await fs.utimes(path.join(dir, liveOld), old, old);
    const { playbooks, diagnostics } = await store.loadAll();
    expect(playbooks.map((p) => p.slug)).toEqual(["bake-normals"]);
    expect(diagnostics).toEqual([]);
    expect(await listDir()).toEqual([liveFresh, "bake-normals.md"].sort());
  });
});

describe("loadOne", () => {
  it("reads one file, reports a broken one, and answers null for gone or invalid slugs", async () => {
    const store = openPrivateStore({ dir });
    const created = expectOk(await store.create(draft()));
    expect(await store.loadOne("bake-normals")).toEqual({ playbook: created });
    expect(await store.loadOne("nothing-here")).toEqual({ playbook: null });
    expect(await store.loadOne("../etc/passwd")).toEqual({ playbook: null });
    await fs.writeFile(path.join(dir, "bake-normals.md"), "no frontmatter");
    const broken = await store.loadOne("bake-normals");
    expect(broken.playbook).toBeNull();
    expect(broken.diagnostic).toMatchObject({ code: "private_playbook_invalid", file: "bake-normals.md" });
  });
});

describe("concurrent reads", () => {
  it("a read issued after a write sees it, even while a crowd of reads is in flight", async () => {
    const store = openPrivateStore({ dir });
    expectOk(await store.create(draft()));
    const file = path.join(dir, "bake-normals.md");
    const original = await fs.readFile(file, "utf8");
    for (let i = 0; i < 20; i++) {
      const crowd = Array.from({ length: 30 }, () => store.loadOne("bake-normals"));
      await fs.writeFile(file, original.replace("summary: ", `summary: round ${i} `));
      const after = await store.loadOne("bake-normals");
      expect(after.playbook?.summary.startsWith(`round ${i} `)).toBe(true);
      await Promise.all(crowd); // some saw the in-place rewrite half done; not the point here
      const viaUpdate = expectOk(await store.update("bake-normals", { tags: [`t${i}`] }));
      expect((await store.loadOne("bake-normals")).playbook).toEqual(viaUpdate);
    }
  });
});

describe("slugFromFile", () => {
  it("maps playbook file names to slugs and everything else to null", () => {
    const store = openPrivateStore({ dir });
    expect(store.slugFromFile("bake-normals.md")).toBe("bake-normals");
    expect(store.slugFromFile(path.join(dir, "bake-normals.md"))).toBe("bake-normals");
    for (const name of ["bake-normals.MD", "Bake.md", ".bake.md", `.bake-normals.md.123.${HOST_TAG}.0123456789ab.tmp`, "bake.txt", "con.md", ".md"]) {
      expect(store.slugFromFile(name)).toBeNull();
    }
  });
});

describe("toPrivateRecipe", () => {
  it("addresses the playbook as private/<slug>", async () => {
    const store = openPrivateStore({ dir });
    const playbook = expectOk(await store.create(draft()));
    expect(toPrivateRecipe(playbook)).toEqual({
      recipeId: "private/bake-normals",
      skill: "private",
      name: "bake-normals",
      dcc: "any",
      description: playbook.summary,
      tags: ["maya", "baking"],
      file: "bake-normals.md",
      visibility: "private",
      format: "private",
      playbook,
    });
  });
});

describe("restart", () => {
  it("a new store on the same directory sees every playbook at its latest revision", async () => {
    const first = openPrivateStore({ dir });
    for (let i = 0; i < 10; i++) expectOk(await first.create(draft({ title: `Playbook ${i}` })));
    await Promise.all(Array.from({ length: 10 }, (_, i) => first.update(`playbook-${i}`, { summary: `updated ${i}` })));
    await first.flush();
    const { playbooks, diagnostics } = await openPrivateStore({ dir }).loadAll();
    expect(diagnostics).toEqual([]);
    expect(playbooks).toHaveLength(10);
    for (const p of playbooks) {
      expect(p.revision).toBe(2);
      expect(p.summary).toBe(`updated ${p.slug.slice("playbook-".length)}`);
    }
  });
});
