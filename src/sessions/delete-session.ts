import type { ActorContext } from '../context.js';
import { forgetCachedPrincipals } from '../accounts/principal.js';
import { nowIso } from '../db/values.js';
import { loadSession } from './session-access.js';
import { captureConversation } from './session-conversation.js';
import { sessionsOf } from './session-services.js';

/**
 * DELETE …/:sid: the provider sandbox and its files go, the session's tokens stop working, and the record
 * stays `archived` (its branch stays too: work pushed there is not lost). A sandbox that cannot be removed
 * yet does not fail the request: it is removed later (recover-sandboxes.ts).
 */
export async function deleteSession(ctx: ActorContext, projectId: string, sessionId: string): Promise<void> {
  const { session } = await loadSession(ctx, projectId, sessionId, 'write');
  // The conversation lives in the sandbox, which goes: svc keeps its own copy first.
  if (session.status === 'running') await captureConversation(ctx, session).catch(() => undefined);
  const at = nowIso();
  await ctx.db
    .updateTable('sessions')
    .set({ status: session.status === 'running' || session.status === 'provisioning' ? 'stopped' : session.status, sandbox_state: 'archived', lease_expires_at: null, daemon_url: null, updated_at: at })
    .where('id', '=', session.id)
    .execute();
  await ctx.db.deleteFrom('tokens').where('session_id', '=', session.id).execute();
  await ctx.db.updateTable('session_messages').set({ status: 'failed', last_error: 'The session was deleted.' }).where('session_id', '=', session.id).where('status', '=', 'pending').execute();
  forgetCachedPrincipals(ctx.db);
  ctx.events.emit('session.status', { sessionId: session.id, projectId: session.project_id, status: session.status === 'running' || session.status === 'provisioning' ? 'stopped' : session.status, sandboxState: 'archived', at });
  // The sandbox goes now where its provider answers; otherwise (a Docker engine down or restarting) the
  // recovery task removes it once the engine answers again: the row keeps the sandbox's reference until then.
  try {
    await sessionsOf(ctx).supervisor.remove(session);
  } catch {
    return;
  }
  await ctx.db.updateTable('sessions').set({ sandbox_ref: null }).where('id', '=', session.id).execute();
}
