/**
 * createDrain (http-app.ts) on a real fastify instance (fastify-setup.ts) over loopback: a
 * POST in flight is counted until its reply closes, a GET is not (streams
 * stay open for a session's life), and idle() waits for the last request or
 * gives up after its timeout.
 */
import { afterEach, describe, expect, it } from "vitest";
import pino from "pino";
import type { FastifyInstance } from "fastify";
import { createDrain } from "../../../src/server/transport/http-app.js";
import { createFastify } from "../../../src/server/transport/fastify-setup.js";
import { Gate, TEST_LIMITS } from "./fixture.js";
import { until } from "../../helpers/until.js";

let app: FastifyInstance | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

async function served(gate: Gate): Promise<{ url: string; drain: ReturnType<typeof createDrain> }> {
  const drain = createDrain();
  app = createFastify(TEST_LIMITS, pino({ level: "silent" }));
  app.addHook("onRequest", (request, reply, done) => {
    drain.track(request, reply);
    done();
  });
  app.post("/slow", async () => {
    await gate.wait();
    return { done: true };
  });
  app.get("/slow", async () => {
    await gate.wait();
    return { done: true };
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url: address, drain };
}

describe("createDrain", () => {
  it("counts a POST until its reply closes, not a GET; idle() resolves when the last one ends", async () => {
    const gate = new Gate();
    const { url, drain } = await served(gate);
    const post = fetch(`${url}/slow`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const get = fetch(`${url}/slow`);
    await until(() => gate.waiting === 2);
    expect(drain.inFlight()).toBe(1);
    let idle = false;
    const settled = drain.idle(10_000).then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    gate.open();
    expect((await post).status).toBe(200);
    expect((await get).status).toBe(200);
    await settled;
    expect(drain.inFlight()).toBe(0);
  });

  it("gives up waiting after the timeout while a request is still in flight", async () => {
    const gate = new Gate();
    const { url, drain } = await served(gate);
    const post = fetch(`${url}/slow`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await until(() => gate.waiting === 1);
    await drain.idle(30);
    expect(drain.inFlight()).toBe(1);
    gate.open();
    await post;
  });

  it("resolves at once when nothing is in flight", async () => {
    await expect(createDrain().idle(60_000)).resolves.toBeUndefined();
  });
});
