/**
 * Starts a recorded fire: a fresh session under the id the fire named, or the message to the session it
 * re-prompts (waking it). A fire is claimed by one replica for a while before it starts, and both starts are
 * idempotent (the session id is the fire's; the message id is the fire id), so a replica that dies between
 * the claim and the start leaves a fire that another one starts, once.
 */
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import { resolveRef } from '../git/index.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { readJson } from '../db/values.js';
import type { NormalizedTrigger } from '../manifest/index.js';
import { createSession } from '../sessions/create-session.js';
import { queueMessage } from '../sessions/send-message.js';
import { planTarget, waitReason } from './plan-fire.js';
import { triggerActor } from './trigger-actor.js';
import type { TriggerFireRow } from './trigger-row.js';

/** A claim outlasts any start (a branch and a row; the sandbox boots after); past it another replica may retry. */
const CLAIM_MS = 60_000;
/** A fire that failed for reasons svc cannot name this many times is given up as failed. */
const MAX_ATTEMPTS = 5;
const ZERO_SHA = '0'.repeat(40);

export type StartOutcome = 'started' | 'queued' | 'failed' | 'not-claimed' | 'retry';

async function claim(services: Services, fireId: string, holder: string): Promise<TriggerFireRow | null> {
  const now = new Date();
  const claimed = await services.db
    .updateTable('trigger_fires')
    .set((eb) => ({ claimed_by: holder, claimed_until: new Date(now.getTime() + CLAIM_MS).toISOString(), attempts: eb('attempts', '+', 1) }))
    .where('id', '=', fireId)
    .where('started_at', 'is', null)
    .where('status', 'in', ['fired', 'queued'])
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now.toISOString())]))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return null;
  return (await services.db.selectFrom('trigger_fires').selectAll().where('id', '=', fireId).executeTakeFirst()) ?? null;
}

async function settle(services: Services, fire: TriggerFireRow, values: Partial<Pick<TriggerFireRow, 'status' | 'reason' | 'started_at' | 'session_id' | 'target' | 'fallback'>>): Promise<void> {
  await services.db
    .updateTable('trigger_fires')
    .set({ ...values, claimed_by: null, claimed_until: null })
    .where('id', '=', fire.id)
    .where('claimed_by', '=', fire.claimed_by)
    .execute();
}

export async function startFire(services: Services, fireId: string, holder: string): Promise<StartOutcome> {
  const fire = await claim(services, fireId, holder);
  if (!fire) return 'not-claimed';
  const project = await services.db.selectFrom('projects').selectAll().where('id', '=', fire.project_id).executeTakeFirst();
  if (!project) return 'not-claimed';
  try {
    let target = { target: fire.target, sessionId: fire.session_id, fallback: fire.fallback, active: false };
    if (fire.target === 'undecided' || fire.session_id === null) {
      const definition = await services.db.selectFrom('triggers').select('definition').where('project_id', '=', project.id).where('slug', '=', fire.trigger_slug).executeTakeFirst();
      const trigger = readJson<NormalizedTrigger | null>(definition?.definition, null);
      if (!trigger) {
        await settle(services, fire, { status: 'failed', reason: `trigger ${fire.trigger_slug} is no longer in the manifest`, started_at: new Date().toISOString() });
        return 'failed';
      }
      const planned = await planTarget(services.db, project.id, trigger);
      target = planned;
      await services.db.updateTable('trigger_fires').set({ target: planned.target, session_id: planned.sessionId, fallback: planned.fallback }).where('id', '=', fire.id).execute();
    } else if (fire.target === 'existing') {
      const session = await services.db.selectFrom('sessions').select('status').where('id', '=', fire.session_id).executeTakeFirst();
      target.active = session?.status === 'provisioning' || session?.status === 'running';
    }
    const reason = await waitReason(services.db, {
      accountId: fire.account_id,
      maxSessions: services.config.sessions.maxSessions,
      target: { target: target.target === 'existing' ? 'existing' : 'new', sessionId: target.sessionId ?? '', fallback: null, active: target.active },
      before: { firedAt: fire.fired_at, fireId: fire.id },
    });
    if (reason) {
      await settle(services, fire, { status: 'queued', reason });
      return 'queued';
    }
    if (!(await begin(services, project, { ...fire, target: target.target, session_id: target.sessionId }))) {
      // The session it re-prompts is another fire's, not created yet: tried again on the next pass.
      await settle(services, fire, {});
      return 'retry';
    }
    await settle(services, fire, { status: 'fired', reason: null, started_at: new Date().toISOString() });
    return 'started';
  } catch (error) {
    if (error instanceof AppError && error.code === 'TOO_MANY_SESSIONS') {
      await settle(services, fire, { status: 'queued', reason: error.message });
      return 'queued';
    }
    const given = error instanceof AppError && error.code !== 'UPSTREAM_UNAVAILABLE' && error.code !== 'INTERNAL';
    if (given || fire.attempts >= MAX_ATTEMPTS) {
      const reason = error instanceof Error ? error.message : String(error);
      await settle(services, fire, { status: 'failed', reason, started_at: new Date().toISOString() });
      return 'failed';
    }
    await settle(services, fire, {});
    throw error;
  }
}

/** Starts or re-prompts the fire's session; false when that session is another fire's still to be created. */
async function begin(services: Services, project: ProjectRow, fire: TriggerFireRow): Promise<boolean> {
  const sessionId = fire.session_id ?? '';
  const ctx = triggerActor(services, project, fire.actor_user_id, fire.trigger_slug);
  if (fire.target === 'existing') {
    const session = await services.db.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
    if (!session) {
      const creator = await services.db
        .selectFrom('trigger_fires')
        .select('id')
        .where('session_id', '=', sessionId)
        .where('target', '=', 'new')
        .where('started_at', 'is', null)
        .where('status', 'in', ['fired', 'queued'])
        .executeTakeFirst();
      if (creator) return false;
      throw new AppError('NOT_FOUND', `The session ${sessionId} this fire re-prompts was deleted.`);
    }
    await queueMessage(services, project, session, fire.prompt, 'trigger', { messageId: fire.id });
    return true;
  }
  if (await services.db.selectFrom('sessions').select('id').where('id', '=', sessionId).executeTakeFirst()) return true;
  if (fire.attempts > 1) await removeLeftoverBranch(services, project, sessionId);
  await createSession(ctx, {
    id: sessionId,
    projectId: project.id,
    agent: fire.agent ?? undefined,
    model: fire.model ?? undefined,
    prompt: fire.prompt,
    triggerSlug: fire.trigger_slug,
  });
  return true;
}

/** An earlier attempt that died after cutting the session branch and before its row: the branch goes first. */
async function removeLeftoverBranch(services: Services, project: ProjectRow, sessionId: string): Promise<void> {
  const repo = await openProjectRepository(services, project);
  const sha = await resolveRef(repo.path, sessionId);
  if (sha) await repo.compareAndSwapBranch(sessionId, ZERO_SHA, sha, { builtOnOldSha: true });
}
