/**
 * The worker pool runs compiled JavaScript only, so these tests drive the
 * built module in dist/ (`npm ci` builds it); the TypeScript module's own
 * fallback (the calling thread) is tested beside it.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { PackFileResult } from "../../src/recipes/pack-file.js";
import { createPackParser, inlineParser } from "../../src/recipes/parse-pool.js";
import { parseWorkerCount } from "../../src/recipes/parse-threads.js";
import { parsePack, type PackRecord } from "../../src/recipes/parsed-pack.js";
import type { SkillDirReading } from "../../src/skills/discover.js";

const built = path.resolve(import.meta.dirname, "../../dist/recipes/parse-pool.js");
const haveBuild = existsSync(built);
if (!haveBuild) console.warn(`parse-pool worker tests skipped: ${built} is missing (run npm run build)`);

const pack = (n: number): string =>
  `recipes:\n  - name: r${n}\n    description: recipe ${n}\n    inputs_schema: { type: object, properties: { x: { type: number, minimum: ${n} } } }\n    steps: [{ tool: t${n} }]\n` +
  (n % 5 === 0 ? "  - name: broken\n    inputs_schema: { $dynamicRef: '#x' }\n" : "");

/** A record with its byte arrays as plain arrays: a thread hop may hand back another typed array. */
const parsed = (record: PackRecord): unknown => ({ ...record, body: [...record.body], bodyOffsets: [...record.bodyOffsets], text: [...record.text] });

/** A file's outcome from the pool equals parsing it in place: same key and record, or the same failure. */
function expectSameAs(outcome: PackFileResult, reference: PackFileResult): void {
  if (outcome.kind !== "parsed" || reference.kind !== "parsed") {
    expect(outcome).toEqual(reference);
    return;
  }
  expect(outcome.key).toBe(reference.key);
  expect(parsed(outcome.record)).toEqual(parsed(reference.record));
}

describe("parse pool (TypeScript module)", () => {
  it("starts no worker where it cannot run one, and parses in the calling thread", async () => {
    expect(parseWorkerCount()).toBe(0);
    expect(createPackParser(0)).toBe(inlineParser);
    expect(await inlineParser.parse(pack(1), "p.yaml")).toEqual(parsePack(pack(1), "p.yaml"));
  });
});

