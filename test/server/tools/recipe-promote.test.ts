/**
 * `recipe` action=promote on a real library: offered only when allowed, the
 * caller's own playbook written into a named skill of the skill roots, and
 * every other target refused without a host path in the answer.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { RecipeLibrary } from "../../../src/recipes/catalog/library.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";
import type { RecipeToolContext } from "../../../src/server/tools/context.js";
import { createArgs, makeFixture, type Answer, type Fixture } from "./recipe-fixture.js";

const RIG_SKILL = `---
name: rig
description: Rigging helpers
metadata:
  dcc-mcp:
    dcc: maya
    recipes: ["recipes/*.md", "recipes/*.yaml"]
---
# rig
`;

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** The fixture with a second skill, `rig`, whose glob takes new files (and `extra` skill dirs written first). */
async function withRig(options: { allowPromote?: boolean; extra?: (skills: string, tmp: string) => Promise<void> } = {}): Promise<Fixture> {
  fixture = await makeFixture({ load: false, allowPromote: options.allowPromote ?? true });
  const skills = path.join(fixture.tmp, "skills");
  await fs.mkdir(path.join(skills, "rig", "recipes"), { recursive: true });
  await fs.writeFile(path.join(skills, "rig", "SKILL.md"), RIG_SKILL);
  await fs.writeFile(path.join(skills, "rig", "recipes", "bind.md"), "## Bind skin\n\nBind the mesh to the skeleton.\n");
  await options.extra?.(skills, fixture.tmp);
  await fixture.library.load();
  return fixture;
}

async function created(f: Fixture, overrides: Record<string, unknown> = {}): Promise<string> {
  const answer = await f.call(createArgs(overrides));
  expect(answer.success, answer.message).toBe(true);
  return answer.context.recipeId as string;
}

/** No host path of the fixture (nor the temp dir) appears anywhere in the answer. */
function expectNoHostPaths(answer: Answer, f: Fixture): void {
  const text = answer.result.content.map((c) => c.text).join("\n");
  expect(text).not.toContain(f.tmp);
  expect(text).not.toContain(os.tmpdir());
}

describe("recipe action=promote: offered only with --allow-promote", () => {
  it("is neither listed nor described by default, and a call is invalid_input naming the action", async () => {
    const f = await withRig({ allowPromote: false });
    const [tool] = f.registry.list();
    const schema = tool!.inputSchema as { properties: { action: { enum: string[]; description: string } } };
    expect(schema.properties.action.enum).not.toContain("promote");
    expect(schema.properties.action.description).not.toContain("promote");
    expect(tool!.description).not.toContain("action=promote");
    const id = await created(f);
    const answer = await f.call({ action: "promote", recipeId: id, skill: "rig" });
    expect(answer.error).toBe("invalid_input");
    expect(answer.message).toContain("$.action");
    await expect(fs.readdir(path.join(f.tmp, "skills", "rig", "recipes"))).resolves.toEqual(["bind.md"]);
  });

  it("is listed and described with its fields when allowed", async () => {
    const f = await withRig();
    const [tool] = f.registry.list();
    const schema = tool!.inputSchema as { properties: { action: { enum: string[] } } };
    expect(schema.properties.action.enum).toEqual(["search", "get", "create", "update", "history", "restore", "delete", "promote"]);
    expect(tool!.description).toContain("action=promote");
    expect(tool!.description).toMatch(/skill \(required, ≤200 chars\)/);
  });
});

