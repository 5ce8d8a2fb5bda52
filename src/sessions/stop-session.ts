import type { ActorContext, Services } from '../context.js';
import { nowIso } from '../db/values.js';
import { sessionNotRunning } from '../errors.js';
import { loadSession } from './session-access.js';
import { captureConversation } from './session-conversation.js';
import type { SessionRow } from './session-row.js';
import { sessionsOf } from './session-services.js';
import { moveSession, reloadSession } from './session-status.js';

/** Hibernates a session: its processes and memory go, its files and identity stay (contract §6). */
export async function stopSession(ctx: ActorContext, projectId: string, sessionId: string): Promise<SessionRow> {
  const { session } = await loadSession(ctx, projectId, sessionId, 'write');
  if (session.status === 'stopped') return session;
  if (session.status !== 'running' && session.status !== 'provisioning') {
    throw sessionNotRunning(`Session ${session.id} is ${session.status}, so there is nothing to stop; resume it first if you want it running.`);
  }
  await hibernate(ctx, session);
  return reloadSession(ctx, session.id);
}

/**
 * Records the stop, then ends the sandbox; the idle sweep and stop share it. The conversation is captured
 * once this replica alone owns the stop, while the runtime still answers, as part of the supervisor's stop
 * (a message that wakes the session meanwhile starts its sandbox only after the old one has ended).
 */
export async function hibernate(services: Services, session: SessionRow): Promise<boolean> {
  const moved = await moveSession(services, services.db, session, { status: 'stopped', sandbox_state: 'stopped', from: ['running', 'provisioning'], extra: { lease_expires_at: null } });
  if (!moved) return false;
  try {
    await sessionsOf(services).supervisor.stop(session, () => captureConversation(services, session));
  } catch (error) {
    // The provider could not end the sandbox (its Docker engine does not answer): the sandbox may still run,
    // so the session does not claim `stopped`, and the request does not fail for what it cannot change. It is
    // marked so that the sandbox watch stops the sandbox once its engine answers again (recover-sandboxes.ts).
    const reason = `The sandbox could not be stopped: ${error instanceof Error ? error.message : String(error)}. Resume the session to start it again with its files, or delete it.`;
    await moveSession(services, services.db, session, { status: 'failed', sandbox_state: 'error', error: reason, from: ['stopped'], fromSandbox: ['stopped'], extra: { sandbox_unstopped_since: nowIso() } });
  }
  return true;
}
