/**
 * The cron scheduler (contract §7). Every replica runs it: due triggers are claimed and advanced in one
 * transaction (PostgreSQL `FOR UPDATE SKIP LOCKED`; on SQLite the advance is conditional on the claimed
 * next_fire_at, so a second writer finds nothing to do), and each claimed fire is recorded in that same
 * transaction, before any session starts. A trigger that missed several slots while svc was down fires
 * once and is planned from now. The task wakes at the next due fire as well as on its interval.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import type { Services } from '../context.js';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../ids.js';
import { nextFireAt } from './next-fire.js';
import { accountSlots, waitReasonOf, type AccountSlots } from './plan-fire.js';
import { insertFires, newFireRow } from './record-fire.js';
import { cronView, renderPrompt } from './render-prompt.js';
import { syncAllProjectTriggers } from './sync-triggers.js';
import { definitionOf, type TriggerFireRow } from './trigger-row.js';

export const TRIGGER_SCHEDULER_TASK = 'trigger-scheduler';
/**
 * Triggers claimed per transaction. PostgreSQL writes a batch in two statements (the advance, the fires): short
 * enough that replicas share a burst of due fires, long enough that its round trips are few. Bursts of 10,000 on
 * three replicas were committed p50 0.36–0.39 s and p99 0.77–1.03 s after they fell due with 800, against
 * 0.46–0.50 s and 1.07–1.26 s with 200. SQLite has no round trip to save, and its transaction holds the thread
 * that answers requests: a batch there stays at 200.
 */
const CLAIM_BATCH = { postgres: 800, sqlite: 200 } as const;

/**
 * Claims due triggers, records their fires and advances them; returns how many were claimed, the fires
 * recorded, and those of them to start now (not queued).
 */
export async function fireDueTriggers(services: Services, now: Date): Promise<{ claimed: number; fireIds: string[]; toStart: string[] }> {
  const nowText = now.toISOString();
  return services.db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('triggers').selectAll().where('next_fire_at', '<=', nowText).orderBy('next_fire_at').limit(CLAIM_BATCH[services.dialect]);
    if (services.dialect === 'postgres') query = query.forUpdate().skipLocked();
    const due = await query.execute();
    if (due.length === 0) return { claimed: 0, fireIds: [], toStart: [] };
    const projectIds = [...new Set(due.map((row) => row.project_id))];
    const projects = new Map(
      (await trx.selectFrom('projects').select(['id', 'account_id', 'created_by']).where('id', 'in', projectIds).execute()).map((project) => [project.id, project]),
    );
    const fires: TriggerFireRow[] = [];
    const advances: Array<{ project_id: string; slug: string; next: string | null }> = [];
    for (const row of due) {
      const trigger = definitionOf(row);
      const project = projects.get(row.project_id);
      const next = nextFireAt(trigger, now, nowText);
      if (services.dialect === 'postgres') {
        // The rows are locked by this transaction: they are advanced together below.
        advances.push({ project_id: row.project_id, slug: row.slug, next });
      } else {
        // SQLite: conditional on the next fire read, so a second process writing the same file claims nothing twice.
        const advanced = await trx
          .updateTable('triggers')
          .set({ last_fired_at: nowText, next_fire_at: next })
          .where('project_id', '=', row.project_id)
          .where('slug', '=', row.slug)
          .where('next_fire_at', '=', row.next_fire_at)
          .executeTakeFirst();
        if (Number(advanced.numUpdatedRows) === 0) continue;
      }
      if (!project || trigger.type !== 'cron') continue;
      const prompt = renderPrompt(
        trigger.prompt,
        cronView(trigger, { schedule: trigger.cron ?? trigger.run_at ?? '', timezone: trigger.timezone, firedAt: nowText, lastFiredAt: row.last_fired_at }),
      );
      fires.push(newFireRow({ project: project as never, trigger, source: 'cron', prompt, actorUserId: project.created_by, firedAt: nowText, dueAt: row.next_fire_at }));
    }
    if (advances.length > 0) {
      // Three parameters a trigger: 2,400 for a batch, where PostgreSQL takes 65,535.
      const values = sql.join(advances.map((advance) => sql`(${advance.project_id}, ${advance.slug}, ${advance.next}::timestamptz)`));
      await sql`update triggers as t set last_fired_at = ${nowText}::timestamptz, next_fire_at = v.next from (values ${values}) as v(project_id, slug, next) where t.project_id = v.project_id and t.slug = v.slug`.execute(trx);
    }
    await queueWhereSlotsAreFull(trx, services.config.sessions.maxSessions, fires);
    // PostgreSQL: one statement whose parameters are the columns as arrays, however many fires.
    await insertFires(trx, services.dialect, fires);
    // Queued fires start from the account's queue, oldest first, when a slot frees (dispatch-fires.ts).
    return { claimed: due.length, fireIds: fires.map((fire) => fire.id), toStart: fires.filter((fire) => fire.status === 'fired').map((fire) => fire.id) };
  });
}

