import type { Services } from '../context.js';
import { resolveBranchTips } from '../git/branch-tips.js';
import { isAncestor, RefNotFoundError } from '../git/index.js';
import { openProjectRepository } from '../git/project-repository.js';
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
    let landed: boolean;
    try {
      const repo = await openProjectRepository(services, project);
      landed = await baseContains(repo.path, intent.base_ref, intent.merge_commit_sha);
      // A mirror's own branch follows a merge push at once, so the local answer is usually final; only a
      // "no" needs the upstream's word (the crash may have come between the push and that step).
      if (!landed && repo.kind === 'mirror') {
        await repo.refresh({ force: true });
        landed = await baseContains(repo.path, intent.base_ref, intent.merge_commit_sha);
      }
    } catch {
      summary.kept.push(intent.cr_id);
      continue;
    }
    if (landed) {
      await recordLandedMerge(services, {
        crId: intent.cr_id,
        baseShaBefore: intent.base_sha_before,
        headSha: intent.head_sha,
        mergeCommitSha: intent.merge_commit_sha,
        mergedBy: intent.merged_by,
        mergedAt: intent.created_at,
      });
      summary.finished.push(intent.cr_id);
    } else {
      await services.db.deleteFrom('merge_intents').where('cr_id', '=', intent.cr_id).execute();
      summary.dropped.push(intent.cr_id);
    }
  }
  return summary;
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
