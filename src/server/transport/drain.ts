/**
 * Requests in flight, for a graceful close: GET streams stay open for a
 * session's life, every other request is one a shutdown lets finish.
 */
import type { FastifyReply, FastifyRequest } from "fastify";

export function createDrain() {
  let inFlight = 0;
  const idleWaiters = new Set<() => void>();
  // One shared listener: a closure per request would cost an allocation on every call.
  const settle = (): void => {
    inFlight -= 1;
    if (inFlight === 0) for (const wake of idleWaiters) wake();
  };
  return {
    /** Counts the request until its reply closes. */
    track(request: FastifyRequest, reply: FastifyReply): void {
      if (request.method === "GET") return;
      inFlight += 1;
      reply.raw.once("close", settle);
    },
    inFlight: (): number => inFlight,
    /** Resolves when nothing is in flight, or after `timeoutMs`. */
    idle(timeoutMs: number): Promise<void> {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          idleWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        idleWaiters.add(done);
      });
    },
  };
}
