/**
 * A change request's requested changes reach the session that opened it (spec 2, contract §6): each row of
 * the feedback_deliveries outbox becomes a message to that session, which wakes it if it sleeps.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import { nowIso } from '../db/values.js';
import { AppError } from '../errors.js';
import { queueMessage } from './send-message.js';

export const feedbackDeliveryTask: BackgroundTask = {
  name: 'cr-feedback-delivery',
  runsOn: 'one-replica',
  intervalMs: 1_000,
  async run({ services }) {
    const pending = await services.db
      .selectFrom('feedback_deliveries')
      .innerJoin('change_requests', 'change_requests.id', 'feedback_deliveries.cr_id')
      .select(['feedback_deliveries.id', 'feedback_deliveries.session_id', 'feedback_deliveries.text', 'feedback_deliveries.attempts', 'change_requests.number', 'change_requests.title'])
      .where('feedback_deliveries.status', '=', 'pending')
      .orderBy('feedback_deliveries.created_at')
      .limit(100)
      .execute();
    for (const delivery of pending) {
      const session = await services.db.selectFrom('sessions').selectAll().where('id', '=', delivery.session_id).executeTakeFirst();
      const project = session ? await services.db.selectFrom('projects').selectAll().where('id', '=', session.project_id).executeTakeFirst() : undefined;
      let status: 'delivered' | 'failed' | 'pending' = 'delivered';
      let lastError: string | null = null;
      try {
        if (!session || !project) throw new AppError('CONFLICT', 'The session that opened the change request no longer exists.');
        const text = `Changes were requested on change request #${delivery.number} (${delivery.title}):\n\n${delivery.text}\n\nMake the changes on this branch, commit and push them (git push origin HEAD); the change request follows the branch.`;
        await queueMessage(services, project, session, text, 'feedback');
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        // A deleted session will never take it; a full account (429) will, once a slot frees.
        status = error instanceof AppError && error.code === 'TOO_MANY_SESSIONS' ? 'pending' : 'failed';
      }
      await services.db
        .updateTable('feedback_deliveries')
        .set({ status, last_error: lastError, attempts: delivery.attempts + 1, updated_at: nowIso() })
        .where('id', '=', delivery.id)
        .execute();
    }
  },
};
