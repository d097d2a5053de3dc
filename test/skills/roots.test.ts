import { describe, expect, it } from "vitest";
import { dccEnvName, resolveDataDir, resolveSkillRoots } from "../../src/skills/roots.js";

const base = { dcc: "maya", extraPaths: [] as string[], homeDir: "/home/u", platform: "linux" as NodeJS.Platform };

describe("resolveSkillRoots", () => {
  it("orders flags, per-DCC env, shared env, then defaults", () => {
    const roots = resolveSkillRoots({
      ...base,
      extraPaths: ["/flag/a", "rel/b"],
      env: { DCC_MCP_MAYA_SKILL_PATHS: "/env/maya1:/env/maya2", DCC_MCP_SKILL_PATHS: "/env/shared" },
    });
    expect(roots.slice(0, 2)).toEqual(["/flag/a", `${process.cwd()}/rel/b`]);
    expect(roots.slice(2)).toEqual([
      "/env/maya1",
      "/env/maya2",
      "/env/shared",
      "/home/u/.dcc-mcp/maya/skills",
      "/home/u/.local/share/dcc-mcp/skills/maya",
      "/home/u/.local/share/dcc-mcp/skills",
    ]);
  });

  it("upper-cases the DCC and maps - to _", () => {
    expect(dccEnvName("3ds-max")).toBe("DCC_MCP_3DS_MAX_SKILL_PATHS");
    const roots = resolveSkillRoots({ ...base, dcc: "3ds-max", env: { DCC_MCP_3DS_MAX_SKILL_PATHS: "/x", DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } });
    expect(roots).toEqual(["/x"]);
  });

  it("drops empty segments and de-duplicates keeping the first", () => {
    const roots = resolveSkillRoots({
      ...base,
      extraPaths: ["/a", "/a/"],
      env: { DCC_MCP_SKILL_PATHS: "::/b::/a:", DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    });
    expect(roots).toEqual(["/a", "/b"]);
  });

  it("defaults only when DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS is not 1", () => {
    expect(resolveSkillRoots({ ...base, env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } })).toEqual([]);
    expect(resolveSkillRoots({ ...base, env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "0" } })).toHaveLength(3);
  });

  it("uses XDG_DATA_HOME when absolute", () => {
    const roots = resolveSkillRoots({ ...base, env: { XDG_DATA_HOME: "/xdg" } });
    expect(roots.slice(1)).toEqual(["/xdg/dcc-mcp/skills/maya", "/xdg/dcc-mcp/skills"]);
    expect(resolveDataDir({ XDG_DATA_HOME: "relative" }, "/home/u", "linux")).toBe("/home/u/.local/share");
  });

  it("win32: ; separator and LOCALAPPDATA", () => {
    const roots = resolveSkillRoots({
      dcc: "maya",
      extraPaths: [],
      homeDir: "C:\\Users\\u",
      platform: "win32",
      env: { DCC_MCP_SKILL_PATHS: "C:\\a;;D:\\b", LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" },
    });
    expect(roots).toEqual([
      "C:\\a",
      "D:\\b",
      "C:\\Users\\u\\.dcc-mcp\\maya\\skills",
      "C:\\Users\\u\\AppData\\Local\\dcc-mcp\\skills\\maya",
      "C:\\Users\\u\\AppData\\Local\\dcc-mcp\\skills",
    ]);
  });

  it("expands a leading ~", () => {
    expect(resolveSkillRoots({ ...base, extraPaths: ["~/skills"], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } })).toEqual([
      "/home/u/skills",
    ]);
  });
});
