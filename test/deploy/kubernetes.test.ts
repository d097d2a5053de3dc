/**
 * deploy/kubernetes.yaml as a cluster would take it: every document valid
 * against the Kubernetes OpenAPI schemas (the kubernetes-models package), and
 * the pod admitted by the Pod Security Standards "restricted" profile, whose
 * required fields are checked here one by one (a schema says a field is
 * well-typed, not that it is set).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { Secret, Service } from "kubernetes-models/v1";

const MANIFEST = path.resolve(import.meta.dirname, "../../deploy/kubernetes.yaml");

type Doc = { kind: string; metadata: { name: string }; [k: string]: unknown };

function documents(text: string): Doc[] {
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw new Error(d.errors.map((e) => e.message).join("; "));
    return d.toJS() as Doc;
  });
}

/** The model class for each kind the manifest may contain; any other kind fails the test. */
function validateDocument(doc: Doc): void {
  switch (doc.kind) {
    case "Deployment":
      return new Deployment(doc as never).validate();
    case "PodDisruptionBudget":
      return new PodDisruptionBudget(doc as never).validate();
    case "Service":
      return new Service(doc as never).validate();
    case "Secret":
      return new Secret(doc as never).validate();
    default:
      throw new Error(`no schema for kind ${doc.kind}`);
  }
}

interface Container {
  name: string;
  image: string;
  imagePullPolicy?: string;
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  startupProbe?: Record<string, unknown>;
}
interface PodSpec {
  securityContext?: Record<string, unknown>;
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: unknown; hostPath?: unknown }[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
}

/**
 * What the "restricted" Pod Security Standard (v1.30+) refuses, for one pod
 * spec: an empty list means admitted. Mirrors the published policy: no host
 * namespaces or hostPath, non-root (pod or every container), no privilege
 * escalation, capabilities drop ALL (adding at most NET_BIND_SERVICE),
 * seccomp RuntimeDefault or Localhost, no privileged containers.
 * readOnlyRootFilesystem is not part of the standard; this project asks it too.
 */
