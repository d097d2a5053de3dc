/**
 * Files outside a skill through a symlink race: while a file in a skill
 * directory flips between a regular file and a symbolic link to a file
 * outside the skill (a separate process running `ln -sf` + `mv -Tf` in a
 * loop), parallel `resources/read skill://<skill>/<file>` calls through the
 * real daemon and the SDK's client never answer the outside file's bytes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, makeTempDir, skillMd, startServer, writeTree, type RunningServer } from "./harness.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import * as z from "zod/v4";

const SECRET = "OUTSIDE-SECRET-BYTES";
const INSIDE = "inside the skill\n";
const ROUNDS = 150;
const PARALLEL = 8;

let running: RunningServer;
let skills: string;
let client: Client;
let flipper: ChildProcess | undefined;

beforeAll(async () => {
  skills = await makeTempDir("recipe-server-flip-");
  await writeTree(skills, {
    "flip/SKILL.md": skillMd("flip", "maya", "recipes.md"),
    "flip/recipes.md": "# Recipes\n\n## Flip\n\n```python\nprint(1)\n```\n",
    "flip/notes.txt": INSIDE,
    "flip/sub/deep.txt": INSIDE,
  });
  await fs.writeFile(path.join(skills, "..", `${path.basename(skills)}-secret.txt`), SECRET);
  await writeTree(outsideDir(), { "deep.txt": SECRET, "outside-only.txt": SECRET });
  running = await startServer({ skillsPaths: [skills] });
  client = await connect(running.url);
});

afterAll(async () => {
  if (flipper?.pid !== undefined && flipper.exitCode === null && flipper.signalCode === null) process.kill(-flipper.pid, "SIGKILL");
  await client?.close();
  await running?.stop();
  await fs.rm(skills, { recursive: true, force: true });
  await fs.rm(secretPath(), { force: true });
  await fs.rm(outsideDir(), { recursive: true, force: true });
});

function secretPath(): string {
  return path.join(skills, "..", `${path.basename(skills)}-secret.txt`);
}

/** A shell loop in its own process group: swaps `file` (skill-relative) between a regular file and a link to the secret. */
function startFlipping(skillDir: string, file: string): ChildProcess {
  const secret = secretPath();
  const script = `cd "$1"; while :; do printf '${INSIDE.replace("\n", "\\n")}' > .flip-file; mv -Tf .flip-file "$2"; ln -sf "$3" .flip-link; mv -Tf .flip-link "$2"; done`;
  return spawn("bash", ["-c", script, "flip", skillDir, file, secret], { detached: true, stdio: "ignore" });
}

/** The same for a directory on the way: `sub` is the skill's directory, then a link to an outside one holding the secret under the same name. */
function startFlippingDirectory(skillDir: string): ChildProcess {
  const script = `cd "$1"; while :; do mv -T sub .sub-real; ln -s "$2" sub; rm sub; mv -T .sub-real sub; done`;
  return spawn("bash", ["-c", script, "flip", skillDir, outsideDir()], { detached: true, stdio: "ignore" });
}

function outsideDir(): string {
  return path.join(skills, "..", `${path.basename(skills)}-outside`);
}

/** ROUNDS × PARALLEL reads of `uri` while `flip` runs: how many answered the secret, the inside bytes, an error. */
async function readDuring(flip: ChildProcess, uri: string): Promise<{ outside: number; inside: number; refused: number }> {
  flipper = flip;
  const counts = { outside: 0, inside: 0, refused: 0 };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.allSettled(Array.from({ length: PARALLEL }, () => client.readResource({ uri })));
      for (const answer of answers) {
        if (answer.status === "rejected") counts.refused++;
        else if (JSON.stringify(answer.value.contents).includes(SECRET)) counts.outside++;
        else counts.inside++;
      }
    }
  } finally {
    process.kill(-flip.pid!, "SIGKILL");
    await new Promise((resolve) => (flip.exitCode !== null || flip.signalCode !== null ? resolve(null) : flip.once("exit", resolve)));
  }
  return counts;
}

describe("regression: files outside a skill through a symlink race", () => {
  it(`${PARALLEL} parallel resources/read during a file↔symlink flip loop read the outside file 0 times`, async () => {
    const skillDir = path.join(skills, "flip");
    // Served before the loop starts: the file is known to the extension.
    const before = await client.readResource({ uri: "skill://flip/notes.txt" });
    expect(before.contents[0]).toMatchObject({ text: INSIDE });
    const { outside, inside, refused } = await readDuring(startFlipping(skillDir, "notes.txt"), "skill://flip/notes.txt");
    const total = ROUNDS * PARALLEL;
    console.log(`symlink flip loop (file): ${outside} outside reads of ${total} (${inside} inside, ${refused} refused)`);
    expect(inside + refused + outside).toBe(total);
    // The race was exercised: both outcomes of the flip were met.
    expect(inside).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(outside).toBe(0);
  }, 120_000);

  it(`${PARALLEL} parallel resources/read while a directory on the way flips to a link out of the skill read the outside file 0 times`, async () => {
    const skillDir = path.join(skills, "flip");
    expect((await client.readResource({ uri: "skill://flip/sub/deep.txt" })).contents[0]).toMatchObject({ text: INSIDE });
    // Listings during the flip too: no name or size from the outside directory.
    let listed = 0;
    let leakedNames = 0;
    let listing = true;
    const lister = (async () => {
      while (listing) {
        const answers = await Promise.allSettled([
          client.request({ method: "resources/directory/read", params: { uri: "skill://flip/sub" } }, z.object({}).passthrough()),
          client.request({ method: "skills/get", params: { uri: "skill://flip/SKILL.md" } }, z.object({}).passthrough()),
        ]);
        for (const answer of answers) {
          if (answer.status !== "fulfilled") continue;
          listed++;
          if (JSON.stringify(answer.value).includes("outside-only")) leakedNames++;
        }
      }
    })();
    const { outside, inside, refused } = await readDuring(startFlippingDirectory(skillDir), "skill://flip/sub/deep.txt");
    listing = false;
    await lister;
    console.log(`symlink flip loop (directory listings): ${leakedNames} of ${listed} answers named an outside file`);
    expect(leakedNames).toBe(0);
    const total = ROUNDS * PARALLEL;
    console.log(`symlink flip loop (directory): ${outside} outside reads of ${total} (${inside} inside, ${refused} refused)`);
    expect(inside + refused + outside).toBe(total);
    expect(inside).toBeGreaterThan(0);
    expect(outside).toBe(0);
  }, 120_000);
});
