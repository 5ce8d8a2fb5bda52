import type { ActorContext } from '../context.js';
import { nowIso } from '../db/values.js';
import { AppError, baseMoved, branchMissing, crWrongStatus, mergeInProgress, notFound } from '../errors.js';
import {
  prepareMerge,
  PushRejectedError,
  RefUpdateRaceError,
  type PreparedMerge,
  type PrepareMergeOptions,
} from '../git/index.js';
import { previewMerge } from '../git/merge.js';
import { UpstreamUnavailableError, type ProjectRepository } from '../repositories/project-repository.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { findChangeRequest } from './find-change-request.js';
import { gitRefusal } from './git-refusals.js';
import type { ChangeRequestLocator } from './get-change-request.js';
import { readBranchesForWrite } from './live-branches.js';
import { assertHeadManifestValid, sandboxMaximumsOf } from './manifest-gate.js';
import type { SandboxMaximums } from '../manifest/index.js';
import { claimAbandonedIntent, newIntentOwner, writeMergeIntent, type IntentLease } from './merge-intent-lease.js';
import { inMergeQueue } from './merge-queue.js';
import { recordLandedMerge, type LandedMerge } from './record-landed-merge.js';
import { settleMergeIntent, type SettledIntent } from './repair-interrupted-merges.js';

export interface MergeChangeRequestInput extends ChangeRequestLocator {
  /** The merge commit's message; default `Merge CR #<n>: <title>`. Unused for a fast-forward. */
  message?: string | undefined;
}

export interface MergeOutcome {
  row: ChangeRequestRow;
  mergeCommitSha: string;
  /** Base moved to head without a merge commit (head was strictly ahead, or already contained in base). */
  fastForward: boolean;
}

/** Base can move under a merge (a push, another replica's merge); each loss recomputes, this many times at most. */
const MAX_ATTEMPTS = 10;
const MAX_MESSAGE_LENGTH = 65_536;

/**
 * POST /change-requests/:crId/merge (spec 2 "Merge mechanics"):
 * 1. the manifest gate on the head tip (422 MANIFEST_INVALID, nothing merged);
 * 2. merge-tree on the current tips: fast-forward when head is strictly ahead, else a merge commit by the
 *    service identity (409 MERGE_CONFLICT with the paths when it conflicts);
 * 3. a merge intent row, held by this request's heartbeat (merge-intent-lease.ts), then base moves by
 *    compare-and-swap from the tip the merge was computed on (never a force; a lost race recomputes from
 *    the new tip);
 * 4. the CR is recorded as merged and the intent deleted in one transaction. When the process dies between
 *    3 and 4 its heartbeat stops, and within seconds any replica settles the intent (repairInterruptedMerges,
 *    or the next merge of the CR) from whether base contains the merge commit.
 */
