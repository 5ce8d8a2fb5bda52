import { sql } from 'kysely';
import type { ActorContext } from '../context.js';
import { nowIso } from '../db/values.js';
import { AppError, repositoryEmpty } from '../errors.js';
import { listBranchTips } from '../git/index.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { hashToken } from '../accounts/token-secrets.js';
import { newId } from '../ids.js';
import { branchIssues, shortBranchName } from '../changes/input-rules.js';
import { assertUnderSessionCap } from './session-cap.js';
import { loadProjectForSessions } from './session-access.js';
import type { SessionRow } from './session-row.js';
import { sessionsOf } from './session-services.js';
import { cliTokenOf, sandboxTokenOf } from './session-tokens.js';
import { inTransaction } from '../db/in-transaction.js';

export interface CreateSessionInput {
  projectId: string;
  agent?: string | undefined;
  model?: string | undefined;
  prompt?: string | undefined;
  base_ref?: string | undefined;
  triggerSlug?: string | undefined;
  /** A trigger fire decides its session's id when it is recorded, so a retry after a crash starts that one session. */
  id?: string | undefined;
}

const ZERO_SHA = '0'.repeat(40);
/** What the agent's CLI token may do: read, open CRs and push its branch, publish dashboards (never merge). */
export const CLI_TOKEN_CAPABILITIES = ['project.read', 'project.write', 'project.gitops.push', 'dashboards.publish'] as const;

/**
 * POST /v1/projects/:id/sessions (contract §6): the session is stored `provisioning` with its branch cut from
 * base_ref and its two tokens, and answered at once; the sandbox starts after the answer.
 */
export async function createSession(ctx: ActorContext, input: CreateSessionInput): Promise<SessionRow> {
  const project = await loadProjectForSessions(ctx, input.projectId, 'write');
  const baseRef = shortBranchName(input.base_ref ?? project.default_branch);
  const issues = branchIssues('base_ref', baseRef);
  if (issues.length > 0) throw new AppError('VALIDATION_FAILED', `base_ref is not a branch name: ${issues[0]?.message ?? ''}`, { issues });

  const repo = await openProjectRepository(ctx, project);
  await repo.refresh({ force: repo.kind === 'mirror' });
  const tips = await listBranchTips(repo.path);
  const baseSha = tips.get(baseRef);
  if (!baseSha) {
    if (tips.size === 0) {
      throw repositoryEmpty(`The repository of project ${project.slug} has no commits yet, so there is nothing to branch from; push a first commit to ${project.default_branch}.`);
    }
    const known = [...tips.keys()].sort().slice(0, 10).join(', ');
    throw new AppError('VALIDATION_FAILED', `base_ref ${JSON.stringify(baseRef)} is not a branch of the repository; branches include: ${known}.`, {
      issues: [{ path: '/base_ref', message: `no branch ${JSON.stringify(baseRef)} in the repository` }],
    });
  }

  const { secretKey, supervisor } = sessionsOf(ctx);
  const now = nowIso();
  const id = input.id ?? newId();
  const session: SessionRow = {
    id,
    project_id: project.id,
    account_id: project.account_id,
    status: 'provisioning',
    base_ref: baseRef,
    branch: id,
    agent: input.agent ?? null,
    model: input.model ?? null,
    trigger_slug: input.triggerSlug ?? null,
    created_by: ctx.actor.userId,
    created_at: now,
    updated_at: now,
    last_activity_at: now,
    error: null,
    runtime_session_id: null,
    initial_prompt: input.prompt ?? null,
    initial_prompt_sent_at: null,
    lease_expires_at: null,
    sandbox_provider: supervisor.provider.name,
    sandbox_state: 'provisioning',
    sandbox_ref: null,
    daemon_url: null,
    sandbox_unstopped_since: null,
  };
  // The branch first: a session row always has its branch. A failed insert (over the cap) leaves a branch
  // nobody uses, named by an id nobody holds; it is removed right away.
  await repo.compareAndSwapBranch(session.branch, baseSha, ZERO_SHA, { builtOnOldSha: true });
  try {
    await inTransaction(ctx, async ({ db: trx }) => {
      if (ctx.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`svc sessions ${project.account_id}`}))`.execute(trx);
      await trx.insertInto('sessions').values(session).execute();
      await assertUnderSessionCap(trx, project.account_id, ctx.config.sessions.maxSessions);
      const token = (kind: 'sandbox' | 'project', name: string, value: string, capabilities: readonly string[], pushRef: string | null) => ({
        id: newId(),
        account_id: project.account_id,
        kind,
        name,
        token_hash: hashToken(value),
        user_id: ctx.actor.userId,
        project_id: project.id,
        capabilities: JSON.stringify(capabilities),
        created_at: now,
        expires_at: null,
        session_id: id,
        push_ref: pushRef,
      });
      await trx
        .insertInto('tokens')
        .values([
          token('sandbox', `sandbox of session ${id}`, sandboxTokenOf(secretKey, id), [], null),
          token('project', `svc CLI in session ${id}`, cliTokenOf(secretKey, id), CLI_TOKEN_CAPABILITIES, `refs/heads/${id}`),
        ])
        .execute();
    });
  } catch (error) {
    await repo.compareAndSwapBranch(session.branch, ZERO_SHA, baseSha, { builtOnOldSha: true }).catch(() => undefined);
    throw error;
  }
  supervisor.boot(project, session);
  return session;
}
