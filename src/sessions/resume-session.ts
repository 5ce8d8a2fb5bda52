import { sql } from 'kysely';
import type { ProjectRow } from '../accounts/access.js';
import type { ActorContext, Services } from '../context.js';
import { nowIso } from '../db/values.js';
import { sessionDeleted } from '../errors.js';
import { assertUnderSessionCap } from './session-cap.js';
import { loadSession } from './session-access.js';
import type { SessionRow } from './session-row.js';
import { sessionsOf } from './session-services.js';
import { reloadSession } from './session-status.js';
import { inTransaction } from '../db/in-transaction.js';

/** POST …/resume: a stopped or failed session boots again; a running one is left as it is (contract §6). */
export async function resumeSession(ctx: ActorContext, projectId: string, sessionId: string): Promise<SessionRow> {
  const { project, session } = await loadSession(ctx, projectId, sessionId, 'write');
  if (session.status === 'running' || session.status === 'provisioning') return session;
  if (session.sandbox_state === 'archived') throw sessionDeleted(`Session ${session.id} was deleted; start a new session.`);
  await wake(ctx, project, session);
  return reloadSession(ctx, session.id);
}

/**
 * Moves a stopped or failed session back to provisioning (within the cap) and boots its sandbox. Its runtime
 * session is forgotten until the daemon reports it again for this boot, so no message is sent to a runtime
 * that is not ready for it.
 */
export async function wake(services: Services, project: ProjectRow, session: SessionRow): Promise<void> {
  const at = nowIso();
  const moved = await inTransaction(services, async ({ db: trx }) => {
    if (services.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`svc sessions ${project.account_id}`}))`.execute(trx);
    const updated = await trx
      .updateTable('sessions')
      .set({ status: 'provisioning', sandbox_state: 'provisioning', error: null, runtime_session_id: null, sandbox_unstopped_since: null, updated_at: at, last_activity_at: at })
      .where('id', '=', session.id)
      .where('status', 'in', ['stopped', 'failed'])
      // A wake decided on a row read before a delete must not bring the deleted session back.
      .where('sandbox_state', '<>', 'archived')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await assertUnderSessionCap(trx, project.account_id, services.config.sessions.maxSessions);
    return true;
  });
  if (!moved) return;
  services.events.emit('session.status', { sessionId: session.id, projectId: session.project_id, status: 'provisioning', sandboxState: 'provisioning', at });
  sessionsOf(services).supervisor.boot(project, await reloadSession(services, session.id));
}
