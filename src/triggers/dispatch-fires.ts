/**
 * Fires that wait for their session: just recorded (started here at once, after the answer), recorded by a
 * replica that died before starting them, or queued at the concurrency cap (started oldest first, per account,
 * when a slot frees). The task runs on every replica; each fire is claimed before it starts (start-fire.ts).
 */
import type { BackgroundTask } from '../background/task-runner.js';
import type { Services } from '../context.js';
import { startFire } from './start-fire.js';

export const TRIGGER_DISPATCH_TASK = 'trigger-dispatch';
const BATCH = 100;

export type DispatchErrorHandler = (error: unknown, fireId: string) => void;

/** Starts the given fires one after another (a burst of cron fires must not boot every sandbox at once). */
export async function startFires(services: Services, fireIds: readonly string[], holder: string, onError: DispatchErrorHandler, stopped: () => boolean = () => false): Promise<void> {
  for (const fireId of fireIds) {
    // The rest stay recorded; the dispatch task of whichever replica runs next starts them.
    if (stopped()) return;
    try {
      await startFire(services, fireId, holder);
    } catch (error) {
      onError(error, fireId);
    }
  }
}

/** One pass: fires recorded but not started, then each account's queue from its oldest fire until one waits. */
export async function dispatchWaitingFires(services: Services, holder: string, onError: DispatchErrorHandler, stopped: () => boolean = () => false): Promise<void> {
  const now = new Date().toISOString();
  const unclaimed = (query: ReturnType<typeof waitingFires>) => query.where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]));
  const recorded = await unclaimed(waitingFires(services).where('status', '=', 'fired')).select('id').orderBy('fired_at').limit(BATCH).execute();
  await startFires(services, recorded.map((fire) => fire.id), holder, onError, stopped);

  const accounts = await waitingFires(services).where('status', '=', 'queued').select('account_id').distinct().execute();
  for (const { account_id: accountId } of accounts) {
    for (let started = 0; started < BATCH && !stopped(); started++) {
      const oldest = await waitingFires(services).where('status', '=', 'queued').where('account_id', '=', accountId).select(['id', 'claimed_until']).orderBy('fired_at').orderBy('id').limit(1).executeTakeFirst();
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

function waitingFires(services: Services) {
  return services.db.selectFrom('trigger_fires').where('started_at', 'is', null);
}

export function triggerDispatchTask(intervalMs: number, onError: DispatchErrorHandler): BackgroundTask {
  return {
    name: TRIGGER_DISPATCH_TASK,
    runsOn: 'every-replica',
    intervalMs,
    async run({ services, holder, signal }) {
      await dispatchWaitingFires(services, holder, onError, () => signal.aborted);
    },
  };
}
