/**
 * The Skills extension provider over a real library on temp dirs: manifests
 * describe exactly the bytes served, only files inside a served skill
 * directory are served (after following links), never a refused one, and
 * manifests follow the disk and hot reload.
 */
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_PARAMS } from "../../../../src/server/protocol/outcome.js";
import { createSkillsProvider, type Skill, type SkillsProvider } from "../../../../src/server/protocol/skills-extension/provider.js";
import { libraryFixture, skillMd, type LibraryFixture } from "../surfaces/library-fixture.js";

let fx: LibraryFixture;
let outside = "";
const leftOut: string[] = [];
let provider: SkillsProvider;

const PACK = "recipes:\n  - name: bevel\n    steps: [{tool: maya_run}]\n";

beforeAll(async () => {
  fx = await libraryFixture({
    "rigging/SKILL.md": skillMd("rigging", ["pack.yaml", "bad.yaml", "big.yaml"], "    tags: [rig, skin]\n  author: td\n"),
    "rigging/pack.yaml": PACK,
    "rigging/bad.yaml": "recipes: [unclosed\n",
    "rigging/big.yaml": `recipes: []\n#${"x".repeat(1024 * 1024)}\n`,
    "rigging/references/GUIDE.md": "\ufeff# Guide with a BOM\r\nCRLF kept\r\n",
    "rigging/references/Q&A ü.md": "odd name\n",
    "rigging/scripts/tool.py": "print('hi')\n",
    "rigging/assets/icon.bin": Buffer.from([0, 159, 146, 150, 255]),
    "rigging/.hidden": "never served",
    "rigging/node_modules/x/index.js": "never served",
    "rigging/huge.txt": Buffer.alloc(1024 * 1024 + 1, 97),
    "Bad_Name/SKILL.md": skillMd("Bad_Name", "R.md"),
    "Bad_Name/R.md": "## A\n\nB.\n",
    "crowded/SKILL.md": skillMd("crowded", "R.md"),
    "crowded/R.md": "## A\n\nB.\n",
    "heavy/SKILL.md": skillMd("heavy", "R.md"),
    "heavy/R.md": "## A\n\nB.\n",
  });
  // 17 files of 1 MiB each: every one within the file limit, together over the 16 MiB a skill may hold.
  await fx.write(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`heavy/blobs/b${i}.bin`, Buffer.alloc(1024 * 1024, i)])));
  // 512 files plus SKILL.md: one over the extension's per-skill limit.
  await fx.write(Object.fromEntries(Array.from({ length: 512 }, (_, i) => [`crowded/files/f${i}.txt`, `${i}\n`])));
  outside = path.join(fx.tmp, "outside");
  await fs.mkdir(outside, { recursive: true });
  await fs.writeFile(path.join(outside, "secret.txt"), "host secret\n");
  const rig = path.join(fx.root, "rigging");
  await fs.symlink(path.join(outside, "secret.txt"), path.join(rig, "escape.txt"));
  await fs.symlink(outside, path.join(rig, "escape-dir"));
  await fs.symlink(path.join(rig, "scripts", "tool.py"), path.join(rig, "alias.py"));
  await fs.symlink(rig, path.join(rig, "scripts", "loop"));
  await fx.reload();
  provider = createSkillsProvider({ source: fx.library, pageSize: 1, onLeftOut: (skill, reason) => leftOut.push(`${skill}: ${reason}`) });
});
afterAll(async () => fx.close());

async function listAll(p: SkillsProvider = provider): Promise<Skill[]> {
  const skills: Skill[] = [];
  let cursor: string | undefined;
  do {
    const page = await p.list(cursor === undefined ? {} : { cursor });
    if (!page.ok) throw new Error(page.error.message);
    skills.push(...page.result.skills);
    cursor = page.result.nextCursor;
  } while (cursor !== undefined);
  return skills;
}

async function bytesOf(uri: string): Promise<Buffer> {
  const read = await provider.read({ uri });
  if (!read.ok) throw new Error(`${uri}: ${read.error.message}`);
  const content = read.result.contents[0]!;
  return "text" in content ? Buffer.from(content.text, "utf8") : Buffer.from(content.blob, "base64");
}

