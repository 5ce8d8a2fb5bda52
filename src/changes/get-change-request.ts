import type { ProjectRow } from '../accounts/access.js';
import type { ActorContext, Services } from '../context.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { findChangeRequest } from './find-change-request.js';
import { readLiveBranches, type LiveBranches } from './live-branches.js';
import { applyLiveTips } from './refresh-change-requests.js';

export interface ChangeRequestLocator {
  projectId: string;
  /** The cr_id or the per-project number. */
  crRef: string;
}

/** GET /change-requests/:crId: the CR, its SHAs refreshed first when it is open (spec 2 refresh rule 1). */
export async function getChangeRequest(ctx: ActorContext, input: ChangeRequestLocator): Promise<ChangeRequestRow> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'read');
  const row = await findChangeRequest(ctx, project, input.crRef);
  return (await refreshChangeRequest(ctx, project, row)).row;
}

/** Refreshes an open CR from the live branches; also hands back the branches for callers that read more. */
export async function refreshChangeRequest(ctx: Services, project: ProjectRow, row: ChangeRequestRow): Promise<{ row: ChangeRequestRow } & LiveBranches> {
  const live = await readLiveBranches(ctx, project, { only: [row.head_ref, row.base_ref] });
  const [refreshed] = await applyLiveTips(ctx, [row], live.tips);
  return { row: refreshed ?? row, ...live };
}

/** What every operation that answers with a CR sends: open CRs refreshed, others as stored. */
export async function presentableChangeRequest(ctx: Services, project: ProjectRow, row: ChangeRequestRow): Promise<ChangeRequestRow> {
  if (row.status !== 'open') return row;
  return (await refreshChangeRequest(ctx, project, row)).row;
}
