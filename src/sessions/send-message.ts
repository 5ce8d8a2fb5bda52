import type { ProjectRow } from '../accounts/access.js';
import type { ActorContext, Services } from '../context.js';
import { nowIso } from '../db/values.js';
import { AppError, sessionDeleted } from '../errors.js';
import { newId } from '../ids.js';
import { deliverPendingMessages } from './message-delivery.js';
import { wake } from './resume-session.js';
import { loadSession } from './session-access.js';
import type { SessionRow } from './session-row.js';
import { reloadSession } from './session-status.js';
import { inTransaction } from '../db/in-transaction.js';

export const MAX_MESSAGE_LENGTH = 256 * 1024;

/**
 * POST …/messages: the text is queued in the session's outbox (so it is never lost, and arrives in order),
 * a stopped sandbox is woken, and a running one gets it at once as a new user turn of its root session.
 */
export async function sendMessage(ctx: ActorContext, projectId: string, sessionId: string, text: string): Promise<SessionRow> {
  const { project, session } = await loadSession(ctx, projectId, sessionId, 'write');
  if (text.trim() === '') {
    throw new AppError('VALIDATION_FAILED', 'The message is empty; say what the agent should do.', { issues: [{ path: '/text', message: 'must not be empty' }] });
  }
  await queueMessage(ctx, project, session, text, 'api');
  return reloadSession(ctx, session.id);
}

/** Queues a message and makes sure it gets there: shared by people's messages, CR feedback and trigger re-prompts. */
export async function queueMessage(
  services: Services,
  project: ProjectRow,
  session: SessionRow,
  text: string,
  source: 'api' | 'feedback' | 'trigger',
  options: { messageId?: string } = {},
): Promise<void> {
  if (session.sandbox_state === 'archived') {
    throw sessionDeleted(`Session ${session.id} was deleted, so it takes no more messages; start a new session.`);
  }
  const now = nowIso();
  await inTransaction(services, async ({ db: trx }) => {
    const last = await trx.selectFrom('session_messages').select((eb) => eb.fn.max<number>('seq').as('seq')).where('session_id', '=', session.id).executeTakeFirst();
    await trx
      .insertInto('session_messages')
      .values({ id: options.messageId ?? newId(), session_id: session.id, seq: Number(last?.seq ?? 0) + 1, text, source, status: 'pending', last_error: null, created_at: now, delivered_at: null })
      // A message id given by the caller (a trigger fire retried after a crash) is queued once.
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await trx.updateTable('sessions').set({ last_activity_at: now }).where('id', '=', session.id).execute();
  });
  if (session.status === 'stopped' || session.status === 'failed') await wake(services, project, session);
  else if (session.status === 'running') void deliverPendingMessages(services, session.id).catch(() => undefined);
}
