import type { Selectable } from 'kysely';
import type { BackgroundTask } from '../background/task-runner.js';
import type { Services } from '../context.js';
import type { MergeIntentsTable } from '../db/schema.js';
import { resolveBranchTips } from '../git/branch-tips.js';
import { isAncestor, RefNotFoundError } from '../git/index.js';
import { type ProjectRepository } from '../repositories/project-repository.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { claimAbandonedIntent, listAbandonedIntents, newIntentOwner } from './merge-intent-lease.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { recordLandedMerge } from './record-landed-merge.js';

export interface RepairSummary {
  /** Intents whose commit had reached base: their CRs are now recorded as merged. */
  finished: string[];
  /** Intents whose commit never reached base: dropped, their CRs stay open. */
  dropped: string[];
  /** Intents that could not be decided (repository unreachable): kept for the next start. */
  kept: string[];
}

/**
 * Settles merges whose process died mid-way (see mergeChangeRequest and merge-intent-lease.ts): each
 * abandoned merge intent is claimed, then if base now contains the merge commit the CR is recorded as
 * merged, exactly as the dead request would have; otherwise base never moved and the intent is dropped.
 * An intent still renewed by a live merger (on this replica or another) is left alone. Run at server
 * start and then every few seconds by each replica (startMergeIntentSweeper).
 */
export async function repairInterruptedMerges(services: Services): Promise<RepairSummary> {
  const summary: RepairSummary = { finished: [], dropped: [], kept: [] };
  for (const intent of await listAbandonedIntents(services)) {
    const project = await services.db.selectFrom('projects').selectAll().where('id', '=', intent.project_id).executeTakeFirst();
    if (!project) continue;
    const lease = await claimAbandonedIntent(services, intent, newIntentOwner());
    // Another replica claimed it first, or its merger turned out alive: theirs to settle.
    if (!lease) continue;
    let settled: SettledIntent;
    try {
      settled = await settleMergeIntent(services, await openProjectRepository(services, project), { ...intent, owner: lease.owner });
    } catch {
      // Kept: with its renewals stopped it is abandoned again after one timeout, and retried then.
      summary.kept.push(intent.cr_id);
      continue;
    } finally {
      lease.stop();
    }
    (settled.landed ? summary.finished : summary.dropped).push(intent.cr_id);
  }
  return summary;
}

/**
 * Every replica looks for abandoned intents twice per heartbeat timeout, so a merge whose process died is
 * settled within seconds even when nobody merges that CR again, and by the survivors of a cluster whose
 * workers are not restarted through a full start.
 */
/**
 * Settles merges whose process died mid-way, on this replica or another, within seconds. Every replica
 * runs it: taking over an abandoned intent is one conditional update, so only one replica settles each.
 */
export const mergeIntentSweep = (heartbeatTimeoutMs: number): BackgroundTask => ({
  name: 'merge-intent-sweep',
  runsOn: 'every-replica',
  intervalMs: Math.max(1, Math.floor(heartbeatTimeoutMs / 2)),
  async run({ services }) {
    await repairInterruptedMerges(services);
  },
});

export type SettledIntent = { landed: true; row: ChangeRequestRow } | { landed: false };

/** What settling an intent reads of it. */
export type MergeIntent = Pick<Selectable<MergeIntentsTable>, 'cr_id' | 'base_ref' | 'base_sha_before' | 'head_sha' | 'merge_commit_sha' | 'merged_by' | 'created_at'> & {
  /** Who holds the intent now: only that holder's row is dropped, never a newer merge's. */
  owner: string;
};

/**
 * Settles one merge intent from what base holds now: recorded as merged when base contains the merge
 * commit, dropped otherwise. Throws when the repository cannot tell (a mirror's upstream unreachable);
 * the intent is then kept. The caller holds the intent (its lease) while this runs. Also used by a merge whose push failed in a way that leaves this open.
 */
export async function settleMergeIntent(services: Services, repo: ProjectRepository, intent: MergeIntent): Promise<SettledIntent> {
  let landed = await baseContains(repo.path, intent.base_ref, intent.merge_commit_sha);
  // A mirror's own branch follows a merge push at once, so the local answer is usually final; only a
  // "no" needs the upstream's word (the crash or failure may have come between the push and that step).
  if (!landed && repo.kind === 'mirror') {
    await repo.refresh({ force: true });
    landed = await baseContains(repo.path, intent.base_ref, intent.merge_commit_sha);
  }
  if (!landed) {
    await services.db.deleteFrom('merge_intents').where('cr_id', '=', intent.cr_id).where('owner', '=', intent.owner).execute();
    return { landed: false };
  }
  const row = await recordLandedMerge(services, {
    crId: intent.cr_id,
    baseShaBefore: intent.base_sha_before,
    headSha: intent.head_sha,
    mergeCommitSha: intent.merge_commit_sha,
    mergedBy: intent.merged_by,
    mergedAt: intent.created_at,
  });
  return { landed: true, row };
}

/** A merge commit that was never written, or was garbage-collected, is not on base. */
async function baseContains(repoPath: string, baseRef: string, commit: string): Promise<boolean> {
  const tip = (await resolveBranchTips(repoPath, [baseRef])).get(baseRef);
  if (tip === undefined) return false;
  try {
    return await isAncestor(repoPath, commit, tip);
  } catch (error) {
    if (error instanceof RefNotFoundError) return false;
    throw error;
  }
}
