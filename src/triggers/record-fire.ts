/**
 * A webhook or manual fire is recorded before it is answered: its session (or the session it re-prompts) is
 * decided and named in the answer, and whether it waits for a slot. Starting it is start-fire.ts's, after
 * the answer, so a slow sandbox never makes a sender wait and a crash in between loses nothing.
 */
import type { Insertable } from 'kysely';
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import type { TriggerFireSource, TriggerFiresTable } from '../db/schema.js';
import { newId } from '../ids.js';
import type { NormalizedTrigger } from '../manifest/index.js';
import { planTarget, waitReason } from './plan-fire.js';
import type { TriggerFireRow } from './trigger-row.js';

export interface FireInput {
  project: ProjectRow;
  trigger: NormalizedTrigger;
  source: TriggerFireSource;
  prompt: string;
  actorUserId: string;
  firedAt: string;
  deliveryId?: string | null;
}

export function newFireRow(input: FireInput & { dueAt?: string | null }): Insertable<TriggerFiresTable> {
  return {
    id: newId(),
    project_id: input.project.id,
    account_id: input.project.account_id,
    trigger_slug: input.trigger.slug,
    source: input.source,
    status: 'fired',
    session_id: null,
    session_mode: input.trigger.session_mode,
    target: 'undecided',
    fallback: null,
    reason: null,
    prompt: input.prompt,
    agent: input.trigger.agent,
    model: input.trigger.model,
    actor_user_id: input.actorUserId,
    delivery_id: input.deliveryId ?? null,
    fired_at: input.firedAt,
    due_at: input.dueAt ?? null,
    started_at: null,
    claimed_by: null,
    claimed_until: null,
  };
}

/** Records the fire; the caller emits `triggers.fired` once it has answered, which starts it. */
export async function recordFire(services: Services, input: FireInput): Promise<TriggerFireRow> {
  const target = await planTarget(services.db, input.project.id, input.trigger);
  const reason = await waitReason(services.db, { accountId: input.project.account_id, maxSessions: services.config.sessions.maxSessions, target });
  const row = {
    ...newFireRow(input),
    status: reason ? ('queued' as const) : ('fired' as const),
    reason,
    session_id: target.sessionId,
    target: target.target,
    fallback: target.fallback,
  };
  // Group commit on SQLite: a burst of deliveries shares one commit.
  await services.transactions.run(async (trx) => {
    await trx.insertInto('trigger_fires').values(row).execute();
    await trx.updateTable('triggers').set({ last_fired_at: input.firedAt }).where('project_id', '=', input.project.id).where('slug', '=', input.trigger.slug).execute();
  });
  return { ...row, attempts: 0 } as TriggerFireRow;
}
