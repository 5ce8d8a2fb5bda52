/**
 * What a sandbox asks of svc with its own token (contract §6): a short-lived git credential, the execution
 * lease, and the runtime's root session. The token names its session; nothing else is reachable with it.
 */
import { cloneUrl } from '../projects/presenters.js';
import { generateToken, hashToken } from '../accounts/token-secrets.js';
import type { ActorContext } from '../context.js';
import { nowIso } from '../db/values.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { deliverPendingMessages } from './message-delivery.js';
import type { SessionRow } from './session-row.js';

/** A clone credential lives an hour; the daemon's credential helper asks for a new one whenever git needs one. */
export const CLONE_CREDENTIAL_TTL_MS = 60 * 60 * 1000;
/** `busy: true` keeps the lease three renew intervals, so one lost renewal does not end it. */
const LEASE_TTL_RENEWALS = 3;

async function sandboxSession(ctx: ActorContext): Promise<SessionRow> {
  const sessionId = ctx.actor.sessionId;
  const session = sessionId ? await ctx.db.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirst() : undefined;
  if (!session || session.sandbox_state === 'archived') throw new AppError('UNAUTHENTICATED', 'This sandbox token belongs to a session that was deleted.');
  return session;
}

export interface CloneCredential {
  username: string;
  password: string;
  url: string;
  expires_at: string;
}

export async function issueCloneCredential(ctx: ActorContext, projectId: string): Promise<CloneCredential> {
  const session = await sandboxSession(ctx);
  if (projectId.toLowerCase() !== session.project_id) throw new AppError('FORBIDDEN', 'A sandbox token reads only its own project; use SVC_PROJECT_ID.');
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', session.project_id).executeTakeFirstOrThrow();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + CLONE_CREDENTIAL_TTL_MS).toISOString();
  const token = generateToken('project');
  await ctx.db.deleteFrom('tokens').where('session_id', '=', session.id).where('name', '=', 'git clone credential').where('expires_at', '<', now.toISOString()).execute();
  await ctx.db
    .insertInto('tokens')
    .values({
      id: newId(),
      account_id: project.account_id,
      kind: 'project',
      name: 'git clone credential',
      token_hash: hashToken(token),
      user_id: session.created_by,
      project_id: project.id,
      capabilities: JSON.stringify(['project.read', 'project.gitops.push']),
      created_at: now.toISOString(),
      expires_at: expiresAt,
      session_id: session.id,
      push_ref: `refs/heads/${session.branch}`,
    })
    .execute();
  return { username: 'svc-session', password: token, url: cloneUrl(project, ctx.config), expires_at: expiresAt };
}

export async function updateLease(ctx: ActorContext, busy: boolean): Promise<{ lease_expires_at: string | null }> {
  const session = await sandboxSession(ctx);
  const now = Date.now();
  const leaseExpiresAt = busy ? new Date(now + LEASE_TTL_RENEWALS * ctx.config.sessions.leaseRenewMs).toISOString() : null;
  await ctx.db.updateTable('sessions').set({ lease_expires_at: leaseExpiresAt, last_activity_at: new Date(now).toISOString() }).where('id', '=', session.id).execute();
  return { lease_expires_at: leaseExpiresAt };
}

/** A runtime that comes up is activity: the agent is handed its first prompt now, and starts work a moment later. */
export async function reportRuntimeSession(ctx: ActorContext, runtimeSessionId: string): Promise<void> {
  const session = await sandboxSession(ctx);
  const now = nowIso();
  await ctx.db
    .updateTable('sessions')
    .set({ runtime_session_id: runtimeSessionId, updated_at: now, last_activity_at: now, ...(session.initial_prompt && !session.initial_prompt_sent_at ? { initial_prompt_sent_at: now } : {}) })
    .where('id', '=', session.id)
    .execute();
  void deliverPendingMessages(ctx, session.id).catch(() => undefined);
}
