/**
 * Picks a DCC's playbook store and usage counts from the settings: files in
 * the private dir and the state dir (the embedded default), or tables in the
 * PostgreSQL database the --store URL names.
 */
import type { PlaybookStore } from "./contract.js";
import { PgConnection, type PgLogger } from "./pg/pg-connection.js";
import type { PgConnections, PgLease } from "./pg/pg-connections.js";
import { openPgStore } from "./pg/pg-store.js";
import { openPgUsageStore } from "./pg/pg-usage.js";
import { redactStoreUrl } from "../../util/pg-url.js";
import { openPrivateStore, type StoreLogger } from "./store.js";
import { openUsageStore, type UsageStore } from "./usage.js";

interface StoreSettings {
  readonly dcc: string;
  readonly privateDir: string;
  readonly usageFile: string;
  /** postgres://… or null for the file store. */
  readonly storeUrl: string | null;
  /** Whose playbooks (PostgreSQL rows' owner; the file store's dir is already the owner's): "" = the single user. */
  readonly owner?: string;
  readonly logger?: StoreLogger & PgLogger;
  readonly now?: () => Date;
  /** Largest playbook, measured as its file form, in bytes. */
  readonly maxFileBytes?: number;
  /** The process's shared PostgreSQL connections (users file: every user's store on one pool); absent: this store opens its own. */
  readonly connections?: PgConnections;
  /** How long a write may take before the store gives up without committing (deadline.ts). */
  readonly writeTimeoutMs?: number;
  /** Revisions kept per playbook (history.ts); default 50. */
  readonly historyLimit?: number;
  /** How often buffered usage counts are written (usage-store.ts); default 2000 ms. */
  readonly usageFlushMs?: number;
}

export interface OpenedStores {
  readonly store: PlaybookStore;
  readonly usage: UsageStore;
  /** Flushes both, then releases connections. */
  close(): Promise<void>;
}

export function openStores(settings: StoreSettings): OpenedStores {
  const common = {
    ...(settings.logger ? { logger: settings.logger } : {}),
    ...(settings.now ? { now: settings.now } : {}),
  };
  const usageOptions = {
    ...(settings.usageFlushMs !== undefined ? { flushIntervalMs: settings.usageFlushMs } : {}),
    ...(settings.logger ? { logger: settings.logger } : {}),
    ...(settings.now ? { now: () => settings.now!().getTime() } : {}),
  };
  const limit = {
    ...(settings.maxFileBytes !== undefined ? { maxFileBytes: settings.maxFileBytes } : {}),
    ...(settings.writeTimeoutMs !== undefined ? { writeTimeoutMs: settings.writeTimeoutMs } : {}),
    ...(settings.historyLimit !== undefined ? { historyLimit: settings.historyLimit } : {}),
  };
  if (settings.storeUrl === null) {
    const store = openPrivateStore({ dir: settings.privateDir, ...(settings.owner !== undefined ? { owner: settings.owner } : {}), ...common, ...limit });
    const usage = openUsageStore({ file: settings.usageFile, ...usageOptions });
    return { store, usage, close: async () => void (await Promise.all([store.close(), usage.flush()])) };
  }
  const logger = settings.logger;
  const lease: PgLease = settings.connections?.acquire(settings.storeUrl) ?? ownConnection(settings.storeUrl, logger);
  const connection = lease.connection;
  const store = openPgStore({ connection, dcc: settings.dcc, ...(settings.owner !== undefined ? { owner: settings.owner } : {}), ...common, ...limit });
  // A user's own playbooks' ids may repeat another user's: their counts are kept under "<dcc>:<user>".
  const scope = settings.owner === undefined || settings.owner === "" ? settings.dcc : `${settings.dcc}:${settings.owner}`;
  const usage = openPgUsageStore({ connection, scope, ...usageOptions });
  return {
    store,
    usage,
    async close() {
      await Promise.all([store.close(), usage.flush()]);
      await lease.release();
    },
  };
}

/** The single-user path: a connection this store alone holds. */
function ownConnection(url: string, logger: (StoreLogger & PgLogger) | undefined): PgLease {
  const connection = new PgConnection({ url, location: redactStoreUrl(url), ...(logger ? { logger } : {}) });
  return { connection, release: () => connection.close() };
}
