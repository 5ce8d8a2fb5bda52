/**
 * How triggers react to the rest of svc in this process: a default branch that moved is read again, a new
 * set wakes the scheduler of every replica (its next fire may be sooner), fires recorded here start at once, and a session
 * that gives up its slot wakes the queue. Each is also done by a background task on its interval, so a
 * missed event (another replica's, a crash) only delays.
 */
import type { ReplicaWakes } from '../background/replica-wakes.js';
import type { TaskRunner } from '../background/task-runner.js';
import type { Services } from '../context.js';
import { startFires, TRIGGER_DISPATCH_TASK } from '../triggers/dispatch-fires.js';
import { TRIGGER_SCHEDULER_TASK } from '../triggers/scheduler.js';
import { syncProjectTriggers } from '../triggers/sync-triggers.js';

const SLOT_FREEING_STATUSES = new Set(['stopped', 'failed', 'completed']);

/** Returns the unwiring, which waits for the starts under way (a server closing must not boot sandboxes after). */
export function wireTriggers(services: Services, tasks: TaskRunner, wakes: ReplicaWakes, onError: (error: unknown, what: string) => void): () => Promise<void> {
  let starting: Promise<void> = Promise.resolve();
  let closed = false;
  // Re-reads under way: a closing server waits for them, so none runs on a database already closed.
  const rereading = new Set<Promise<void>>();
  const unsubscribe = [
    services.events.on('project.branch-moved', ({ projectId }) => {
      if (closed) return;
      const reread = (async () => {
        const project = await services.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
        if (project) await syncProjectTriggers(services, project);
      })()
        .catch((error: unknown) => onError(error, `reading the triggers of project ${projectId}`))
        .finally(() => rereading.delete(reread));
      rereading.add(reread);
    }),
    // Every replica's scheduler: each shares the bursts, and none sleeps past a new trigger's first fire.
    services.events.on('triggers.changed', () => wakes.wakeEverywhere(TRIGGER_SCHEDULER_TASK)),
    services.events.on('triggers.fired', ({ fireIds }) => {
      // One after another, in the order recorded.
      starting = starting.then(() => startFires(services, fireIds, tasks.holder, (error, fireId) => onError(error, `starting trigger fire ${fireId}`), () => closed));
    }),
    services.events.on('session.status', ({ status, sandboxState }) => {
      if (SLOT_FREEING_STATUSES.has(status) || sandboxState === 'archived') tasks.wake(TRIGGER_DISPATCH_TASK);
    }),
  ];
  return async () => {
    closed = true;
    for (const off of unsubscribe) off();
    await Promise.all([starting, ...rereading]);
  };
}
