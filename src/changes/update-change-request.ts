import type { ActorContext } from '../context.js';
import { nowIso } from '../db/values.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { findChangeRequest } from './find-change-request.js';
import type { ChangeRequestLocator } from './get-change-request.js';
import { presentableChangeRequest } from './get-change-request.js';
import { assertNoIssues, descriptionIssues, titleIssues } from './input-rules.js';

export interface UpdateChangeRequestInput extends ChangeRequestLocator {
  title?: string | undefined;
  description?: string | undefined;
}

/**
 * PATCH /change-requests/:crId: edits the title and/or description, in any status (like GitHub, a merged
 * CR's text can still be corrected). An empty edit changes nothing and returns the CR.
 */
export async function updateChangeRequest(ctx: ActorContext, input: UpdateChangeRequestInput): Promise<ChangeRequestRow> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'edit');
  assertNoIssues([...(input.title === undefined ? [] : titleIssues(input.title)), ...descriptionIssues(input.description)]);
  const row = await findChangeRequest(ctx, project, input.crRef);
  const changes: Partial<Pick<ChangeRequestRow, 'title' | 'description' | 'updated_at'>> = {};
  if (input.title !== undefined && input.title.trim() !== row.title) changes.title = input.title.trim();
  if (input.description !== undefined && input.description !== row.description) changes.description = input.description;
  if (Object.keys(changes).length === 0) return presentableChangeRequest(ctx, project, row);
  changes.updated_at = nowIso();
  await ctx.db.updateTable('change_requests').set(changes).where('id', '=', row.id).execute();
  return presentableChangeRequest(ctx, project, { ...row, ...changes });
}
