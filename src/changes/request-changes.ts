import type { ActorContext } from '../context.js';
import { nowIso, readJson } from '../db/values.js';
import { AppError, crWrongStatus, feedbackFull, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestMetadata, ChangeRequestRow, RequestedChange } from './change-request-row.js';
import { findChangeRequest } from './find-change-request.js';
import { presentableChangeRequest, type ChangeRequestLocator } from './get-change-request.js';
import { MAX_FEEDBACK_ENTRIES, MAX_FEEDBACK_LENGTH, MAX_FEEDBACK_TOTAL_LENGTH } from './input-rules.js';
import { inTransaction } from '../db/in-transaction.js';

export interface RequestChangesInput extends ChangeRequestLocator {
  feedback: string;
}

/**
 * POST /change-requests/:crId/request-changes: appends `{text, by, at}` to metadata.requested_changes and,
 * when the CR came from a session, queues the feedback for that session's agent in the feedback_deliveries
 * outbox, in the same transaction. The sessions capability delivers queued rows (waking a sleeping
 * sandbox); being a row, the delivery survives restarts. Only open CRs take feedback (409 otherwise).
 */
export async function requestChanges(ctx: ActorContext, input: RequestChangesInput): Promise<ChangeRequestRow> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'request-changes');
  const text = input.feedback.trim();
  if (text.length === 0 || text.length > MAX_FEEDBACK_LENGTH) {
    throw new AppError('VALIDATION_FAILED', 'The feedback must say what to change (1 to 65536 characters).', {
      issues: [{ path: '/feedback', message: text.length === 0 ? 'must not be empty' : `must be at most ${MAX_FEEDBACK_LENGTH} characters` }],
    });
  }
  const found = await findChangeRequest(ctx, project, input.crRef);
  const entry: RequestedChange = { text, by: ctx.actor.userId, at: nowIso() };

  const updated = await inTransaction(ctx, async ({ db: trx }) => {
    let query = trx.selectFrom('change_requests').selectAll().where('id', '=', found.id);
    // Concurrent feedback on PostgreSQL appends in turn instead of one overwriting the other's entry.
    if (ctx.dialect === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw notFound('change request', input.crRef);
    if (row.status !== 'open') {
      throw crWrongStatus(`Change request #${row.number} is ${row.status}; changes can be requested only on an open CR.`);
    }
    const metadata = readJson<ChangeRequestMetadata>(row.metadata, {});
    const requested = Array.isArray(metadata.requested_changes) ? metadata.requested_changes : [];
    assertRoomForFeedback(row, requested, text);
    const next: ChangeRequestMetadata = { ...metadata, requested_changes: [...requested, entry] };
    const changes = { metadata: JSON.stringify(next), updated_at: entry.at };
    await trx.updateTable('change_requests').set(changes).where('id', '=', row.id).execute();
    if (row.origin_session_id !== null) {
      await trx
        .insertInto('feedback_deliveries')
        .values({
          id: newId(),
          cr_id: row.id,
          session_id: row.origin_session_id,
          text: entry.text,
          by: entry.by,
          at: entry.at,
          status: 'pending',
          attempts: 0,
          last_error: null,
          created_at: entry.at,
          updated_at: entry.at,
        })
        .execute();
    }
    return { ...row, metadata: next, updated_at: entry.at };
  });
  return presentableChangeRequest(ctx, project, updated);
}

/** 409 once a CR holds as much feedback as it keeps: the advice then is a new CR, not a longer thread. */
function assertRoomForFeedback(row: ChangeRequestRow, requested: RequestedChange[], text: string): void {
  if (requested.length >= MAX_FEEDBACK_ENTRIES) {
    throw feedbackFull(
      `Change request #${row.number} already holds ${requested.length} requested changes, the most one CR keeps (${MAX_FEEDBACK_ENTRIES}); ` +
        'close it and open a new CR for the remaining work, or gather the feedback into fewer, longer entries.',
    );
  }
  const held = requested.reduce((sum, entry) => sum + (typeof entry.text === 'string' ? entry.text.length : 0), 0);
  if (held + text.length > MAX_FEEDBACK_TOTAL_LENGTH) {
    throw feedbackFull(
      `Change request #${row.number} already holds ${held} characters of requested changes; with this ${text.length}-character feedback it would exceed the ${MAX_FEEDBACK_TOTAL_LENGTH} one CR keeps. ` +
        'Send shorter feedback, or close it and open a new CR for the remaining work.',
    );
  }
}
