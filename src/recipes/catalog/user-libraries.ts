/**
 * Each user's own playbooks (users file): per DCC and user, a
 * small library with no skill roots whose store is `<private dir>/<user>/`
 * or the PostgreSQL rows with `owner = user`. Made on a user's first call and
 * kept for the life of the process; the DCC's library keeps the public
 * recipes, which are everyone's.
 */
import path from "node:path";
import type { Logger } from "pino";
import type { CatalogSnapshot } from "./catalog.js";
import { RecipeLibrary, type CatalogListener, type LibrarySettings, type WatchOptions } from "./library.js";
import type { SearchEngine } from "../search/engine.js";

/**
 * The owner of the DCC library's own private store when a users file is
 * set: no user id can be "-" (ids start with a letter or digit), so nobody
 * writes there and it stays empty: playbooks live with their users.
 */
export const NO_OWNER = "-";

export interface UserLibrariesOptions {
  /** The DCC's settings; a user's are derived from them. */
  readonly settings: LibrarySettings;
  /** A search engine for one user's playbooks, its vector cache in `stateDir`. */
  readonly createSearch: (stateDir: string, user: string) => SearchEngine;
  readonly logger: Logger;
  /** Hot reload of a user's playbook directory (file store; PostgreSQL notifies instead); null: none. */
  readonly watch?: WatchOptions | null;
}

export interface UserLibrary {
  readonly library: RecipeLibrary;
  /** The first load; the same promise on every call. */
  readonly loaded: Promise<unknown>;
}

/** A change to one user's playbooks: the library listener's arguments, with whose they are. */
export type UserCatalogListener = (user: string, ...change: Parameters<CatalogListener>) => void;

export class UserLibraries {
  private readonly byUser = new Map<string, UserLibrary>();
  private readonly listeners = new Set<UserCatalogListener>();

  constructor(private readonly options: UserLibrariesOptions) {}

  /** The user's library, made and loading on first use. `user` is a users-file id (a safe directory name). */
  of(user: string): UserLibrary {
    let entry = this.byUser.get(user);
    if (entry === undefined) {
      const base = this.options.settings;
      const stateDir = path.join(base.stateDir, "users", user);
      const settings: LibrarySettings = {
        dcc: base.dcc,
        skillRoots: [],
        privateDir: path.join(base.privateDir, user),
        stateDir,
        storeUrl: base.storeUrl ?? null,
        owner: user,
        ...(base.writeTimeoutMs !== undefined ? { writeTimeoutMs: base.writeTimeoutMs } : {}),
        ...(base.historyLimit !== undefined ? { historyLimit: base.historyLimit } : {}),
        ...(base.pgConnections ? { pgConnections: base.pgConnections } : {}),
      };
      const library = new RecipeLibrary({
        settings,
        search: this.options.createSearch(stateDir, user),
        logger: this.options.logger.child({ user }),
        parseWorkers: 0,
      });
      // Before the first load: a tool write, a hand edit or another replica's NOTIFY all publish here.
      library.onChange((snapshot, previous, change) => {
        for (const listener of this.listeners) listener(user, snapshot, previous, change);
      });
      const watch = this.options.watch ?? null;
      const loaded = library.load().then(async () => {
        // Hand edits in <private dir>/<user>/ show as they do in the single-user private dir.
        if (watch !== null && (base.storeUrl ?? null) === null) await library.watch(watch);
      }).catch((error: unknown) => {
        this.options.logger.error({ err: error, user }, "user's playbooks failed to load");
      });
      entry = { library, loaded };
      this.byUser.set(user, entry);
    }
    return entry;
  }

  /**
   * Called with every snapshot any user's library publishes, from libraries
   * made before or after the call. Only users who have called on this
   * process have a library: the ones there can be anyone to tell.
   */
  onChange(listener: UserCatalogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every user library made so far. */
  all(): RecipeLibrary[] {
    return [...this.byUser.values()].map((entry) => entry.library);
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.byUser.values()].map(async ({ library, loaded }) => {
        await loaded;
        await library.stopWatching();
        await library.close();
        await library.search.close();
      }),
    );
    this.byUser.clear();
  }
}

/**
 * The DCC library's public recipes, and each user's own playbooks for that
 * user only: what resources/list and resources/read serve with a users file.
 */
export function withUserPlaybooks(
  library: RecipeLibrary,
  users: UserLibraries,
): { readonly dcc: string; current(): CatalogSnapshot | null; playbooksOf(user: string): { current(): CatalogSnapshot | null; readonly loaded: Promise<unknown> } } {
  return {
    dcc: library.dcc,
    current: () => library.current(),
    playbooksOf(user) {
      const own = users.of(user);
      return { current: () => own.library.current(), loaded: own.loaded };
    },
  };
}
