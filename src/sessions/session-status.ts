import type { Kysely } from 'kysely';
import type { Services } from '../context.js';
import type { Database, SandboxState, SessionStatus } from '../db/schema.js';
import { nowIso } from '../db/values.js';
import type { SessionRow } from './session-row.js';

export interface StatusChange {
  status: SessionStatus;
  sandbox_state: SandboxState;
  error?: string | null;
  /** Only a session in one of these moves (a compare-and-set, so two replicas never both act on one change). */
  from: readonly SessionStatus[];
  /** And only if its sandbox is in one of these (a deleted session's `archived` must stay). */
  fromSandbox?: readonly SandboxState[];
  extra?: Partial<Pick<SessionRow, 'runtime_session_id' | 'lease_expires_at' | 'last_activity_at' | 'initial_prompt_sent_at' | 'sandbox_unstopped_since'>>;
}

/** Moves a session to a new status if it is still in one of `from`; announces it; returns whether it moved. */
export async function moveSession(services: Services, db: Kysely<Database>, session: Pick<SessionRow, 'id' | 'project_id'>, change: StatusChange): Promise<boolean> {
  const at = nowIso();
  const updated = await db
    .updateTable('sessions')
    .set({ status: change.status, sandbox_state: change.sandbox_state, ...(change.error !== undefined ? { error: change.error } : {}), ...change.extra, updated_at: at })
    .where('id', '=', session.id)
    .where('status', 'in', change.from)
    .$if(change.fromSandbox !== undefined, (query) => query.where('sandbox_state', 'in', change.fromSandbox ?? []))
    .executeTakeFirst();
  const moved = Number(updated.numUpdatedRows) === 1;
  if (moved) services.events.emit('session.status', { sessionId: session.id, projectId: session.project_id, status: change.status, sandboxState: change.sandbox_state, at });
  return moved;
}

export async function reloadSession(services: Services, sessionId: string): Promise<SessionRow> {
  return services.db.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirstOrThrow();
}
