import type { ActorContext } from '../context.js';
import { isUniqueViolation } from '../db/database.js';
import { nowIso } from '../db/values.js';
import { crAlreadyOpen, crWrongStatus } from '../errors.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { findChangeRequest } from './find-change-request.js';
import { presentableChangeRequest, type ChangeRequestLocator } from './get-change-request.js';

/**
 * POST /change-requests/:crId/reopen: closed → open. Only closed CRs reopen (409 otherwise; a merged CR
 * never does, a new CR is opened against the post-merge state). The branch tips are re-resolved as part of
 * the answer, which is the "next read" of spec 2.
 */
export async function reopenChangeRequest(ctx: ActorContext, input: ChangeRequestLocator): Promise<ChangeRequestRow> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'edit');
  const row = await findChangeRequest(ctx, project, input.crRef);
  if (row.status !== 'closed') {
    throw crWrongStatus(
      row.status === 'open'
        ? `Change request #${row.number} is already open; only closed CRs can be reopened.`
        : `Change request #${row.number} is merged and cannot be reopened; open a new CR against the post-merge state.`,
    );
  }
  const changes = { status: 'open' as const, closed_at: null, closed_by: null, updated_at: nowIso() };
  try {
    const result = await ctx.db.updateTable('change_requests').set(changes).where('id', '=', row.id).where('status', '=', 'closed').executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return reopenChangeRequest(ctx, input);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw crAlreadyOpen(`Another change request is already open for ${row.head_ref} → ${row.base_ref}; close it first, or keep working in it.`);
  }
  return presentableChangeRequest(ctx, project, { ...row, ...changes });
}