export function restrictedViolations(pod: PodSpec): string[] {
  const out: string[] = [];
  const podSc = pod.securityContext ?? {};
  if (pod.hostNetwork === true || pod.hostPID === true || pod.hostIPC === true) out.push("host namespaces");
  for (const v of pod.volumes ?? []) if (v.hostPath !== undefined) out.push(`hostPath volume ${v.name}`);
  const podSeccomp = (podSc.seccompProfile as { type?: string } | undefined)?.type;
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const sc = c.securityContext ?? {};
    if (sc.privileged === true) out.push(`${c.name}: privileged`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${c.name}: allowPrivilegeEscalation must be false`);
    const nonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
    if (nonRoot !== true) out.push(`${c.name}: runAsNonRoot must be true`);
    const uid = sc.runAsUser ?? podSc.runAsUser;
    if (uid === 0) out.push(`${c.name}: runAsUser 0`);
    const caps = (sc.capabilities ?? {}) as { drop?: string[]; add?: string[] };
    if (!(caps.drop ?? []).includes("ALL")) out.push(`${c.name}: capabilities must drop ALL`);
    for (const add of caps.add ?? []) if (add !== "NET_BIND_SERVICE") out.push(`${c.name}: adds capability ${add}`);
    const seccomp = (sc.seccompProfile as { type?: string } | undefined)?.type ?? podSeccomp;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") out.push(`${c.name}: seccompProfile must be RuntimeDefault or Localhost`);
    if (sc.readOnlyRootFilesystem !== true) out.push(`${c.name}: readOnlyRootFilesystem must be true`);
  }
  return out;
}

const docs = documents(readFileSync(MANIFEST, "utf8"));
const byKind = (kind: string): Doc[] => docs.filter((d) => d.kind === kind);
const deployment = byKind("Deployment")[0] as unknown as {
  spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
};
const pod = deployment.spec.template.spec;
const server = pod.containers.find((c) => c.name === "recipe-server")!;

describe("deploy/kubernetes.yaml", () => {
  it("every document validates against the Kubernetes OpenAPI schemas", () => {
    expect(docs.map((d) => d.kind).sort()).toEqual(["Deployment", "PodDisruptionBudget", "Secret", "Service"]);
    for (const doc of docs) expect(() => validateDocument(doc), `${doc.kind}/${doc.metadata.name}`).not.toThrow();
  });

  it("the schema check catches a mistyped field (the validation is live)", () => {
    const broken = structuredClone(byKind("Deployment")[0]!) as unknown as typeof deployment;
    (broken.spec.template.spec.containers[0]!.securityContext as Record<string, unknown>).runAsNonRoot = "true";
    expect(() => validateDocument(broken as unknown as Doc)).toThrow(/runAsNonRoot/);
    const noSelector = structuredClone(byKind("PodDisruptionBudget")[0]!) as Doc & { spec: { minAvailable: unknown } };
    noSelector.spec.minAvailable = { replicas: 1 };
    expect(() => validateDocument(noSelector)).toThrow();
  });

  it("the pod passes the restricted Pod Security Standard", () => {
    expect(restrictedViolations(pod)).toEqual([]);
    expect(server.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
  });

  it("the restricted check refuses what the profile refuses", () => {
    const variants: Array<[string, (p: PodSpec) => void]> = [
      ["escalation", (p) => delete p.containers[0]!.securityContext!.allowPrivilegeEscalation],
      ["root", (p) => { p.containers[0]!.securityContext!.runAsNonRoot = false; p.securityContext!.runAsNonRoot = false; }],
      ["capabilities", (p) => (p.containers[0]!.securityContext!.capabilities = { drop: ["NET_RAW"] })],
      ["added capability", (p) => (p.containers[0]!.securityContext!.capabilities = { drop: ["ALL"], add: ["SYS_ADMIN"] })],
      ["seccomp", (p) => { delete p.containers[0]!.securityContext!.seccompProfile; delete p.securityContext!.seccompProfile; }],
      ["writable root", (p) => (p.containers[0]!.securityContext!.readOnlyRootFilesystem = false)],
      ["privileged", (p) => (p.containers[0]!.securityContext!.privileged = true)],
      ["hostPath", (p) => p.volumes!.push({ name: "h", hostPath: { path: "/" } })],
      ["hostNetwork", (p) => (p.hostNetwork = true)],
    ];
    for (const [name, mutate] of variants) {
      const copy = structuredClone(pod);
      mutate(copy);
      expect(restrictedViolations(copy), name).not.toEqual([]);
    }
  });

  it("every path the server writes under a read-only root is a volume", () => {
    const mounts = new Map((server.volumeMounts ?? []).map((m) => [m.mountPath, m]));
    const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
    // XDG_DATA_HOME=/data (the image's default) holds the caches; Node and libraries use /tmp.
    for (const writable of ["/data", "/tmp"]) {
      const mount = mounts.get(writable);
      expect(mount, writable).toBeDefined();
      expect(mount!.readOnly ?? false).toBe(false);
      expect(volumes.get(mount!.name)?.emptyDir, writable).toBeDefined();
    }
    expect(mounts.get("/skills")?.readOnly).toBe(true);
  });

  it("names its image by registry and pinned tag, with a pull policy", () => {
    const [registry] = server.image.split("/");
    expect(registry).toMatch(/\./); // a registry host, not a Docker Hub short name
    expect(server.image).toMatch(/:[0-9]+\.[0-9]+\.[0-9]+$/);
    expect(server.image).not.toMatch(/:latest$/);
    expect(server.imagePullPolicy).toBe("IfNotPresent");
  });

  it("probes over plain HTTP without a token: liveness /healthz, readiness /readyz", () => {
    expect(server.livenessProbe).toMatchObject({ httpGet: { path: "/healthz" } });
    expect(server.readinessProbe).toMatchObject({ httpGet: { path: "/readyz" } });
    expect(server.startupProbe).toMatchObject({ httpGet: { path: "/healthz" } });
    for (const probe of [server.livenessProbe, server.readinessProbe, server.startupProbe]) {
      expect(probe).not.toHaveProperty("exec");
      expect(JSON.stringify(probe)).not.toMatch(/authorization/i);
    }
  });

  it("a PodDisruptionBudget keeps a replica through voluntary disruptions", () => {
    const pdb = byKind("PodDisruptionBudget")[0] as unknown as { spec: { minAvailable?: number; maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } };
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(deployment.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(pdb.spec.minAvailable ?? deployment.spec.replicas - (pdb.spec.maxUnavailable ?? deployment.spec.replicas)).toBeGreaterThanOrEqual(1);
    expect(pdb.spec.minAvailable ?? 1).toBeLessThan(deployment.spec.replicas);
  });
});
