import type { Selectable } from 'kysely';
import type { Services } from '../context.js';
import type { MergeIntentsTable } from '../db/schema.js';
import { resolveBranchTips } from '../git/branch-tips.js';
import { isAncestor, RefNotFoundError } from '../git/index.js';
import { openProjectRepository, type ProjectRepository } from '../git/project-repository.js';
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
 * Settles merges a crash interrupted (see mergeChangeRequest): for each merge intent left behind, if base
 * now contains the merge commit the CR is recorded as merged, exactly as the interrupted request would
 * have; otherwise base never moved and the intent is dropped. Run at server start.
 */
export async function repairInterruptedMerges(services: Services): Promise<RepairSummary> {
  const summary: RepairSummary = { finished: [], dropped: [], kept: [] };
  const intents = await services.db.selectFrom('merge_intents').selectAll().orderBy('created_at').execute();
  for (const intent of intents) {
    const project = await services.db.selectFrom('projects').selectAll().where('id', '=', intent.project_id).executeTakeFirst();
    if (!project) continue;
    let settled: SettledIntent;
    try {
      settled = await settleMergeIntent(services, await openProjectRepository(services, project), intent);
    } catch {
      summary.kept.push(intent.cr_id);
      continue;
    }
    (settled.landed ? summary.finished : summary.dropped).push(intent.cr_id);
  }
  return summary;
}

export type SettledIntent = { landed: true; row: ChangeRequestRow } | { landed: false };

/** What settling an intent reads of it. */
export type MergeIntent = Pick<Selectable<MergeIntentsTable>, 'cr_id' | 'base_ref' | 'base_sha_before' | 'head_sha' | 'merge_commit_sha' | 'merged_by' | 'created_at'>;

/**
 * Settles one merge intent from what base holds now: recorded as merged when base contains the merge
 * commit, dropped otherwise. Throws when the repository cannot tell (a mirror's upstream unreachable);
 * the intent is then kept. Also used by a merge whose push failed in a way that leaves this open.
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
    await services.db.deleteFrom('merge_intents').where('cr_id', '=', intent.cr_id).execute();
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
