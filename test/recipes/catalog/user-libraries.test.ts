/**
 * Per-user playbook libraries (#24 item 5) on the file store: one
 * subdirectory per user, nothing of one user's in another's catalog, and a
 * user's directory hot-reloaded like the single-user private dir.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";
import { UserLibraries } from "../../../src/recipes/catalog/user-libraries.js";

const draft = (title: string) => ({
  title,
  summary: "Bake normals from the sculpt.",
  whenToUse: "When the low-poly needs detail.",
  steps: [{ title: "Cage", detail: "Inflate a cage." }],
  acceptanceCriteria: ["No seams"],
  tags: ["baking"],
  document: "# Bake\n",
});

const temps: string[] = [];
const opened: UserLibraries[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((u) => u.close()));
  await Promise.all(temps.splice(0).map((t) => fs.rm(t, { recursive: true, force: true })));
});

async function users(watch: boolean): Promise<{ libs: UserLibraries; privateDir: string }> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "user-libs-"));
  temps.push(tmp);
  const privateDir = path.join(tmp, "private");
  const libs = new UserLibraries({
    settings: { dcc: "maya", skillRoots: [], privateDir, stateDir: path.join(tmp, "state") },
    createSearch: () => createSearchEngine({ provider: null }),
    logger: pino({ level: "silent" }),
    watch: watch ? { debounceMs: 20 } : null,
  });
  opened.push(libs);
  return { libs, privateDir };
}

describe("UserLibraries", () => {
  it("keeps each user's playbooks in their own subdirectory and catalog; one library per user", async () => {
    const { libs, privateDir } = await users(false);
    const alice = libs.of("alice");
    expect(libs.of("alice")).toBe(alice);
    await alice.loaded;
    const made = await alice.library.createPlaybook(draft("Bake normals"));
    expect(made.ok).toBe(true);
    const bob = libs.of("bob");
    await bob.loaded;
    expect(bob.library.current()?.recipes.has("private/bake-normals")).toBe(false);
    expect(alice.library.current()?.recipes.has("private/bake-normals")).toBe(true);
    expect(await fs.readdir(path.join(privateDir, "alice"))).toContain("bake-normals.md");
    await expect(fs.readdir(path.join(privateDir, "bob"))).rejects.toThrow();
    expect(libs.all()).toHaveLength(2);
  });

  it("a playbook file dropped into a user's directory shows in that user's catalog only", async () => {
    const { libs, privateDir } = await users(true);
    const alice = libs.of("alice");
    const carol = libs.of("carol");
    await Promise.all([alice.loaded, carol.loaded]);
    expect((await alice.library.createPlaybook(draft("Retopo the hero"))).ok).toBe(true);
    await fs.mkdir(path.join(privateDir, "carol"), { recursive: true });
    await fs.copyFile(path.join(privateDir, "alice", "retopo-the-hero.md"), path.join(privateDir, "carol", "retopo-the-hero.md"));
    await expect.poll(() => carol.library.current()?.recipes.has("private/retopo-the-hero"), { timeout: 10_000 }).toBe(true);
  });
});
