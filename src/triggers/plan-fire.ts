/**
 * Which session a fire goes to (spec 3 session modes) and whether it waits for a slot (contract §7):
 * `fresh` starts a new session; `reuse` re-prompts the trigger's most recent session (waking it), else starts
 * fresh; `pinned` re-prompts its session_id, else the reusable one, else fresh. The fallback taken is a
 * sentence on the fire.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../ids.js';
import type { NormalizedTrigger } from '../manifest/index.js';
import { ACTIVE_STATUSES } from '../sessions/session-row.js';

export interface FireTarget {
  target: 'new' | 'existing';
  sessionId: string;
  /** Set when the pinned or reusable session was not there. */
  fallback: string | null;
  /** The existing session already holds a slot (provisioning or running). */
  active: boolean;
}

type SessionPick = { id: string; status: string } | undefined;

export async function planTarget(db: Kysely<Database>, projectId: string, trigger: NormalizedTrigger): Promise<FireTarget> {
  const existing = (session: { id: string; status: string }, fallback: string | null): FireTarget => ({
    target: 'existing',
    sessionId: session.id,
    fallback,
    active: (ACTIVE_STATUSES as readonly string[]).includes(session.status),
  });
  const fresh = (fallback: string | null): FireTarget => ({ target: 'new', sessionId: newId(), fallback, active: false });
  if (trigger.session_mode === 'fresh') return fresh(null);

  let pinnedGone: string | null = null;
  if (trigger.session_mode === 'pinned' && trigger.session_id) {
    const pinned: SessionPick = await db
      .selectFrom('sessions')
      .select(['id', 'status'])
      .where('id', '=', trigger.session_id)
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('sandbox_state', 'is', null), eb('sandbox_state', '<>', 'archived')]))
      .executeTakeFirst();
    if (pinned) return existing(pinned, null);
    pinnedGone = `the pinned session ${trigger.session_id} is gone`;
  }
  // A fire recorded a moment ago whose fresh session is not created yet is the trigger's most recent session:
  // its message waits in the outbox until that session exists, and never needs a slot of its own.
  const pending = await db
    .selectFrom('trigger_fires')
    .select('session_id')
    .where('project_id', '=', projectId)
    .where('trigger_slug', '=', trigger.slug)
    .where('target', '=', 'new')
    .where('started_at', 'is', null)
    .where('status', 'in', ['fired', 'queued'])
    .orderBy('fired_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (pending?.session_id) {
    const reusing = existing({ id: pending.session_id, status: 'provisioning' }, null);
    return pinnedGone ? { ...reusing, fallback: `${pinnedGone}; re-prompted the trigger's most recent session ${pending.session_id}` } : reusing;
  }
  const latest: SessionPick = await db
    .selectFrom('sessions')
    .select(['id', 'status'])
    .where('project_id', '=', projectId)
    .where('trigger_slug', '=', trigger.slug)
    .where((eb) => eb.or([eb('sandbox_state', 'is', null), eb('sandbox_state', '<>', 'archived')]))
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (latest) return existing(latest, pinnedGone ? `${pinnedGone}; re-prompted the trigger's most recent session ${latest.id}` : null);
  return fresh(
    pinnedGone
      ? `${pinnedGone} and the trigger has no earlier session; started a fresh one`
      : 'the trigger has no earlier session to re-prompt; started a fresh one',
  );
}

const WAITING_SHOWN = 100;
/** The most fires a queue count counts: one past those a reason names. */
export const WAITING_COUNTED = WAITING_SHOWN + 1;
/** Written into the SQL text: SQLite counted with a bound LIMIT three times slower than with a literal one. */
const WAITING_LIMIT = sql.lit(WAITING_COUNTED);

/** An account's queue and slots as a fire finds them: fires waiting (counted up to just past what is shown) and sessions active. */
export interface AccountSlots {
  waiting: number;
  active: number;
}

/**
 * How many fires of the account wait (before the given one, when set), up to a bound: a long queue is not
 * counted row by row on every fire. SQL text, since every webhook fire asks (building the query took longer
 * than running it on trigger_fires_pending_oldest). The active sessions are counted only when nothing waits.
 */
export async function accountSlots(db: Kysely<Database>, accountId: string, before?: { firedAt: string; fireId: string }): Promise<AccountSlots> {
  const earlier = before ? sql` and fired_at < ${before.firedAt} and id <> ${before.fireId}` : sql``;
  const { rows } = await sql<{ waiting: number | string }>`
    select count(*) as waiting from (
      select 1 from trigger_fires where account_id = ${accountId} and status = 'queued' and started_at is null${earlier} limit ${WAITING_LIMIT}
    ) earlier`.execute(db);
  const waiting = Number(rows[0]?.waiting ?? 0);
  if (waiting > 0) return { waiting, active: 0 };
  const active = await sql<{ active: number | string }>`
    select count(*) as active from sessions where account_id = ${accountId} and status in (${sql.join(ACTIVE_STATUSES)})`.execute(db);
  return { waiting, active: Number(active.rows[0]?.active ?? 0) };
}

/**
 * `accountSlots` for the account of the project row `p` of a PostgreSQL query, as two columns (`waiting`,
 * `active`), so that one query answers for every account of a group of fires: each query is a round trip. Read
 * them with `slotsOfRow`.
 */
export function accountSlotsColumns(): RawBuilder<unknown> {
  return sql`(select count(*) from (select 1 from trigger_fires f where f.account_id = p.account_id and f.status = 'queued' and f.started_at is null limit ${WAITING_LIMIT}) earlier) as waiting,
    (select count(*) from sessions x where x.account_id = p.account_id and x.status in (${sql.join(ACTIVE_STATUSES)})) as active`;
}

/** The slots read by `accountSlotsColumns`, as `accountSlots` gives them (the active sessions count only when nothing waits). */
export function slotsOfRow(row: { waiting: number | string; active: number | string }): AccountSlots {
  const waiting = Number(row.waiting);
  return { waiting, active: waiting > 0 ? 0 : Number(row.active) };
}

/** Why a fire that needs a slot waits, or null when it may start: fires queued before it go first (oldest first), or the account's cap is full. */
export function waitReasonOf(slots: AccountSlots, maxSessions: number): string | null {
  if (slots.waiting > 0) {
    const count = slots.waiting > WAITING_SHOWN ? `More than ${WAITING_SHOWN} earlier fires wait` : `${slots.waiting} earlier ${slots.waiting === 1 ? 'fire waits' : 'fires wait'}`;
    return `${count} for a session slot of this account; this one starts after them`;
  }
  if (slots.active >= maxSessions) {
    return `the account has ${maxSessions} sessions provisioning or running, its limit (SVC_MAX_SESSIONS); the fire starts when one stops`;
  }
  return null;
}

/** Whether a fire goes to a session that already holds a slot (then it never waits). */
export function needsSlot(target: FireTarget): boolean {
  return !(target.target === 'existing' && target.active);
}

/**
 * Why a fire that needs a slot waits, or null when it may start: the account's cap is full, or fires queued
 * before it go first (oldest first).
 */
export async function waitReason(
  db: Kysely<Database>,
  input: { accountId: string; maxSessions: number; target: FireTarget; before?: { firedAt: string; fireId: string } },
): Promise<string | null> {
  if (!needsSlot(input.target)) return null;
  return waitReasonOf(await accountSlots(db, input.accountId, input.before), input.maxSessions);
}
