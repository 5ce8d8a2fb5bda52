import type { ActorContext } from '../context.js';
import { nowIso } from '../db/values.js';
import { crWrongStatus } from '../errors.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { findChangeRequest } from './find-change-request.js';
import type { ChangeRequestLocator } from './get-change-request.js';

/**
 * POST /change-requests/:crId/close: open → closed, recording who and when. Closing a closed CR is
 * idempotent (200, unchanged, like GitHub's API), so a retried request is harmless; a merged CR is 409.
 * The UPDATE is conditional on the status it read, so a merge recorded meanwhile is never overwritten.
 */
export async function closeChangeRequest(ctx: ActorContext, input: ChangeRequestLocator): Promise<ChangeRequestRow> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'edit');
  const row = await findChangeRequest(ctx, project, input.crRef);
  if (row.status === 'closed') return row;
  if (row.status === 'merged') throw mergedAlready(row);
  const now = nowIso();
  const changes = { status: 'closed' as const, closed_at: now, closed_by: ctx.actor.userId, updated_at: now };
  const result = await ctx.db.updateTable('change_requests').set(changes).where('id', '=', row.id).where('status', '=', 'open').executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return closeChangeRequest(ctx, input);
  return { ...row, ...changes };
}

function mergedAlready(row: ChangeRequestRow) {
  return crWrongStatus(`Change request #${row.number} is already merged; a merged CR cannot be closed.`);
}