export async function mergeChangeRequest(ctx: ActorContext, input: MergeChangeRequestInput): Promise<MergeOutcome> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'merge');
  const found = await findChangeRequest(ctx, project, input.crRef);
  assertOpen(found);
  const message = mergeMessage(found, input.message);
  const repo = await openProjectRepository(ctx, project);

  return inMergeQueue(repo.path, async () => {
    const earlier = await settleAbandonedMerge(ctx, repo, found);
    if (earlier) return earlier;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const row = await reload(ctx, found);
      assertOpen(row);
      // A lost race on a mirror means the upstream moved: fetch before recomputing.
      const tips = await readBranchesForWrite(repo, { only: [row.head_ref, row.base_ref], force: attempt > 1 });
      const baseSha = tips.get(row.base_ref);
      const headSha = tips.get(row.head_ref);
      if (headSha === undefined) throw branchMissing(`The branch ${row.head_ref} of change request #${row.number} does not exist; push it again (git push origin HEAD) before merging.`);
      if (baseSha === undefined) throw branchMissing(`The base branch ${row.base_ref} of change request #${row.number} does not exist in the repository.`);

      const merge = await gateThenPrepare(repo, row, { baseSha, headSha, message, author: ctx.config.mergeAuthor, sandboxMaximums: sandboxMaximumsOf(ctx.config) });
      const landed = { crId: row.id, baseShaBefore: baseSha, headSha, mergeCommitSha: merge.commitSha, mergedBy: ctx.actor.userId, mergedAt: nowIso() };

      if (merge.kind === 'up-to-date') {
        // Head is already contained in base (merged by hand, or by another CR): like GitHub, the CR is
        // recorded as merged, with head as the commit that brought it; base does not move.
        return { row: await recordLandedMerge(ctx, { ...landed, mergeCommitSha: headSha }), mergeCommitSha: headSha, fastForward: true };
      }

      const fastForward = merge.kind === 'fast-forward';
      const lease = await writeIntent(ctx, row, { ...landed, fastForward, baseRef: row.base_ref, projectId: project.id });
      try {
        // A renewal found the intent claimed by another replica (this process stalled past the timeout):
        // that replica settles it from base, so base must not move now.
        if (lease.lost) throw mergeUnderWay(row);
        // prepareMerge built the commit on baseSha (merge parent, or a fast-forward decided from the merge base).
        await repo.compareAndSwapBranch(row.base_ref, merge.commitSha, baseSha, { builtOnOldSha: true });
      } catch (error) {
        if (error instanceof RefUpdateRaceError || error instanceof PushRejectedError || lease.lost) {
          // Base certainly did not move.
          lease.stop();
          await ctx.db.deleteFrom('merge_intents').where('cr_id', '=', row.id).where('owner', '=', lease.owner).execute();
          if (error instanceof RefUpdateRaceError) continue;
          throw gitRefusal(row, error);
        }
        // Anything else (a mirror's push cut off or timed out) may have come after the upstream took the
        // merge: base decides, as after a crash.
        try {
          const settled = await settleAfterFailedSwap(ctx, repo, row, landed, lease.owner, error);
          return { row: settled, mergeCommitSha: merge.commitSha, fastForward };
        } finally {
          lease.stop();
          repo.invalidate();
        }
      }
      try {
        const recorded = await recordLandedMerge(ctx, landed);
        return { row: recorded, mergeCommitSha: merge.commitSha, fastForward };
      } finally {
        lease.stop();
        repo.invalidate();
      }
    }
    throw baseMoved(`${found.base_ref} kept moving while change request #${found.number} was being merged (${MAX_ATTEMPTS} attempts); try again.`);
  });
}

/**
 * After a failed move of base whose outcome is unknown: the CR recorded as merged when base holds the
 * merge commit; otherwise the failure stands (the intent dropped), and when even that cannot be told,
 * the intent stays, its heartbeat stopped, so every replica's sweeper retries it (repairInterruptedMerges)
 * until the repository answers, and the answer says so.
 */
async function settleAfterFailedSwap(
  ctx: ActorContext,
  repo: ProjectRepository,
  row: ChangeRequestRow,
  landed: LandedMerge,
  owner: string,
  failure: unknown,
): Promise<ChangeRequestRow> {
  let settled: SettledIntent;
  try {
    settled = await settleMergeIntent(ctx, repo, {
      cr_id: landed.crId,
      base_ref: row.base_ref,
      base_sha_before: landed.baseShaBefore,
      head_sha: landed.headSha,
      merge_commit_sha: landed.mergeCommitSha,
      merged_by: landed.mergedBy,
      created_at: landed.mergedAt,
      owner,
    });
  } catch {
    throw new UpstreamUnavailableError(
      `Moving ${row.base_ref} to the merge of change request #${row.number} failed (${failure instanceof Error ? failure.message : String(failure)}), ` +
        `and the repository cannot be read to tell whether the merge landed. svc settles it from ${row.base_ref} as soon as the repository answers again ` +
          `(it tries every ${Math.ceil(ctx.config.mergeHeartbeatTimeoutMs / 2_000)} seconds); see svc cr show ${row.number}.`,
      { cause: failure },
    );
  }
  if (settled.landed) return settled.row;
  throw failure;
}

function assertOpen(row: ChangeRequestRow): void {
  if (row.status === 'open') return;
  throw crWrongStatus(
    row.status === 'merged'
      ? `Change request #${row.number} is already merged (${row.merge_commit_sha ?? 'no commit recorded'}).`
      : `Change request #${row.number} is closed; reopen it (svc cr reopen ${row.number}) before merging.`,
  );
}