/**
 * Fires that need a new session (fresh mode) are planned as they are recorded, as a webhook's are: the session
 * they will create is named. Those beyond their account's free slots, or behind its queue, are recorded
 * queued with the reason: one question per account and batch, where recording them as fired and queueing them
 * afterwards wrote each row twice (a burst of 10,000 fires at a full account).
 */
async function queueWhereSlotsAreFull(trx: Transaction<Database>, maxSessions: number, fires: TriggerFireRow[]): Promise<void> {
  const slots = new Map<string, AccountSlots>();
  for (const fire of fires) {
    if (fire.session_mode !== 'fresh') continue;
    Object.assign(fire, { target: 'new', session_id: newId() });
    let account = slots.get(fire.account_id);
    if (!account) {
      account = await accountSlots(trx, fire.account_id);
      slots.set(fire.account_id, account);
    }
    const reason = waitReasonOf(account, maxSessions);
    if (!reason) {
      // It takes a free slot: the batch's fires after it find one fewer. (Recorded as fired, a burst of 10,000 at a
      // free slot was queued after its commit, fire by fire or with a list of every id: seconds of PostgreSQL.)
      account.active += 1;
      continue;
    }
    Object.assign(fire, { status: 'queued', reason });
    // It waits too, ahead of the batch's fires after it (as a webhook's group counts them: record-fire.ts).
    account.waiting += 1;
  }
}

/** How long until the earliest next fire of any trigger, or null when none is planned. */
export async function msUntilNextFire(services: Services): Promise<number | null> {
  const row = await services.db
    .selectFrom('triggers')
    .select((eb) => eb.fn.min<string>('next_fire_at').as('next'))
    .where('next_fire_at', 'is not', null)
    .executeTakeFirst();
  if (!row?.next) return null;
  return Math.max(0, Date.parse(row.next) - Date.now());
}

export function triggerSchedulerTask(intervalMs: number): BackgroundTask {
  let caughtUp = false;
  return {
    name: TRIGGER_SCHEDULER_TASK,
    runsOn: 'every-replica',
    intervalMs,
    async run({ services, signal }) {
      // Branches that moved while this replica was down (or on another replica that died before reading them).
      if (!caughtUp) {
        caughtUp = true;
        await syncAllProjectTriggers(services, () => undefined);
      }
      // The whole burst is recorded before any of its sessions starts: booting a sandbox beside the claims (the
      // first fire at a free slot) made the rest of a burst of 10,000 three times slower to fire.
      const toStart: string[] = [];
      try {
        for (;;) {
          const batch = await fireDueTriggers(services, new Date());
          toStart.push(...batch.toStart);
          if (batch.claimed < CLAIM_BATCH[services.dialect] || signal.aborted) break;
        }
      } finally {
        if (toStart.length > 0) services.events.emit('triggers.fired', { fireIds: toStart });
      }
      const next = await msUntilNextFire(services);
      return next === null ? {} : { nextRunInMs: next };
    },
  };
}
