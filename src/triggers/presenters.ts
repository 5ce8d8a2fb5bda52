import type { TriggerError } from '../manifest/index.js';
import { readBool } from '../db/values.js';
import { definitionOf, type TriggerFireRow, type TriggerRow } from './trigger-row.js';

/** Exactly the trigger keys of contract §7. */
export function presentTrigger(row: TriggerRow) {
  const trigger = definitionOf(row);
  const cron = trigger.type === 'cron' ? trigger : null;
  return {
    slug: row.slug,
    name: trigger.name,
    type: trigger.type,
    enabled: readBool(row.enabled),
    session_mode: trigger.session_mode,
    session_id: trigger.session_id,
    cron: cron?.cron ?? null,
    run_at: cron?.run_at ?? null,
    timezone: cron?.timezone ?? null,
    agent: trigger.agent,
    model: trigger.model,
    last_fired_at: row.last_fired_at,
    next_fire_at: row.next_fire_at,
  };
}

export function presentTriggerError(error: TriggerError) {
  return { index: error.index, slug: error.slug, message: error.message };
}

/** Contract §7's fire keys, plus the session-mode fallback taken (spec 3: recorded on the fire). */
export function presentFire(row: TriggerFireRow) {
  return {
    id: row.id,
    source: row.source,
    status: row.status,
    session_id: row.session_id,
    reason: row.reason,
    fallback: row.fallback,
    fired_at: row.fired_at,
  };
}

/** The 202 of the receiver and of fire-now: `fired` with the session, `queued` with why, `duplicate`. */
export function presentFireAnswer(row: Pick<TriggerFireRow, 'id' | 'status' | 'session_id' | 'reason'>) {
  if (row.status === 'queued') return { status: 'queued' as const, reason: row.reason ?? '', fire_id: row.id, session_id: row.session_id };
  return { status: row.status, session_id: row.session_id, fire_id: row.id };
}
