import { sql, type Transaction } from 'kysely';
import type { ProjectRow } from '../accounts/access.js';
import type { ActorContext } from '../context.js';
import { isUniqueViolation } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { nowIso } from '../db/values.js';
import { AppError, crAlreadyOpen } from '../errors.js';
import { countAhead } from '../git/index.js';
import { type ProjectRepository } from '../repositories/project-repository.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { newId } from '../ids.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { readBranchesForWrite } from './live-branches.js';
import { assertNoIssues, branchIssues, descriptionIssues, shortBranchName, titleIssues } from './input-rules.js';
import { inTransaction } from '../db/in-transaction.js';

export interface CreateChangeRequestInput {
  projectId: string;
  title: string;
  description?: string | undefined;
  head_ref: string;
  base_ref?: string | undefined;
  session_id?: string | undefined;
}

/**
 * POST /change-requests (spec 2 "Validation on POST create"): checks the request, resolves both branch
 * tips as the CR's anchor SHAs, requires head to have a commit base lacks (after a forced re-fetch of a
 * mirror, so a push that just landed upstream counts), and stores the CR under the project's next number.
 */
export async function createChangeRequest(ctx: ActorContext, input: CreateChangeRequestInput): Promise<ChangeRequestRow> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'open');
  const headRef = shortBranchName(input.head_ref);
  const baseRef = shortBranchName(input.base_ref ?? project.default_branch);
  assertNoIssues([
    ...titleIssues(input.title),
    ...descriptionIssues(input.description),
    ...branchIssues('head_ref', headRef),
    ...branchIssues('base_ref', baseRef),
  ]);
  if (headRef === baseRef) {
    throw new AppError('VALIDATION_FAILED', `head_ref and base_ref are both ${JSON.stringify(baseRef)}; a change request merges one branch into another, so push your work to its own branch.`, {
      issues: [{ path: '/head_ref', message: 'must differ from the base branch' }],
    });
  }

  const repo = await openProjectRepository(ctx, project);
  const anchors = await resolveAnchors(repo, { project, headRef, baseRef });
  const originSessionId = await knownSessionOf(ctx, project, input.session_id);

  const now = nowIso();
  const row: Omit<ChangeRequestRow, 'number'> = {
    id: newId(),
    account_id: project.account_id,
    project_id: project.id,
    title: input.title.trim(),
    description: input.description ?? '',
    base_ref: baseRef,
    head_ref: headRef,
    status: 'open',
    head_commit_sha: anchors.headSha,
    base_commit_sha: anchors.baseSha,
    origin_session_id: originSessionId,
    created_by: ctx.actor.userId,
    merged_at: null,
    merged_by: null,
    merge_commit_sha: null,
    closed_at: null,
    closed_by: null,
    metadata: '{}',
    created_at: now,
    updated_at: now,
  };
  try {
    const number = await inTransaction(ctx, async ({ db: trx }) => {
      const next = await takeNextNumber(trx, project.id);
      await trx
        .insertInto('change_requests')
        .values({ ...row, number: next, metadata: '{}' })
        .execute();
      return next;
    });
    return { ...row, number, metadata: {} };
  } catch (error) {
    if (isUniqueViolation(error)) throw await alreadyOpen(ctx, project, headRef, baseRef, error);
    throw error;
  }
}

/**
 * The next per-project number, from a counter row bumped inside the insert's transaction. On PostgreSQL the
 * upsert holds the row lock until commit, so concurrent creates on any number of replicas queue on it; the
 * counter only grows, so a number is never handed out twice (closing a CR does not free it).
 */
async function takeNextNumber(trx: Transaction<Database>, projectId: string): Promise<number> {
  const counter = await trx
    .insertInto('change_request_counters')
    .values({ project_id: projectId, last_number: 1 })
    .onConflict((conflictClause) =>
      conflictClause.column('project_id').doUpdateSet({ last_number: sql<number>`${sql.ref('change_request_counters.last_number')} + 1` }),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return Number(counter.last_number);
}

interface Anchors {
  headSha: string;
  baseSha: string;
}

async function resolveAnchors(repo: ProjectRepository, branches: { project: ProjectRow; headRef: string; baseRef: string }): Promise<Anchors> {
  const only = [branches.headRef, branches.baseRef];
  let tips = await readBranchesForWrite(repo, { only });
  let verdict = await compareBranches(repo, tips, branches);
  // Spec 2 rule 6: a mirror may not have seen a push that just landed upstream; fetch before concluding.
  if (verdict.kind !== 'ahead' && repo.kind === 'mirror') {
    tips = await readBranchesForWrite(repo, { only, force: true });
    verdict = await compareBranches(repo, tips, branches);
  }
  if (verdict.kind === 'ahead') return verdict.anchors;
  if (verdict.kind === 'no-base') {
    throw new AppError('VALIDATION_FAILED', `The base branch ${JSON.stringify(branches.baseRef)} does not exist in the repository; push it first, or pass base_ref (svc cr open --base) naming an existing branch.`, {
      issues: [{ path: '/base_ref', message: `branch ${branches.baseRef} does not exist in the repository` }],
    });
  }
  const why =
    verdict.kind === 'no-head'
      ? `The branch ${JSON.stringify(branches.headRef)} does not exist in the repository`
      : `The branch ${JSON.stringify(branches.headRef)} has no commit that ${JSON.stringify(branches.baseRef)} lacks`;
  throw new AppError('CR_HEAD_NOT_AHEAD', `${why}; commit your work and push your branch first: git push origin HEAD`);
}

type Verdict = { kind: 'ahead'; anchors: Anchors } | { kind: 'no-head' } | { kind: 'no-base' } | { kind: 'not-ahead' };

async function compareBranches(repo: ProjectRepository, tips: ReadonlyMap<string, string>, branches: { headRef: string; baseRef: string }): Promise<Verdict> {
  const headSha = tips.get(branches.headRef);
  const baseSha = tips.get(branches.baseRef);
  if (baseSha === undefined) return headSha === undefined ? { kind: 'no-head' } : { kind: 'no-base' };
  if (headSha === undefined) return { kind: 'no-head' };
  const ahead = await countAhead(repo.path, baseSha, headSha);
  return ahead > 0 ? { kind: 'ahead', anchors: { headSha, baseSha } } : { kind: 'not-ahead' };
}

/** Spec 2 rule 4: a session id that names no session of this project is dropped, not an error. */
async function knownSessionOf(ctx: ActorContext, project: ProjectRow, sessionId: string | undefined): Promise<string | null> {
  if (sessionId === undefined || sessionId === '') return null;
  const session = await ctx.db
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionId)
    .where('project_id', '=', project.id)
    .executeTakeFirst();
  return session?.id ?? null;
}

/** The unique violation is the one-open-CR-per-branch-pair rule: answer with the CR that already exists. */
async function alreadyOpen(ctx: ActorContext, project: ProjectRow, headRef: string, baseRef: string, error: unknown): Promise<unknown> {
  const existing = await ctx.db
    .selectFrom('change_requests')
    .select(['number', 'id'])
    .where('project_id', '=', project.id)
    .where('head_ref', '=', headRef)
    .where('base_ref', '=', baseRef)
    .where('status', '=', 'open')
    .executeTakeFirst();
  if (!existing) return error;
  return crAlreadyOpen(
    `Change request #${existing.number} is already open for ${headRef} → ${baseRef}; new pushes to ${headRef} appear in it, so there is no need for another (see svc cr show ${existing.number}).`,
    { cr_id: existing.id, number: existing.number },
  );
}