function sha(bytes: Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

describe("skills/list", () => {
  it("serves the conforming skills, says why the others are left out", async () => {
    const skills = await listAll();
    expect(skills.map((s) => s.uri)).toEqual(["skill://rigging/SKILL.md"]);
    expect(leftOut.some((l) => l.startsWith("Bad_Name: its name is not an Agent Skills name"))).toBe(true);
    expect(leftOut.some((l) => l.startsWith("crowded: it has more files"))).toBe(true);
    expect(leftOut.some((l) => l.startsWith("heavy: its files are over"))).toBe(true);
  });

  it("publishes the flattened frontmatter", async () => {
    const [rigging] = await listAll();
    expect(rigging!.frontmatter).toEqual({
      name: "rigging",
      description: "rigging test skill",
      metadata: { "dcc-mcp.dcc": "maya", "dcc-mcp.recipes": '["pack.yaml","bad.yaml","big.yaml"]', "dcc-mcp.tags": '["rig","skin"]', author: "td" },
    });
  });

  it("lists exactly the files served, each with the size and digest of the bytes resources/read returns", async () => {
    const [rigging] = await listAll();
    const uris = rigging!.resources.map((r) => r.uri);
    expect(uris).toEqual([
      "skill://rigging/SKILL.md",
      "skill://rigging/alias.py",
      "skill://rigging/assets/icon.bin",
      "skill://rigging/pack.yaml",
      "skill://rigging/references/GUIDE.md",
      "skill://rigging/references/Q&A%20%C3%BC.md",
      "skill://rigging/scripts/tool.py",
    ]);
    for (const resource of rigging!.resources) {
      const bytes = await bytesOf(resource.uri);
      expect(resource.size).toBe(bytes.length);
      expect(resource.digest).toBe(sha(bytes));
    }
  });

  it("keeps every file but SKILL.md byte for byte (BOM, CRLF, binary)", async () => {
    expect(await bytesOf("skill://rigging/references/GUIDE.md")).toEqual(await fs.readFile(path.join(fx.root, "rigging/references/GUIDE.md")));
    const binary = await provider.read({ uri: "skill://rigging/assets/icon.bin" });
    expect(binary.ok && "blob" in binary.result.contents[0]! && binary.result.contents[0]!.mimeType).toBe("application/octet-stream");
    expect(await bytesOf("skill://rigging/assets/icon.bin")).toEqual(Buffer.from([0, 159, 146, 150, 255]));
  });

  it("answers an invalid cursor with -32602", async () => {
    const page = await provider.list({ cursor: "garbage!" });
    expect(!page.ok && page.error.code).toBe(INVALID_PARAMS);
  });
});

describe("resources/read of skill files", () => {
  it.each([
    ["a symlink out of the skill", "skill://rigging/escape.txt"],
    ["a file under a symlinked directory out of the skill", "skill://rigging/escape-dir/secret.txt"],
    ["a malformed pack the loader refused", "skill://rigging/bad.yaml"],
    ["a pack over the recipe file limit", "skill://rigging/big.yaml"],
    ["a file over 1 MiB", "skill://rigging/huge.txt"],
    ["a hidden file", "skill://rigging/.hidden"],
    ["node_modules", "skill://rigging/node_modules/x/index.js"],
    ["a dot-dot path", "skill://rigging/../Bad_Name/R.md"],
    ["an encoded dot-dot", "skill://rigging/%2E%2E/Bad_Name/R.md"],
    ["an encoded slash", "skill://rigging/references%2FGUIDE.md"],
    ["a skill not served", "skill://Bad_Name/R.md"],
    ["a skill over the limits", "skill://crowded/R.md"],
    ["a query", "skill://rigging/pack.yaml?x=1"],
    ["another scheme", "file:///etc/passwd"],
  ])("refuses %s", async (_what, uri) => {
    const read = await provider.read({ uri });
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.error.code).toBe(INVALID_PARAMS);
      expect(JSON.stringify(read.error)).not.toContain(fx.tmp);
    }
  });

  it("finds a file however its name is percent-encoded", async () => {
    expect((await bytesOf("skill://rigging/references/Q%26A%20%C3%BC.md")).toString()).toBe("odd name\n");
  });

  it("serves the generated SKILL.md and says a directory is one", async () => {
    expect((await bytesOf("skill://rigging/SKILL.md")).toString()).toMatch(/^---\nname: rigging\n/);
    const dir = await provider.read({ uri: "skill://rigging/references" });
    expect(!dir.ok && dir.error.message).toContain("resources/directory/read");
  });
});