describe("recipe action=promote: writes the caller's playbook into a skill", () => {
  it("writes a Markdown recipe with its provenance, answering skill-relative names only", async () => {
    const f = await withRig();
    const id = await created(f);
    const answer = await f.call({ action: "promote", recipeId: id, skill: "rig" });
    expect(answer.success, answer.message).toBe(true);
    expect(answer.context).toEqual({
      recipeId: id,
      revision: 1,
      promotedTo: "rig/Retopologize a scanned head",
      skill: "rig",
      file: "rig/recipes/retopologize-a-scanned-head.md",
      format: "markdown",
    });
    expectNoHostPaths(answer, f);
    const text = await fs.readFile(path.join(f.tmp, "skills", "rig", "recipes", "retopologize-a-scanned-head.md"), "utf8");
    expect(text).toMatch(/^## Retopologize a scanned head\n/);
    expect(text).toContain("<!-- promoted from private/retopologize-a-scanned-head revision 1 -->");
  });

  it("promotes an earlier revision when asked", async () => {
    const f = await withRig();
    const id = await created(f);
    const updated = await f.call({ action: "update", recipeId: id, summary: "A newer summary, revision two." });
    expect(updated.success, updated.message).toBe(true);
    const answer = await f.call({ action: "promote", recipeId: id, skill: "rig", revision: 1 });
    expect(answer.success, answer.message).toBe(true);
    expect(answer.context.revision).toBe(1);
    const text = await fs.readFile(path.join(f.tmp, "skills", "rig", "recipes", "retopologize-a-scanned-head.md"), "utf8");
    expect(text).not.toContain("revision two");
    const missing = await f.call({ action: "promote", recipeId: id, skill: "rig", revision: 9 });
    expect(missing.error).toBe("not_found");
  });

  it("refuses a second promote of the same playbook as a conflict and leaves the file as it was", async () => {
    const f = await withRig();
    const id = await created(f);
    expect((await f.call({ action: "promote", recipeId: id, skill: "rig" })).success).toBe(true);
    const file = path.join(f.tmp, "skills", "rig", "recipes", "retopologize-a-scanned-head.md");
    const before = await fs.readFile(file, "utf8");
    await f.call({ action: "update", recipeId: id, summary: "Changed after the promotion." });
    const again = await f.call({ action: "promote", recipeId: id, skill: "rig" });
    expect(again.error).toBe("conflict");
    expectNoHostPaths(again, f);
    expect(await fs.readFile(file, "utf8")).toBe(before);
  });

  it("concurrent promotes of one playbook: one wins, the others are conflicts, nothing is overwritten", async () => {
    const f = await withRig();
    const id = await created(f);
    const answers = await Promise.all(Array.from({ length: 6 }, () => f.call({ action: "promote", recipeId: id, skill: "rig" })));
    expect(answers.filter((a) => a.success)).toHaveLength(1);
    for (const loser of answers.filter((a) => !a.success)) {
      expect(loser.error, loser.message).toBe("conflict");
      expectNoHostPaths(loser, f);
    }
    const files = (await fs.readdir(path.join(f.tmp, "skills", "rig", "recipes"))).sort();
    expect(files).toEqual(["bind.md", "retopologize-a-scanned-head.md"]);
  });

  it("concurrent promotes of two playbooks of one title into one skill: one recipe of that name", async () => {
    const f = await withRig();
    const a = await created(f);
    const b = await created(f, { summary: "Another playbook with the same title." });
    expect(a).not.toBe(b);
    const answers = await Promise.all([a, b].map((recipeId) => f.call({ action: "promote", recipeId, skill: "rig" })));
    expect(answers.filter((x) => x.success)).toHaveLength(1);
    const loser = answers.find((x) => !x.success)!;
    expect(loser.error).toBe("conflict");
    expect(loser.message).toMatch(/already has a recipe "Retopologize a scanned head"/);
  });
});

describe("recipe action=promote: hostile and mistaken targets", () => {
  it("a path, a parent reference or an unknown name is never a skill", async () => {
    const f = await withRig();
    const id = await created(f);
    for (const skill of ["../rig", "/etc", path.join(f.tmp, "skills", "rig"), "rig/recipes", "rig\\..\\modeling"]) {
      const answer = await f.call({ action: "promote", recipeId: id, skill });
      expect(answer.error, skill).toBe("invalid_input");
      expect(answer.message).toContain("$.skill");
      expectNoHostPaths(answer, f);
    }
    for (const skill of ["..", ".", "rigg", "x".repeat(200)]) {
      const answer = await f.call({ action: "promote", recipeId: id, skill });
      expect(answer.error, skill).toBe("not_found");
      expectNoHostPaths(answer, f);
    }
    expect((await f.call({ action: "promote", recipeId: id, skill: "rigg" })).context.suggestions).toEqual(["rig"]);
    const long = await f.call({ action: "promote", recipeId: id, skill: "x".repeat(201) });
    expect(long.error).toBe("invalid_input");
    await expect(fs.readdir(path.join(f.tmp, "skills", "rig", "recipes"))).resolves.toEqual(["bind.md"]);
  });

  it("refuses a skill whose directory is a symlink leading out of the skill roots, naming no path", async () => {
    const f = await withRig({
      extra: async (skills, tmp) => {
        const outside = path.join(tmp, "outside", "escape");
        await fs.mkdir(path.join(outside, "recipes"), { recursive: true });
        await fs.writeFile(path.join(outside, "SKILL.md"), RIG_SKILL.replace("name: rig", "name: escape"));
        await fs.symlink(outside, path.join(skills, "escape"));
      },
    });
    expect(f.library.current()!.skills.has("escape")).toBe(true);
    const id = await created(f);
    const answer = await f.call({ action: "promote", recipeId: id, skill: "escape" });
    expect(answer.error).toBe("invalid_input");
    expect(answer.message).toMatch(/not inside one of the maya skill roots/);
    expectNoHostPaths(answer, f);
    await expect(fs.readdir(path.join(f.tmp, "outside", "escape", "recipes"))).resolves.toEqual([]);
  });

  it("refuses a skill whose globs take no new file, and a skill of another DCC, naming skills only", async () => {
    const f = await withRig();
    const id = await created(f);
    const literal = await f.call({ action: "promote", recipeId: id, skill: "modeling" });
    expect(literal.error).toBe("invalid_input");
    expect(literal.message).toMatch(/skill modeling's metadata\.dcc-mcp\.recipes "RECIPES\.md", "pack\.yaml" takes no new Markdown file/);
    expectNoHostPaths(literal, f);
  });

  it("a public recipe is not promoted; a missing, malformed or other user's playbook is not_found", async () => {
    const f = await withRig();
    const id = await created(f);
    const pub = await f.call({ action: "promote", recipeId: "rig/Bind skin", skill: "rig" });
    expect(pub.error).toBe("invalid_input");
    expect(pub.message).toMatch(/already a public skill recipe/);
    for (const recipeId of ["private/nope", "private/../etc", "private/", "rig/Nope"]) {
      const answer = await f.call({ action: "promote", recipeId, skill: "rig" });
      expect(answer.error, recipeId).toBe("not_found");
      expectNoHostPaths(answer, f);
    }
    // Another user: their own library holds none of the first user's playbooks.
    const search = createSearchEngine({ provider: null });
    const bob = new RecipeLibrary({
      settings: { dcc: "maya", skillRoots: [], privateDir: path.join(f.tmp, "bob"), stateDir: path.join(f.tmp, "bob-state"), storeUrl: null, owner: "bob" },
      search,
      logger: pino({ level: "silent" }),
    });
    try {
      await bob.load();
      const context: RecipeToolContext = { ...f.context, caller: { user: "bob", playbooks: bob, loaded: Promise.resolve() } };
      const outcome = await f.registry.call("recipe", { action: "promote", recipeId: id, skill: "rig" }, context);
      if (outcome.kind !== "result") throw new Error("recipe tool not registered");
      const answer = JSON.parse(outcome.result.content[0]!.text) as { error?: string };
      expect(answer.error).toBe("not_found");
      await expect(fs.readdir(path.join(f.tmp, "skills", "rig", "recipes"))).resolves.toEqual(["bind.md"]);
    } finally {
      await bob.close();
      await search.close();
    }
  });

  it("malformed fields are invalid_input naming the field", async () => {
    const f = await withRig();
    const id = await created(f);
    for (const args of [
      { action: "promote", recipeId: id },
      { action: "promote", skill: "rig" },
      { action: "promote", recipeId: id, skill: "" },
      { action: "promote", recipeId: id, skill: 7 },
      { action: "promote", recipeId: id, skill: "rig", revision: 0 },
      { action: "promote", recipeId: id, skill: "rig", to: "/tmp" },
    ]) {
      const answer = await f.call(args);
      expect(answer.error, JSON.stringify(args)).toBe("invalid_input");
    }
  });

  // As root every directory is writable (access(W_OK) is true), so a read-only root cannot be made here.
  it.skipIf(process.getuid?.() === 0)("a skill root the server cannot write is read_only", async () => {
    const f = await withRig();
    const id = await created(f);
    const rig = path.join(f.tmp, "skills", "rig");
    await fs.chmod(rig, 0o555);
    try {
      const answer = await f.call({ action: "promote", recipeId: id, skill: "rig" });
      expect(answer.error).toBe("read_only");
      expectNoHostPaths(answer, f);
    } finally {
      await fs.chmod(rig, 0o755);
    }
  });
});
