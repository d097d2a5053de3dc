/**
 * The time a write may take, so that a failed answer means nothing was
 * written. The server answers a tool call that outlives its request timeout
 * with a protocol error; a store write still running then would commit after
 * the caller was told it failed (and a retry would make a duplicate). So each
 * write gets a deadline below the request timeout, counted from when the
 * request reached the tool, and both stores refuse to commit past it: the
 * file store checks it before the rename or link that makes a write visible,
 * PostgreSQL cancels the statement (statement_timeout and lock_timeout set
 * per transaction) and the store sends COMMIT only before the deadline.
 * Past the deadline the write is rolled back and answered `not_ready`
 * ("nothing was written"), before the request timeout fires.
 */
import { failure, type StoreResult, type WriteTiming } from "./contract.js";

export type { WriteTiming } from "./contract.js";

/**
 * The store's share of a request timeout: what is left after a margin for
 * the answer's way back and for a COMMIT already sent. Never below 50 ms.
 */
export function writeBudgetFor(requestTimeoutMs: number): number {
  const margin = Math.min(2000, Math.max(250, Math.floor(requestTimeoutMs / 5)));
  return Math.max(50, requestTimeoutMs - margin);
}

export class Deadline {
  /** `budgetMs` null: no deadline (a library caller without a request timeout). */
  constructor(
    readonly budgetMs: number | null,
    private readonly at: number,
  ) {}

  static start(budgetMs: number | null, timing: WriteTiming | undefined): Deadline {
    return new Deadline(budgetMs, budgetMs === null ? Number.POSITIVE_INFINITY : (timing?.since ?? performance.now()) + budgetMs);
  }

  /** Milliseconds left (Infinity without a deadline; 0 once passed). */
  remaining(): number {
    return Math.max(0, this.at - performance.now());
  }

  passed(): boolean {
    return this.remaining() <= 0;
  }

  /** The answer to a write stopped by its deadline. */
  expired(operation: "create" | "update" | "restore" | "delete"): StoreResult & { ok: false } {
    return failure(
      "not_ready",
      `the playbook store did not finish this ${operation} within ${this.budgetMs ?? 0} ms; nothing was written, so it is safe to send again`,
    );
  }
}
