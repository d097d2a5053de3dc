/**
 * The PostgreSQL connections of one server process, shared by store URL.
 * With a users file every user has their own library and store; were each
 * to open its own PgConnection (a pool plus a LISTEN client) the database
 * would see replicas × users connections. Instead every store naming the
 * same URL borrows one connection (one pool, one LISTEN client, migrations
 * run once), and the last store to release it closes it. Made by the
 * composition (src/compose/catalogs.ts) and passed down, never a module singleton.
 */
import { PgConnection, type PgLogger } from "./pg-connection.js";
import { redactStoreUrl } from "../../../util/pg-url.js";

export interface PgLease {
  readonly connection: PgConnection;
  /** Gives the connection back; closes it when no store holds it any more. Idempotent. */
  release(): Promise<void>;
}

interface Shared {
  readonly connection: PgConnection;
  holders: number;
}

export class PgConnections {
  private readonly byUrl = new Map<string, Shared>();

  /** `logger` reports the connection's state once for all its stores (not per user). */
  constructor(private readonly logger?: PgLogger) {}

  acquire(url: string): PgLease {
    let shared = this.byUrl.get(url);
    if (shared === undefined) {
      const connection = new PgConnection({ url, location: redactStoreUrl(url), ...(this.logger ? { logger: this.logger } : {}) });
      shared = { connection, holders: 0 };
      this.byUrl.set(url, shared);
    }
    shared.holders += 1;
    const held = shared;
    let released = false;
    return {
      connection: held.connection,
      release: async () => {
        if (released) return;
        released = true;
        held.holders -= 1;
        if (held.holders > 0) return;
        // Gone from the map before closing: a store opened meanwhile gets a fresh connection.
        if (this.byUrl.get(url) === held) this.byUrl.delete(url);
        await held.connection.close();
      },
    };
  }

  /** How many distinct connections are open (for tests and metrics). */
  size(): number {
    return this.byUrl.size;
  }
}
