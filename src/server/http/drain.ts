/**
 * Requests in flight, for a graceful close: GET streams stay open for a
 * session's life, every other request is one a shutdown lets finish.
 */
import type { FastifyReply, FastifyRequest } from "fastify";

export interface Drain {
  /** Counts the request until its reply closes. */
  track(request: FastifyRequest, reply: FastifyReply): void;
  inFlight(): number;
  /** Resolves when nothing is in flight, or after `timeoutMs`. */
  idle(timeoutMs: number): Promise<void>;
}

export function createDrain(): Drain {
  let inFlight = 0;
  const idleWaiters = new Set<() => void>();
  // One shared listener: a closure per request would cost an allocation on every call.
  const settle = (): void => {
    inFlight -= 1;
    if (inFlight === 0) for (const wake of idleWaiters) wake();
  };
  return {
    track(request, reply) {
      if (request.method === "GET") return;
      inFlight += 1;
      reply.raw.once("close", settle);
    },
    inFlight: () => inFlight,
    idle(timeoutMs) {
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
