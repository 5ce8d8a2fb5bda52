import { loadProjectFor, type ProjectRow } from '../accounts/access.js';
import type { ActorContext } from '../context.js';
import { AppError, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import type { SessionRow } from './session-row.js';

/** Reading sessions needs project.read; starting, talking to, stopping and deleting them sessions.write (contract §6). */
export function loadProjectForSessions(ctx: ActorContext, projectId: string, access: 'read' | 'write'): Promise<ProjectRow> {
  return access === 'read'
    ? loadProjectFor(ctx, projectId, 'project.read', 'read sessions')
    : loadProjectFor(ctx, projectId, 'sessions.write', 'start, message, stop or delete sessions');
}

export async function loadSession(ctx: ActorContext, projectId: string, sessionId: string, access: 'read' | 'write'): Promise<{ project: ProjectRow; session: SessionRow }> {
  const project = await loadProjectForSessions(ctx, projectId, access);
  if (!isUuid(sessionId)) throw new AppError('BAD_REQUEST', `The session id ${JSON.stringify(sessionId)} is not a UUID; svc session ls lists the ids.`);
  const session = await ctx.db.selectFrom('sessions').selectAll().where('id', '=', sessionId.toLowerCase()).where('project_id', '=', project.id).executeTakeFirst();
  if (!session) throw notFound('session', sessionId);
  return { project, session };
}