describe("skills/get and resources/directory/read", () => {
  it("gets a served skill by its SKILL.md URI, -32602 otherwise", async () => {
    const got = await provider.get({ uri: "skill://rigging/SKILL.md" });
    expect(got.ok && got.result.skill.uri).toBe("skill://rigging/SKILL.md");
    for (const uri of ["skill://rigging", "skill://nope/SKILL.md", "skill://crowded/SKILL.md", "skill://rigging/pack.yaml", 42]) {
      const answer = await provider.get({ uri });
      expect(!answer.ok && answer.error.code).toBe(INVALID_PARAMS);
    }
  });

  it("lists a directory's direct children, pages included", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await provider.readDirectory(cursor === undefined ? { uri: "skill://rigging" } : { uri: "skill://rigging", cursor });
      if (!page.ok) throw new Error(page.error.message);
      seen.push(...page.result.resources.map((r) => `${r.name}:${r.mimeType}`));
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual([
      "SKILL.md:text/markdown",
      "alias.py:text/x-python",
      "assets:inode/directory",
      "pack.yaml:application/yaml",
      "references:inode/directory",
      "scripts:inode/directory",
    ]);
    const refs = await createSkillsProvider({ source: fx.library }).readDirectory({ uri: "skill://rigging/references" });
    expect(refs.ok && refs.result.resources.map((r) => r.name)).toEqual(["GUIDE.md", "Q&A ü.md"]);
    for (const uri of ["skill://rigging/pack.yaml", "skill://rigging/escape-dir", "skill://nope"]) {
      const answer = await provider.readDirectory({ uri });
      expect(!answer.ok && answer.error.code).toBe(INVALID_PARAMS);
    }
  });
});

describe("manifests follow the disk and hot reload", () => {
  it("regression: skills/list and skills/get hash a file once per change, not once per call (was every file on every call)", async () => {
    const hashed: string[] = [];
    const counting = createSkillsProvider({ source: fx.library, onHashed: (skill, file) => hashed.push(`${skill}/${file}`) });
    const first = (await counting.list()).ok ? hashed.length : -1;
    expect(first).toBeGreaterThan(0);
    await Promise.all(Array.from({ length: 8 }, () => counting.list()));
    await counting.get({ uri: "skill://rigging/SKILL.md" });
    expect(hashed).toHaveLength(first);
    await fx.write({ "rigging/scripts/tool.py": "print('changed again')\n" });
    const after = await counting.get({ uri: "skill://rigging/SKILL.md" });
    // alias.py is a link to tool.py: the same changed bytes, hashed for each path once.
    expect(hashed.slice(first).sort()).toEqual(["rigging/alias.py", "rigging/scripts/tool.py"]);
    const tool = after.ok ? after.result.skill.resources.find((r) => r.uri === "skill://rigging/scripts/tool.py") : undefined;
    expect(tool?.digest).toBe(sha(Buffer.from("print('changed again')\n")));
  });

  it("changes a digest when a served file changes, and lists a new file", async () => {
    const before = (await listAll())[0]!;
    await fx.write({ "rigging/scripts/tool.py": "print('changed')\n", "rigging/scripts/new.py": "pass\n" });
    const after = (await listAll())[0]!;
    const digest = (s: Skill, uri: string) => s.resources.find((r) => r.uri === uri)?.digest;
    expect(digest(after, "skill://rigging/scripts/tool.py")).not.toBe(digest(before, "skill://rigging/scripts/tool.py"));
    expect(digest(after, "skill://rigging/scripts/new.py")).toBe(sha(Buffer.from("pass\n")));
  });

  it("publishes a changed SKILL.md once the catalog reloads", async () => {
    await fx.write({ "rigging/SKILL.md": skillMd("rigging", ["pack.yaml"]).replace("rigging test skill", "now about skinning") });
    await fx.reload();
    const after = (await listAll())[0]!;
    expect(after.frontmatter["description"]).toBe("now about skinning");
    const skillMdEntry = after.resources.find((r) => r.uri === "skill://rigging/SKILL.md")!;
    expect(skillMdEntry.digest).toBe(sha(await bytesOf("skill://rigging/SKILL.md")));
    // bad.yaml is no longer a recipe file: nothing refused it now, so it is a plain skill file.
    expect(after.resources.map((r) => r.uri)).toContain("skill://rigging/bad.yaml");
  });

  it("is empty before the catalog loads", async () => {
    const empty = createSkillsProvider({ source: { current: () => null } });
    expect(await empty.list({})).toEqual({ ok: true, result: { skills: [] } });
    expect(empty.listResources()).toEqual([]);
  });
});
