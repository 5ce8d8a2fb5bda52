import type { ActorContext } from '../context.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import type { ChangeRequestRow, ChangeRequestStatus } from './change-request-row.js';
import { readLiveBranches } from './live-branches.js';
import { applyLiveTips } from './refresh-change-requests.js';

export interface ListChangeRequestsInput {
  projectId: string;
  status?: ChangeRequestStatus | 'all' | undefined;
}

/**
 * GET /change-requests: newest first, open ones refreshed against the live branches. The whole listing
 * costs one `for-each-ref` and an UPDATE per batch of moved rows, however many CRs are open.
 */
export async function listChangeRequests(ctx: ActorContext, input: ListChangeRequestsInput): Promise<ChangeRequestRow[]> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'read');
  let query = ctx.db.selectFrom('change_requests').selectAll().where('project_id', '=', project.id);
  if (input.status && input.status !== 'all') query = query.where('status', '=', input.status);
  const rows = await query.orderBy('number', 'desc').execute();
  if (!rows.some((row) => row.status === 'open')) return rows;
  const { tips } = await readLiveBranches(ctx, project);
  return applyLiveTips(ctx, rows, tips);
}

export interface ListSessionChangeRequestsInput {
  projectId: string;
  /** The session's id and branch: a CR came from it when it names it as its origin or has its branch as head. */
  sessionId: string;
  branch: string;
}

/**
 * The CRs a session opened, or that have its branch as head (opened by hand from it), newest first, as
 * stored: the session's page lists them, and each one's own page refreshes it against its branch.
 */
export async function listSessionChangeRequests(ctx: ActorContext, input: ListSessionChangeRequestsInput): Promise<ChangeRequestRow[]> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'read');
  return ctx.db
    .selectFrom('change_requests')
    .selectAll()
    .where('project_id', '=', project.id)
    .where((eb) => eb.or([eb('origin_session_id', '=', input.sessionId), eb('head_ref', '=', input.branch)]))
    .orderBy('number', 'desc')
    .execute();
}
