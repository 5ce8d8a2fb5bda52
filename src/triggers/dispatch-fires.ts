/**
 * Fires that wait for their session: just recorded (started here at once, after the answer), recorded by a
 * replica that died before starting them, or queued at the concurrency cap (started oldest first, per account,
 * when a slot frees). The task runs on every replica; each fire is claimed before it starts (start-fire.ts).
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { BackgroundTask } from '../background/task-runner.js';
import type { Services } from '../context.js';
import type { Dialect } from '../db/database.js';
import { accountSlots, waitReasonOf } from './plan-fire.js';
import { startFire } from './start-fire.js';
import { FIRES_KEPT_MS } from './trigger-row.js';

export const TRIGGER_DISPATCH_TASK = 'trigger-dispatch';
const BATCH = 100;

export type DispatchErrorHandler = (error: unknown, fireId: string) => void;

/**
 * Starts the given fires one after another (a burst of cron fires must not boot every sandbox at once). Of a
 * burst, the oldest fires take their account's free slots and the rest are queued with one statement, not fire by fire.
 */
export async function startFires(services: Services, fireIds: readonly string[], holder: string, onError: DispatchErrorHandler, stopped: () => boolean = () => false): Promise<void> {
  const queued = await queueFreshFiresOfFullAccounts(services, fireIds).catch((error: unknown) => {
    onError(error, fireIds[0] ?? '');
    return new Set<string>();
  });
  for (const fireId of fireIds) {
    if (queued.has(fireId)) continue;
    // The rest stay recorded; the dispatch task of whichever replica runs next starts them.
    if (stopped()) return;
    try {
      await startFire(services, fireId, holder);
    } catch (error) {
      onError(error, fireId);
    }
  }
}

/**
 * A fire's id is one of `ids`, given as one array: a burst's ids are as many as its fires, and PostgreSQL takes at
 * most 65,535 placeholders to a statement, SQLite 32,766.
 */
function idAmong(dialect: Dialect, ids: readonly string[]): RawBuilder<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`id in (select wanted.id from unnest(${[...ids]}::text[]) as wanted(id))`
    : sql<SqlBool>`id in (select value from json_each(${JSON.stringify(ids)}))`;
}

/**
 * Fires that will need a new session (fresh mode, not started, not claimed), each account's oldest left to take
 * its free slots and the rest queued together with the reason. Returns the fires queued.
 */
async function queueFreshFiresOfFullAccounts(services: Services, fireIds: readonly string[]): Promise<Set<string>> {
  if (fireIds.length < 2) return new Set();
  const fires = await services.db
    .selectFrom('trigger_fires')
    .select(['id', 'account_id', 'fired_at'])
    .where(idAmong(services.dialect, fireIds))
    .where('session_mode', '=', 'fresh')
    .where('status', '=', 'fired')
    .where('started_at', 'is', null)
    .where('claimed_by', 'is', null)
    .orderBy('fired_at')
    .execute();
  const byAccount = new Map<string, typeof fires>();
  for (const fire of fires) {
    const list = byAccount.get(fire.account_id);
    if (list) list.push(fire);
    else byAccount.set(fire.account_id, [fire]);
  }
  const queued = new Set<string>();
  const maxSessions = services.config.sessions.maxSessions;
  for (const [accountId, list] of byAccount) {
    const oldest = list[0];
    if (!oldest) continue;
    const slots = await accountSlots(services.db, accountId, { firedAt: oldest.fired_at, fireId: oldest.id });
    // The oldest fires take the free slots; the rest wait for those to stop, queued here at once (left to start,
    // each would be claimed, planned and queued in turn: several round trips a fire).
    const starting = slots.waiting > 0 ? 0 : Math.max(0, maxSessions - slots.active);
    if (starting >= list.length) continue;
    // Behind a queue, its reason; else the cap, which the starting fires fill.
    const reason = waitReasonOf(slots.waiting > 0 ? slots : { waiting: 0, active: Math.max(slots.active, maxSessions) }, maxSessions);
    if (!reason) continue;
    const ids = list.slice(starting).map((fire) => fire.id);
    for (let start = 0; start < ids.length; start += 500) {
      await services.db
        .updateTable('trigger_fires')
        .set({ status: 'queued', reason })
        .where(idAmong(services.dialect, ids.slice(start, start + 500)))
        .where('status', '=', 'fired')
        .where('started_at', 'is', null)
        .where('claimed_by', 'is', null)
        .execute();
    }
    for (const id of ids) queued.add(id);
  }
  return queued;
}

