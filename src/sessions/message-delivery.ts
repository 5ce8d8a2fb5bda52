/**
 * Hands queued messages to the agent runtime, in order, once the sandbox is running and its root runtime
 * session is known: each becomes a user turn (`POST /session/:id/prompt_async` through the daemon). A
 * message is claimed before it is sent, so two replicas never both send it; one that fails goes back to
 * the queue and is tried again by the delivery task.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import type { Services } from '../context.js';
import { nowIso } from '../db/values.js';
import { daemonRequest } from './daemon-client.js';
import { reloadSession } from './session-status.js';

const MAX_ATTEMPTS = 20;

export async function deliverPendingMessages(services: Services, sessionId: string): Promise<number> {
  const session = await reloadSession(services, sessionId);
  if (session.status !== 'running' || !session.runtime_session_id || !session.daemon_url) return 0;
  const pending = await services.db
    .selectFrom('session_messages')
    .selectAll()
    .where('session_id', '=', session.id)
    .where('status', '=', 'pending')
    .orderBy('seq')
    .execute();
  let delivered = 0;
  for (const message of pending) {
    const claimed = await services.db
      .updateTable('session_messages')
      .set({ status: 'delivering', attempts: message.attempts + 1 })
      .where('id', '=', message.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) continue;
    try {
      const response = await daemonRequest(services, session, `/session/${encodeURIComponent(session.runtime_session_id)}/prompt_async`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ parts: [{ type: 'text', text: message.text }] }),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`the runtime answered ${response.status}`);
      const at = nowIso();
      await services.db.updateTable('session_messages').set({ status: 'delivered', delivered_at: at, last_error: null }).where('id', '=', message.id).execute();
      // A message handed over is activity: the idle sweep must not stop the agent before its turn begins.
      await services.db.updateTable('sessions').set({ last_activity_at: at }).where('id', '=', session.id).execute();
      delivered += 1;
    } catch (error) {
      const failed = message.attempts + 1 >= MAX_ATTEMPTS;
      await services.db
        .updateTable('session_messages')
        .set({ status: failed ? 'failed' : 'pending', last_error: error instanceof Error ? error.message : String(error) })
        .where('id', '=', message.id)
        .execute();
      // Later messages wait: they must arrive after this one.
      break;
    }
  }
  return delivered;
}

/** Delivers what is queued for running sessions (messages sent while a sandbox booted, retries after a failure). */
export const messageDeliveryTask: BackgroundTask = {
  name: 'session-message-delivery',
  runsOn: 'one-replica',
  intervalMs: 1_000,
  async run({ services }) {
    const waiting = await services.db
      .selectFrom('session_messages')
      .innerJoin('sessions', 'sessions.id', 'session_messages.session_id')
      .select('sessions.id')
      .distinct()
      .where('session_messages.status', '=', 'pending')
      .where('sessions.status', '=', 'running')
      .where('sessions.runtime_session_id', 'is not', null)
      .execute();
    for (const { id } of waiting) await deliverPendingMessages(services, id);
  },
};
