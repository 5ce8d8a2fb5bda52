import type { Services } from '../context.js';
import { nowIso } from '../db/values.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { afterCommit, inTransaction } from '../db/in-transaction.js';

/** A merge whose commit is on base: what spec 2 rule 4 records on the CR. */
export interface LandedMerge {
  crId: string;
  /** base_commit_sha: the base tip before the merge. */
  baseShaBefore: string;
  /** head_commit_sha: the head tip the merge was computed from. */
  headSha: string;
  /** merge_commit_sha: the merge commit, or the fast-forward target (= headSha). */
  mergeCommitSha: string;
  mergedBy: string;
  mergedAt: string;
}

/**
 * Marks the CR merged and deletes its merge intent in one transaction: either both happen or neither, so a
 * crash leaves the intent for repairInterruptedMerges. The repository is the truth: once the commit is on
 * base the CR is recorded as merged even if it was closed in the meantime; a CR already recorded as merged
 * (by a concurrent request or by a repair) keeps its record.
 */
export async function recordLandedMerge(ctx: Services, merge: LandedMerge): Promise<ChangeRequestRow> {
  return inTransaction(ctx, async (tx) => {
    const trx = tx.db;
    await trx
      .updateTable('change_requests')
      .set({
        status: 'merged',
        merged_at: merge.mergedAt,
        merged_by: merge.mergedBy,
        merge_commit_sha: merge.mergeCommitSha,
        head_commit_sha: merge.headSha,
        base_commit_sha: merge.baseShaBefore,
        closed_at: null,
        closed_by: null,
        updated_at: nowIso(),
      })
      .where('id', '=', merge.crId)
      .where('status', '<>', 'merged')
      .execute();
    await trx.deleteFrom('merge_intents').where('cr_id', '=', merge.crId).execute();
    const recorded = await trx.selectFrom('change_requests').selectAll().where('id', '=', merge.crId).executeTakeFirstOrThrow();
    // Base moved: the manifest there (its triggers) is read again, once the record is committed.
    afterCommit(tx, () => ctx.events.emit('project.branch-moved', { projectId: recorded.project_id }));
    return recorded;
  });
}