/** One pass: fires recorded but not started, then each account's queue from its oldest fire until one waits. */
export async function dispatchWaitingFires(services: Services, holder: string, onError: DispatchErrorHandler, stopped: () => boolean = () => false): Promise<void> {
  const now = new Date().toISOString();
  const unclaimed = (query: ReturnType<typeof waitingFires>) => query.where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]));
  const recorded = await unclaimed(waitingFires(services).where('status', '=', 'fired')).select('id').orderBy('fired_at').limit(BATCH).execute();
  await startFires(services, recorded.map((fire) => fire.id), holder, onError, stopped);

  const accounts = await accountsWithQueues(services).execute();
  for (const { id: accountId } of accounts) {
    for (let started = 0; started < BATCH && !stopped(); started++) {
      const oldest = await oldestQueuedFire(services, accountId).executeTakeFirst();
      if (!oldest || (oldest.claimed_until !== null && oldest.claimed_until >= now)) break;
      try {
        const outcome = await startFire(services, oldest.id, holder);
        if (outcome !== 'started' && outcome !== 'failed') break;
      } catch (error) {
        onError(error, oldest.id);
        break;
      }
    }
  }
}

/**
 * The accounts with fires queued: each account asked for one entry of `trigger_fires_pending_oldest`, since
 * accounts are few and a queue can be long. Asked as a subquery with a limit, not `exists`, which PostgreSQL may
 * turn into a join that reads every queued fire (it did, 5.4 ms for 8,000, while the table had no statistics).
 */
export function accountsWithQueues(services: Services) {
  return services.db
    .selectFrom('accounts as a')
    .select('a.id')
    .where(sql<SqlBool>`(select 1 from trigger_fires f where f.account_id = a.id and f.status = 'queued' and f.started_at is null limit 1) is not null`);
}

/** The account's queued fire that starts next: the first entry of `trigger_fires_pending_oldest` for the account. */
export function oldestQueuedFire(services: Services, accountId: string) {
  return waitingFires(services).where('status', '=', 'queued').where('account_id', '=', accountId).select(['id', 'claimed_until']).orderBy('fired_at').orderBy('id').limit(1);
}

function waitingFires(services: Services) {
  return services.db.selectFrom('trigger_fires').where('started_at', 'is', null);
}

/** Each replica deletes fires older than the listing keeps about once an hour. */
const PRUNE_EVERY_MS = 3_600_000;

export async function pruneOldFires(services: Services, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - FIRES_KEPT_MS).toISOString();
  // A webhook trigger's last fire is read from its fires (list-triggers.ts): the latest of those about to go stays on its row.
  const older = (alias: string) =>
    sql`from trigger_fires f where f.project_id = ${sql.ref(`${alias}.project_id`)} and f.trigger_slug = ${sql.ref(`${alias}.slug`)} and f.status <> 'duplicate' and f.fired_at < ${cutoff}`;
  await sql`update triggers set last_fired_at = (select max(f.fired_at) ${older('triggers')})
    where type = 'webhook' and exists (select 1 ${older('triggers')} and (triggers.last_fired_at is null or f.fired_at > triggers.last_fired_at))`.execute(services.db);
  // Only fires that are done: a fire still waiting for its session is never lost to age.
  await services.db.deleteFrom('trigger_fires').where('fired_at', '<', cutoff).where('started_at', 'is not', null).execute();
}

export function triggerDispatchTask(intervalMs: number, onError: DispatchErrorHandler): BackgroundTask {
  let prunedAt = 0;
  return {
    name: TRIGGER_DISPATCH_TASK,
    runsOn: 'every-replica',
    intervalMs,
    async run({ services, holder, signal, now }) {
      await dispatchWaitingFires(services, holder, onError, () => signal.aborted);
      if (now.getTime() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = now.getTime();
        await pruneOldFires(services, now);
      }
    },
  };
}