describe.skipIf(!haveBuild)("parse pool (built, with worker threads)", () => {
  it("gives exactly what parsing in the calling thread gives, for 200 packs in flight at once", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const parsed = (await import(pathToFileURL(path.resolve(built, "../parsed-pack.js")).href)) as typeof import("../../src/recipes/parsed-pack.js");
    const parser = mod.createPackParser(2);
    try {
      const texts = Array.from({ length: 200 }, (_, i) => pack(i));
      const records = await Promise.all(texts.map((t, i) => parser.parse(t, `p${i}.yaml`)));
      records.forEach((record, i) => {
        const reference = parsed.parsePack(texts[i]!, `p${i}.yaml`);
        // Bytes compare as bytes whatever typed array a thread hop hands back.
        expect({ ...record, body: [...record.body], bodyOffsets: [...record.bodyOffsets], text: [...record.text] }).toEqual({
          ...reference,
          body: [...reference.body],
          bodyOffsets: [...reference.bodyOffsets],
          text: [...reference.text],
        });
        expect(parsed.readPackPart(record, 1)["name"]).toBe(`r${i}`);
      });
      expect(records.filter((r) => r.entries.some((e) => e.verdicts.input?.code === "dynamic_ref_unsupported")).length).toBe(40);
    } finally {
      await parser.close();
    }
  });

  it("reads, keys and parses files on the worker exactly as the calling thread does, failures included", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const packFile = (await import(pathToFileURL(path.resolve(built, "../pack-file.js")).href)) as typeof import("../../src/recipes/pack-file.js");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pool-files-"));
    const parser = mod.createPackParser(1);
    try {
      const names: string[] = [];
      for (let i = 0; i < 40; i++) {
        names.push(`p${i}.yaml`);
        await fs.writeFile(path.join(dir, `p${i}.yaml`), i === 7 ? Buffer.from([0xc3, 0x28]) : pack(i));
      }
      names.push("missing.yaml");
      await fs.mkdir(path.join(dir, "dir.yaml"));
      names.push("dir.yaml");
      parser.prestart();
      const outcomes = await Promise.all(names.map((n) => parser.parseFile(path.join(dir, n), n, "fp")));
      outcomes.forEach((outcome, i) => expectSameAs(outcome, packFile.parsePackFile(path.join(dir, names[i]!), names[i]!, "fp")));
      expect(outcomes.map((o) => o.kind).filter((k) => k !== "parsed")).toEqual(["not_utf8", "unreadable", "unreadable"]);
      await parser.close();
      // Once closed, the calling thread does the same work.
      expect((await parser.parseFile(path.join(dir, "p1.yaml"), "p1.yaml", "fp")).kind).toBe("parsed");
    } finally {
      await parser.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("reads skill directories on the worker exactly as the calling thread does, bad ones included", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const discover = (await import(pathToFileURL(path.resolve(built, "../../skills/discover.js")).href)) as typeof import("../../src/skills/discover.js");
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "pool-skills-"));
    const parser = mod.createPackParser(1);
    const skillMd = (name: string): string => `---\nname: ${name}\ndescription: the ${name} skill\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: RECIPES.yaml\n    tags: [a, b]\n---\n# ${name}\n`;
    const bad: Record<string, string | Buffer> = {
      not_utf8: Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xc3, 0x28]),
      no_frontmatter: "# just a heading\n",
      broken_yaml: "---\nname: [unclosed\n---\n",
      reserved: skillMd("private"),
      slash: skillMd("a/b"),
      // Valid, but for another DCC: its recipe paths are not resolved for this load.
      houdini: skillMd("houdini_one").replace("dcc: maya", "dcc: houdini"),
      too_large: `---\nname: big\n---\n${"x".repeat(1024 * 1024)}`,
    };
    try {
      const dirs: { dir: string; root: string; rootIndex: number }[] = [];
      for (let i = 0; i < 150; i++) {
        const dir = path.join(root, `s${i}`);
        await fs.mkdir(dir);
        await fs.writeFile(path.join(dir, "SKILL.md"), skillMd(`s${i}`));
        if (i % 2 === 0) await fs.writeFile(path.join(dir, "RECIPES.yaml"), "recipes: []\n");
        dirs.push({ dir, root, rootIndex: 0 });
      }
      for (const [name, content] of Object.entries(bad)) {
        const dir = path.join(root, name);
        await fs.mkdir(dir);
        await fs.writeFile(path.join(dir, "SKILL.md"), content);
        dirs.push({ dir, root, rootIndex: 0 });
      }
      await fs.mkdir(path.join(root, "missing"));
      dirs.push({ dir: path.join(root, "missing"), root, rootIndex: 0 });
      parser.prestart();
      // Nobody else claims here: the worker reads every batch, each sent as it is read.
      const got = new Map<number, SkillDirReading>();
      let batches = 0;
      await parser.shareSkillDirReads({
        dirs,
        dcc: "maya",
        claims: new SharedArrayBuffer(4),
        batch: 16,
        onBatch: (from, rs) => {
          batches++;
          rs.forEach((r, i) => got.set(from + i, r));
        },
      });
      expect(batches).toBe(Math.ceil(dirs.length / 16));
      const readings = dirs.map((_, i) => got.get(i)!);
      expect(readings).toEqual(await discover.readSkillDirs(dirs, "maya"));
      // Frozen as the calling thread's are: skills, and every diagnostic.
      const diagnostics = readings.flatMap((r) => [...r.result.diagnostics, ...(r.paths?.diagnostics ?? [])]);
      expect(diagnostics.length).toBeGreaterThan(80);
      expect(diagnostics.every((d) => Object.isFrozen(d))).toBe(true);
      const results = readings.map((r) => r.result);
      expect(results.filter((r) => r.skill !== null).every((r) => Object.isFrozen(r.skill) && Object.isFrozen(r.skill!.tags))).toBe(true);
      // Each valid skill's recipe path, resolved there too.
      expect(readings[4]!.paths).toEqual({ files: [path.join(root, "s4", "RECIPES.yaml")], diagnostics: [] });
      expect(readings[3]!.paths!.diagnostics.map((d) => d.code)).toEqual(["recipe_path_missing"]);
      expect(readings.slice(150).map((r) => r.paths)).toEqual(Array(8).fill(null));
      expect(results.slice(150).map((r) => [r.skill?.name ?? null, r.diagnostics.at(-1)?.code])).toEqual([
        [null, "not_utf8"],
        [null, expect.any(String)],
        [null, expect.any(String)],
        [null, "reserved_skill_name"],
        [null, "invalid_skill_name"],
        ["houdini_one", undefined],
        [null, "file_too_large"],
        [null, "file_unreadable"],
      ]);
    } finally {
      await parser.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it("shares a cold load's skill directories between a real worker and the calling thread, each read once", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const shared = (await import(pathToFileURL(path.resolve(built, "../shared-reads.js")).href)) as typeof import("../../src/recipes/shared-reads.js");
    const discover = (await import(pathToFileURL(path.resolve(built, "../../skills/discover.js")).href)) as typeof import("../../src/skills/discover.js");
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "pool-shared-"));
    const parser = mod.createPackParser(1);
    try {
      const dirs: { dir: string; root: string; rootIndex: number }[] = [];
      for (let i = 0; i < 600; i++) {
        const dir = path.join(root, `s${i}`);
        await fs.mkdir(dir);
        await fs.writeFile(path.join(dir, "SKILL.md"), `---\nname: s${i}\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: R.yaml\n---\n`);
        await fs.writeFile(path.join(dir, "R.yaml"), "recipes: []\n");
        dirs.push({ dir, root, rootIndex: 0 });
      }
      parser.prestart();
      const got = new Map<number, SkillDirReading>();
      let twice = 0;
      await shared.readSkillDirsShared(dirs, "maya", parser, (i, reading) => {
        if (got.has(i)) twice++;
        got.set(i, reading);
      });
      expect(twice).toBe(0);
      expect(dirs.map((_, i) => got.get(i))).toEqual(await discover.readSkillDirs(dirs, "maya"));
    } finally {
      await parser.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  /** Skills with a YAML pack each (a few broken), some with a Markdown file too, and one skill for another DCC. */
  async function preparseTree(root: string): Promise<{ dirs: { dir: string; root: string; rootIndex: number }[]; packs: { abs: string; file: string }[] }> {
    const dirs: { dir: string; root: string; rootIndex: number }[] = [];
    const packs: { abs: string; file: string }[] = [];
    for (let i = 0; i < 120; i++) {
      const dir = path.join(root, `s${i}`);
      await fs.mkdir(path.join(dir, "recipes"), { recursive: true });
      const dcc = i === 5 ? "houdini" : "maya";
      await fs.writeFile(path.join(dir, "SKILL.md"), `---\nname: s${i}\nmetadata:\n  dcc-mcp:\n    dcc: ${dcc}\n    recipes: "recipes/*"\n---\n`);
      await fs.writeFile(path.join(dir, "recipes", "p.yaml"), i === 7 ? Buffer.from([0xc3, 0x28]) : i === 9 ? "recipes: [unclosed\n" : pack(i));
      if (i % 3 === 0) await fs.writeFile(path.join(dir, "recipes", "notes.md"), `## r${i}\nA Markdown recipe.\n`);
      if (dcc === "maya") packs.push({ abs: path.join(dir, "recipes", "p.yaml"), file: "recipes/p.yaml" });
      dirs.push({ dir, root, rootIndex: 0 });
    }
    return { dirs, packs };
  }

  async function readOnWorker(parser: import("../../src/recipes/parse-pool.js").PackParser, dirs: { dir: string; root: string; rootIndex: number }[]): Promise<void> {
    await parser.shareSkillDirReads({ dirs, dcc: "maya", claims: new SharedArrayBuffer(4), batch: 16, onBatch: () => undefined, preparseFingerprint: "fp" });
  }

  it("preparses the packs of the directories a worker read, and parseFile takes them as the worker would have parsed them asked", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const packFile = (await import(pathToFileURL(path.resolve(built, "../pack-file.js")).href)) as typeof import("../../src/recipes/pack-file.js");
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "pool-preparse-"));
    const parser = mod.createPackParser(1);
    try {
      const { dirs, packs } = await preparseTree(root);
      parser.prestart();
      // Nobody else claims here: the worker reads every directory, so it preparses every pack.
      await readOnWorker(parser, dirs);
      // The last pack first, before it is back; the worker answers in order,
      // so once it is here every other pack has come back unasked.
      const lastPack = packs[packs.length - 1]!;
      const last = await parser.parseFile(lastPack.abs, lastPack.file, "fp");
      const outcomes = [...(await Promise.all(packs.slice(0, -1).map((p) => parser.parseFile(p.abs, p.file, "fp")))), last];
      packs.forEach((p, i) => expectSameAs(outcomes[i]!, packFile.parsePackFile(p.abs, p.file, "fp")));
      expect(outcomes.filter((o) => o.kind !== "parsed").map((o) => o.kind)).toEqual(["not_utf8"]);
      expect(outcomes.filter((o) => o.kind === "parsed" && !o.record.ok).length).toBe(1);
      const taken = parser.preparsed();
      expect(taken).toBe(packs.length);
      // Neither a Markdown file nor the other DCC's pack was preparsed: asked for, each is parsed as asked.
      await parser.parseFile(path.join(root, "s0", "recipes", "notes.md"), "recipes/notes.md", "fp");
      await parser.parseFile(path.join(root, "s5", "recipes", "p.yaml"), "recipes/p.yaml", "fp");
      expect(parser.preparsed()).toBe(taken);
      // Each preparsed pack is taken once; asked again, the pack is parsed afresh.
      const again = await parser.parseFile(packs[0]!.abs, packs[0]!.file, "fp");
      expect(again.kind === "parsed" && again.key).toBe((packFile.parsePackFile(packs[0]!.abs, packs[0]!.file, "fp") as { key: string }).key);
      expect(parser.preparsed()).toBe(taken);
    } finally {
      await parser.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it("takes a preparsed pack only for the cache key and skill-relative name it was parsed with", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const packFile = (await import(pathToFileURL(path.resolve(built, "../pack-file.js")).href)) as typeof import("../../src/recipes/pack-file.js");
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "pool-preparse-key-"));
    const parser = mod.createPackParser(1);
    try {
      const { dirs, packs } = await preparseTree(root);
      parser.prestart();
      await readOnWorker(parser, dirs);
      const [a, b] = [packs[0]!, packs[1]!];
      const otherKey = await parser.parseFile(a.abs, a.file, "another build");
      expect(otherKey.kind === "parsed" && otherKey.key).toBe((packFile.parsePackFile(a.abs, a.file, "another build") as { key: string }).key);
      const otherName = await parser.parseFile(b.abs, "p.yaml", "fp");
      expect(otherName.kind === "parsed" && otherName.record.diagnostics).toEqual((packFile.parsePackFile(b.abs, "p.yaml", "fp") as { record: PackRecord }).record.diagnostics);
      expect(otherName.kind === "parsed" && otherName.key).toBe((packFile.parsePackFile(b.abs, "p.yaml", "fp") as { key: string }).key);
      expect(parser.preparsed()).toBe(0);
    } finally {
      await parser.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it("parses a stopped worker's preparsed packs in the calling thread, asked before or after it stopped", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const threads = (await import(pathToFileURL(path.resolve(built, "../parse-threads.js")).href)) as typeof import("../../src/recipes/parse-threads.js");
    const packFile = (await import(pathToFileURL(path.resolve(built, "../pack-file.js")).href)) as typeof import("../../src/recipes/pack-file.js");
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "pool-preparse-stop-"));
    const worker = threads.spawnParseWorker();
    const warnings: string[] = [];
    const parser = mod.createPackParser(1, { supply: { take: () => worker, release: () => Promise.resolve() }, logger: { warn: (_, msg) => warnings.push(msg) } });
    try {
      const { dirs, packs } = await preparseTree(root);
      parser.prestart();
      await readOnWorker(parser, dirs);
      // Half asked while the worker runs (waiting on it, or already back), then it stops, then the rest are asked.
      const half = Math.floor(packs.length / 2);
      const first = packs.slice(0, half).map((p) => parser.parseFile(p.abs, p.file, "fp"));
      await worker.terminate();
      const rest = packs.slice(half).map((p) => parser.parseFile(p.abs, p.file, "fp"));
      // Only parses the worker sent before it stopped count; every pack still comes back.
      expect(parser.preparsed()).toBeLessThanOrEqual(half);
      const outcomes = await Promise.all([...first, ...rest]);
      packs.forEach((p, i) => expectSameAs(outcomes[i]!, packFile.parsePackFile(p.abs, p.file, "fp")));
      expect(warnings).toEqual(["parse worker stopped; parsing continues without it"]);
    } finally {
      await parser.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it("parses in the calling thread once closed, and closes without a parse having started a worker", async () => {
    const mod = (await import(pathToFileURL(built).href)) as typeof import("../../src/recipes/parse-pool.js");
    const untouched = mod.createPackParser(2);
    await untouched.close();
    const parser = mod.createPackParser(1);
    await parser.parse(pack(1), "a.yaml");
    await parser.close();
    const after = await parser.parse(pack(2), "b.yaml");
    expect(after.entries[0]!.name).toBe("r2");
  });
});
