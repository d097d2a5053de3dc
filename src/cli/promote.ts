/**
 * `recipe-server promote`'s reading side: the playbook from the DCC's store
 * (a user's own, with a users file) and the skill directory named on the
 * command line; the checked write itself is lint/promote.ts's, shared with
 * the `recipe` tool's action=promote.
 */
import path from "node:path";
import type { DccConfig } from "../config/types.js";
import { playbookToPromote, promoteInto, refusal, skillInRoots, type PromoteOutcome } from "../lint/promote.js";
import { stateFiles } from "../recipes/catalog/library.js";
import { openStores } from "../recipes/store/open-store.js";
import type { Playbook } from "../recipes/types.js";

export type { PromoteErrorCode, PromoteOutcome } from "../lint/promote.js";

interface PromoteRequest {
  readonly dcc: DccConfig;
  readonly slug: string;
  readonly revision: number | undefined;
  /** A users-file id: that user's playbooks (their own directory, or their rows). */
  readonly user: string | undefined;
  readonly skillDir: string;
  readonly historyLimit: number;
}

export async function promotePlaybook(request: PromoteRequest): Promise<PromoteOutcome> {
  const { dcc, skillDir } = request;
  const target = await skillInRoots(skillDir, dcc.skillRoots, dcc.name, skillDir);
  if ("ok" in target) return target;
  if ("outside" in target) {
    return refusal("invalid_input", `${skillDir} is not a skill of ${dcc.name}'s skill roots (${dcc.skillRoots.join(", ") || "none configured"}); add its root with --skills-path`);
  }
  const read = await readPlaybook(request);
  if ("ok" in read) return read;
  return promoteInto(read, target.skill);
}

async function readPlaybook(request: PromoteRequest): Promise<Playbook | PromoteOutcome> {
  const user = request.user;
  // Where the server keeps a user's playbooks (recipes/catalog/user-libraries.ts).
  const stores = openStores({
    dcc: request.dcc.name,
    privateDir: user === undefined ? request.dcc.privateDir : path.join(request.dcc.privateDir, user),
    usageFile: stateFiles(user === undefined ? request.dcc.stateDir : path.join(request.dcc.stateDir, "users", user)).usage,
    storeUrl: request.dcc.storeUrl,
    ...(user !== undefined ? { owner: user } : {}),
    historyLimit: request.historyLimit,
  });
  try {
    const problem = await stores.store.startupProblem();
    if (problem !== null) return refusal("invalid_input", `the playbook store cannot be used: ${problem}`);
    return await playbookToPromote(stores.store, request.slug, request.revision, request.dcc.name);
  } finally {
    await stores.close();
  }
}
