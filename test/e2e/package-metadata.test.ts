/**
 * What the registries read: package.json's metadata, server.json valid for
 * the MCP Registry's schema (2025-12-11, stored in test/fixtures) under the
 * project's own validator, and the two agreeing on name and version.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { REPO_ROOT } from "./harness.js";

const read = (file: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(REPO_ROOT, file), "utf8")) as Record<string, unknown>;
const pkg = read("package.json") as {
  name: string; version: string; mcpName: string; license: string; engines: { node: string };
  repository: { url: string }; homepage: string; bugs: { url: string }; keywords: string[]; files: string[];
};
const server = read("server.json") as {
  $schema: string; name: string; version: string; description: string;
  packages: { registryType: string; identifier: string; version: string; transport: { type: string; url: string } }[];
};

function registryValidator() {
  const schema = read("test/fixtures/mcp-registry/server.schema.2025-12-11.json");
  // The validator takes anonymous documents; $id only names this one (every $ref in it is a local pointer).
  delete schema.$id;
  const compiled = compileSchema(schema);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  return compiled.validator;
}

describe("server.json for the MCP Registry", () => {
  it("is valid against the registry's server.schema.json", () => {
    const result = registryValidator().validate(server);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(server.$schema).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
  });

  it("the schema check is live: what the registry refuses fails here", () => {
    const validator = registryValidator();
    const broken: Array<[string, unknown]> = [
      ["two slashes in the name", { ...server, name: "io.github.a/b/c" }],
      ["description over 100 characters", { ...server, description: "x".repeat(101) }],
      ["no version", { ...server, version: undefined }],
      ["package version latest", { ...server, packages: [{ ...server.packages[0], version: "latest" }] }],
      ["transport without url", { ...server, packages: [{ ...server.packages[0], transport: { type: "streamable-http" } }] }],
    ];
    for (const [why, doc] of broken) expect(validator.validate(JSON.parse(JSON.stringify(doc))).valid, why).toBe(false);
  });

  it("names the npm package this repository publishes, at its version, under its mcpName", () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    const npm = server.packages.find((p) => p.registryType === "npm");
    expect(npm).toMatchObject({ identifier: pkg.name, version: pkg.version });
    expect(npm!.transport.type).toBe("streamable-http");
  });
});

describe("package.json", () => {
  it("carries what a registry page links to", () => {
    expect(pkg.license).toBe("MIT");
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\/recipe-server\/recipe-server\.git$/);
    expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/recipe-server\/recipe-server/);
    expect(pkg.bugs.url).toBe("https://github.com/recipe-server/recipe-server/issues");
    expect(pkg.keywords).toContain("mcp");
    expect(readFileSync(path.join(REPO_ROOT, "LICENSE"), "utf8")).toMatch(/MIT License[\s\S]*recipe-server contributors/);
  });

  it("engines names the supported lines and the running Node is one of them", () => {
    expect(pkg.engines.node).toBe("^20.19.0 || ^22.12.0 || >=24.0.0");
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    const ok = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
    expect(ok).toBe(true);
  });
});