function mergeMessage(row: ChangeRequestRow, requested: string | undefined): string {
  if (requested === undefined) return `Merge CR #${row.number}: ${row.title}`;
  if (requested.trim().length === 0 || requested.length > MAX_MESSAGE_LENGTH) {
    throw new AppError('VALIDATION_FAILED', 'The merge message must not be empty (leave it out for the default "Merge CR #<n>: <title>").', {
      issues: [{ path: '/message', message: requested.trim().length === 0 ? 'must not be empty' : `must be at most ${MAX_MESSAGE_LENGTH} characters` }],
    });
  }
  return requested;
}

async function reload(ctx: ActorContext, row: ChangeRequestRow): Promise<ChangeRequestRow> {
  const current = await ctx.db.selectFrom('change_requests').selectAll().where('id', '=', row.id).executeTakeFirst();
  if (!current) throw notFound('change request', String(row.number));
  return current;
}

/**
 * The merge is computed first (merge-base and merge-tree side by side); the manifest gate then runs beside
 * commit-tree, so no more than two git processes run at once. The gate's verdict still comes first (spec 2:
 * an invalid manifest is a 422 even when the merge would also conflict). A merge commit written for a
 * refused gate is an unreferenced object that git's gc collects.
 */
async function gateThenPrepare(
  repo: ProjectRepository,
  row: ChangeRequestRow,
  options: { baseSha: string; headSha: string; message: string; author: { name: string; email: string }; sandboxMaximums: SandboxMaximums },
): Promise<PreparedMerge> {
  const preview = await previewMerge(repo.path, options);
  const [gate, merge] = await Promise.allSettled([assertHeadManifestValid(repo.path, options.headSha, options.sandboxMaximums), prepare(repo, row, { ...options, preview })]);
  if (gate.status === 'rejected') throw gate.reason;
  if (merge.status === 'rejected') throw merge.reason;
  return merge.value;
}

/** prepareMerge on a computed preview (only commit-tree runs), with its refusals in the API's words. */
async function prepare(repo: ProjectRepository, row: ChangeRequestRow, options: PrepareMergeOptions): Promise<PreparedMerge> {
  try {
    return await prepareMerge(repo.path, options);
  } catch (error) {
    throw gitRefusal(row, error);
  }
}

/**
 * An earlier merge of the CR whose outcome was never recorded (its process died, or its push failed in a
 * way that left it unknown, and nothing has settled it since) is settled from base before this one is
 * computed: when it landed, the CR is merged by it, and that is the answer. One whose merger is alive
 * (its heartbeat renewed within the timeout, on any replica) is 409.
 */
async function settleAbandonedMerge(ctx: ActorContext, repo: ProjectRepository, row: ChangeRequestRow): Promise<MergeOutcome | undefined> {
  const earlier = await ctx.db.selectFrom('merge_intents').selectAll().where('cr_id', '=', row.id).executeTakeFirst();
  if (!earlier) return undefined;
  const lease = await claimAbandonedIntent(ctx, earlier, newIntentOwner());
  if (!lease) throw mergeUnderWay(row);
  let settled: SettledIntent;
  try {
    settled = await settleMergeIntent(ctx, repo, { ...earlier, owner: lease.owner });
  } finally {
    lease.stop();
  }
  if (!settled.landed) return undefined;
  return { row: settled.row, mergeCommitSha: earlier.merge_commit_sha, fastForward: Boolean(earlier.fast_forward) };
}

function mergeUnderWay(row: ChangeRequestRow): AppError {
  return mergeInProgress(`Change request #${row.number} is being merged by another request right now; check it again in a moment.`);
}

async function writeIntent(
  ctx: ActorContext,
  row: ChangeRequestRow,
  intent: { projectId: string; baseRef: string; baseShaBefore: string; headSha: string; mergeCommitSha: string; fastForward: boolean; mergedBy: string; mergedAt: string },
): Promise<IntentLease> {
  const lease = await writeMergeIntent(ctx, {
    cr_id: row.id,
    project_id: intent.projectId,
    base_ref: intent.baseRef,
    base_sha_before: intent.baseShaBefore,
    head_sha: intent.headSha,
    merge_commit_sha: intent.mergeCommitSha,
    fast_forward: intent.fastForward,
    merged_by: intent.mergedBy,
    created_at: intent.mergedAt,
  });
  if (!lease) throw mergeUnderWay(row);
  return lease;
}
