import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OUTSIDE, readInside, readInsideSettled } from "../../src/util/read-inside.js";

let tmp: string;
let skill: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "read-inside-")));
  skill = path.join(tmp, "skill");
  await fs.mkdir(path.join(skill, "sub"), { recursive: true });
  await fs.writeFile(path.join(skill, "sub", "a.md"), "inside");
  await fs.writeFile(path.join(tmp, "secret"), "outside");
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const text = (r: ReturnType<typeof readInside>): string | null => (r.ok ? r.bytes.toString() : null);

describe("readInside", () => {
  it("reads a file by its absolute path or its path relative to the directory", () => {
    expect(text(readInside(skill, path.join(skill, "sub", "a.md"), 100))).toBe("inside");
    expect(text(readInside(skill, "sub/a.md", 100))).toBe("inside");
  });

  it("follows links that stay inside the directory, a file's or a directory's", async () => {
    await fs.symlink("sub/a.md", path.join(skill, "alias.md"));
    await fs.symlink("sub", path.join(skill, "dirlink"));
    expect(text(readInside(skill, "alias.md", 100))).toBe("inside");
    expect(text(readInside(skill, "dirlink/a.md", 100))).toBe("inside");
  });

  it("refuses a link to a file outside, and a directory link leading outside", async () => {
    await fs.symlink(path.join(tmp, "secret"), path.join(skill, "leak.md"));
    await fs.symlink(tmp, path.join(skill, "up"));
    expect(readInside(skill, "leak.md", 100)).toEqual({ ok: false, reason: "unreadable", code: OUTSIDE });
    expect(readInside(skill, "up/secret", 100)).toEqual({ ok: false, reason: "unreadable", code: OUTSIDE });
    expect(readInside(skill, "../secret", 100)).toEqual({ ok: false, reason: "unreadable", code: OUTSIDE });
    expect(readInside(skill, path.join(tmp, "secret"), 100)).toEqual({ ok: false, reason: "unreadable", code: OUTSIDE });
  });

  it("refuses the directory itself, and a directory that has become a link since it was found", async () => {
    expect(readInside(skill, skill, 100)).toEqual({ ok: false, reason: "unreadable", code: OUTSIDE });
    await fs.rename(skill, path.join(tmp, "moved"));
    await fs.symlink(path.join(tmp, "moved"), skill);
    expect(readInside(skill, "sub/a.md", 100)).toMatchObject({ ok: false, reason: "unreadable" });
  });

  it("keeps readBounded's answers: missing, not a file, too large, a FIFO never opened for long", async () => {
    expect(readInside(skill, "nope.md", 100)).toMatchObject({ ok: false, reason: "missing" });
    expect(readInside(skill, "sub", 100)).toMatchObject({ ok: false });
    await fs.writeFile(path.join(skill, "big.md"), "x".repeat(101));
    expect(readInside(skill, "big.md", 100)).toEqual({ ok: false, reason: "too_large", size: 101 });
    try {
      execFileSync("mkfifo", [path.join(skill, "fifo.md")]);
    } catch {
      console.warn("FIFO case skipped: mkfifo is not available here");
      return;
    }
    expect(readInside(skill, "fifo.md", 100)).toMatchObject({ ok: false, reason: "not_file" });
  });

  it("settles as readSettled does", async () => {
    const read = await readInsideSettled(skill, "sub/a.md", 100, 0);
    expect(text(read)).toBe("inside");
  });
});
