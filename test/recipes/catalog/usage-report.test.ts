/**
 * readRecipeUsage, the read behind recipes__list and the catalog page: public
 * recipes from the DCC library's counts (totals over users, the caller's own
 * share), private playbooks from their owner's library only, and only what
 * the current catalogs hold.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { RecipeLibrary } from "../../../src/recipes/catalog/library.js";
import { NO_OWNER, UserLibraries } from "../../../src/recipes/catalog/user-libraries.js";
import { readRecipeUsage } from "../../../src/recipes/catalog/usage-report.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";

const EXAMPLE_SKILLS = path.resolve("skills-example");
const PYRO = "houdini-fx/pyro_explosion";
const draft = (title: string) => ({
  title,
  summary: "Bake normals from the sculpt.",
  whenToUse: "When the low-poly needs detail.",
  steps: [{ title: "Cage", detail: "Inflate a cage." }],
  acceptanceCriteria: ["No seams"],
  tags: ["baking"],
  document: "# Bake\n",
});

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setting(users: boolean) {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "usage-report-"));
  cleanup.push(() => fs.rm(tmp, { recursive: true, force: true }));
  const logger = pino({ level: "silent" });
  const settings = { dcc: "houdini", skillRoots: [EXAMPLE_SKILLS], privateDir: path.join(tmp, "private"), stateDir: path.join(tmp, "state") };
  const library = new RecipeLibrary({
    settings: users ? { ...settings, privateDir: path.join(tmp, "private", NO_OWNER), owner: NO_OWNER } : settings,
    search: createSearchEngine({ provider: null }),
    logger,
    parseWorkers: 0,
  });
  cleanup.push(() => library.close());
  await library.load();
  const perUser = users ? new UserLibraries({ settings, createSearch: () => createSearchEngine({ provider: null }), logger }) : null;
  if (perUser) cleanup.push(() => perUser.close());
  return { library, perUser };
}

describe("readRecipeUsage", () => {
  it("with users: totals are everyone's, `mine` the caller's; a private playbook is read from its owner's library only", async () => {
    const { library, perUser } = await setting(true);
    const alice = perUser!.of("alice");
    const bob = perUser!.of("bob");
    await Promise.all([alice.loaded, bob.loaded]);
    const made = await alice.library.createPlaybook(draft("Hero bake"));
    if (!made.ok) throw new Error(made.message);
    const mineId = `private/${made.playbook.slug}`;
    library.usage.record(PYRO, "get", "alice");
    library.usage.record(PYRO, "get", "bob");
    library.usage.record(PYRO, "validate_fail", "bob");
    alice.library.usage.record(mineId, "get", "alice");
    // A public id no catalog holds (a removed recipe) is never answered.
    library.usage.record("houdini-fx/removed_recipe", "get", "alice");
    await Promise.all([library.usage.flush(), alice.library.usage.flush()]);

    const forAlice = await readRecipeUsage({ library, caller: { user: "alice", playbooks: alice.library } });
    expect([...forAlice.recipes.keys()].sort()).toEqual([PYRO, mineId].sort());
    expect(forAlice.recipes.get(PYRO)).toMatchObject({ total: { get: 2, validate: { fail: 1 } }, mine: { get: 1, validate: { fail: 0 } } });
    expect(forAlice.recipes.get(mineId)?.total.get).toBe(1);
    expect(forAlice.complete).toBe(true);

    // Bob asks for Alice's playbook by id: not his, not answered.
    const forBob = await readRecipeUsage({ library, caller: { user: "bob", playbooks: bob.library } }, [PYRO, mineId]);
    expect([...forBob.recipes.keys()]).toEqual([PYRO]);
    expect(forBob.recipes.get(PYRO)?.mine).toMatchObject({ get: 1, validate: { fail: 1, passRate: 0 } });
    // No caller: public totals only.
    const anonymous = await readRecipeUsage({ library });
    expect([...anonymous.recipes.keys()]).toEqual([PYRO]);
    expect(anonymous.recipes.get(PYRO)?.mine).toBeUndefined();
  });

  it("single-user: one library counts public recipes and private playbooks; a deleted playbook is left out", async () => {
    const { library } = await setting(false);
    const made = await library.createPlaybook(draft("Notes"));
    if (!made.ok) throw new Error(made.message);
    const id = `private/${made.playbook.slug}`;
    library.usage.record(id, "get");
    library.usage.record(PYRO, "apply");
    expect([...(await readRecipeUsage({ library }, [id, PYRO])).recipes.keys()].sort()).toEqual([PYRO, id].sort());
    await library.deletePlaybook(made.playbook.slug);
    expect([...(await readRecipeUsage({ library })).recipes.keys()]).toEqual([PYRO]);
  });
});
