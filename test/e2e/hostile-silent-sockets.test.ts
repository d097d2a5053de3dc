/**
 * Silent connections are never left open: sockets that send nothing, one
 * byte, or a request line and then stop are all closed once the request
 * timeout has passed (the half-sent ones with a 408), and past
 * --max-connections a new connection is answered 503 and closed, while a
 * well-behaved SDK client is served before and after.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, EXAMPLE_SKILLS, eventually, startServer, type RunningServer } from "./harness.js";

const TIMEOUT_MS = 2000;
const EACH = 100;

interface Probe {
  readonly socket: net.Socket;
  closed: boolean;
  received: string;
}

function open(port: number, send: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    const probe: Probe = { socket, closed: false, received: "" };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      if (probe.received.length < 4096) probe.received += chunk;
    });
    socket.on("close", () => {
      probe.closed = true;
    });
    socket.on("error", () => undefined);
    socket.once("connect", () => {
      if (send !== "") socket.write(send);
      resolve(probe);
    });
    socket.once("error", reject);
  });
}

async function stillServing(running: RunningServer): Promise<void> {
  const client = await connect(running.url);
  try {
    expect((await call(client, "recipes__list", {})).success).toBe(true);
  } finally {
    await client.close();
  }
}

describe("regression: silent connections are never closed", () => {
  let running: RunningServer;
  const probes: Probe[] = [];
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--request-timeout-ms", String(TIMEOUT_MS)] });
  });
  afterAll(async () => {
    for (const probe of probes) probe.socket.destroy();
    await running?.stop();
  });

  it(`${EACH} sockets sending nothing, ${EACH} one byte, ${EACH} a request line: 0 of ${3 * EACH} open after the request timeout`, async () => {
    const kinds = { silent: "", "one byte": "P", "request line": "POST /mcp HTTP/1.1\r\n" } as const;
    const byKind = new Map<string, Probe[]>();
    for (const [kind, send] of Object.entries(kinds)) {
      const opened = await Promise.all(Array.from({ length: EACH }, () => open(running.port, send)));
      byKind.set(kind, opened);
      probes.push(...opened);
    }
    await stillServing(running);
    const openAt = (): number => probes.filter((p) => !p.closed).length;
    // Three timeouts: the timeout itself, the interval the server checks at, and a loaded machine.
    await eventually(() => openAt() === 0, 3 * TIMEOUT_MS + 5000, 100).catch(() => undefined);
    const left = openAt();
    console.log(`silent sockets: ${left} of ${probes.length} left open after the request timeout (${TIMEOUT_MS} ms)`);
    expect(left).toBe(0);
    // A half-sent request is told why; a silent socket is just closed.
    for (const kind of ["one byte", "request line"]) {
      const answered = byKind.get(kind)!.filter((p) => p.received.startsWith("HTTP/1.1 408")).length;
      expect(answered, kind).toBe(EACH);
    }
    expect(byKind.get("silent")!.every((p) => p.received === "")).toBe(true);
    await stillServing(running);
  }, 60_000);
});

describe("connection cap (--max-connections)", () => {
  let running: RunningServer;
  const probes: Probe[] = [];
  const CAP = 20;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--request-timeout-ms", String(TIMEOUT_MS), "--max-connections", String(CAP)] });
  });
  afterAll(async () => {
    for (const probe of probes) probe.socket.destroy();
    await running?.stop();
  });

  it("answers 503 and closes a connection past the cap; serves again once the silent ones are closed", async () => {
    for (let i = 0; i < CAP; i++) probes.push(await open(running.port, ""));
    const over = await open(running.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    probes.push(over);
    await eventually(() => over.closed, 10_000);
    expect(over.received).toMatch(/^HTTP\/1\.1 503 /);
    expect(over.received).toMatch(/retry-after: \d+/i);
    expect(over.received).toContain('"code":-32004');
    await eventually(() => probes.every((p) => p.closed), 3 * TIMEOUT_MS + 5000, 100);
    await stillServing(running);
  }, 60_000);
});
