/**
 * A real recipe library over a temp skill root written from a file tree, for
 * the prompts and skills providers' tests (real files, real loader).
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { RecipeLibrary } from "../../../../src/recipes/catalog/library.js";
import { createSearchEngine } from "../../../../src/recipes/search/engine.js";

export interface LibraryFixture {
  readonly tmp: string;
  readonly root: string;
  readonly library: RecipeLibrary;
  write(files: Readonly<Record<string, string | Buffer>>): Promise<void>;
  /** Re-read everything from disk (what a hot reload converges to). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export async function libraryFixture(files: Readonly<Record<string, string | Buffer>>, dcc = "maya"): Promise<LibraryFixture> {
  const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "surfaces-")));
  const root = path.join(tmp, "skills");
  await fs.mkdir(root, { recursive: true });
  const write = async (tree: Readonly<Record<string, string | Buffer>>): Promise<void> => {
    for (const [relative, content] of Object.entries(tree)) {
      const target = path.join(root, relative);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, content);
    }
  };
  await write(files);
  const search = createSearchEngine({ provider: null });
  const library = new RecipeLibrary({
    settings: { dcc, skillRoots: [root], privateDir: path.join(tmp, "private"), stateDir: path.join(tmp, "state") },
    search,
    logger: pino({ level: "silent" }),
  });
  await library.load();
  return {
    tmp,
    root,
    library,
    write,
    async reload() {
      await library.load();
    },
    async close() {
      await library.flush();
      await search.close();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}

export function skillMd(name: string, recipes: string | readonly string[], extraMetadata = "", top = ""): string {
  const list = typeof recipes === "string" ? JSON.stringify(recipes) : `[${recipes.map((r) => JSON.stringify(r)).join(", ")}]`;
  return `---\nname: ${name}\ndescription: ${name} test skill\n${top}metadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: ${list}\n${extraMetadata}---\n# ${name}\n\nBody of ${name}.\n`;
}
