import type { ActorContext } from '../context.js';
import type { SessionStatus } from '../db/schema.js';
import { loadProjectForSessions } from './session-access.js';
import type { SessionRow } from './session-row.js';

export interface ListSessionsInput {
  projectId: string;
  status?: SessionStatus | undefined;
  trigger?: string | undefined;
}

/** GET …/sessions: newest first, optionally by status or by the trigger that started them. */
export async function listSessions(ctx: ActorContext, input: ListSessionsInput): Promise<SessionRow[]> {
  const project = await loadProjectForSessions(ctx, input.projectId, 'read');
  let query = ctx.db.selectFrom('sessions').selectAll().where('project_id', '=', project.id);
  if (input.status) query = query.where('status', '=', input.status);
  if (input.trigger) query = query.where('trigger_slug', '=', input.trigger);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(500).execute();
}
