import type { Services } from '../context.js';
import { signUserContext, USER_CONTEXT_HEADER } from '../shared/user-context.js';
import type { SessionRow } from './session-row.js';
import { sessionsOf } from './session-services.js';
import { sandboxTokenOf } from './session-tokens.js';

/** A request from svc itself to a session's daemon, signed as the session's creator. */
export async function daemonRequest(services: Services, session: SessionRow, pathAndQuery: string, init: RequestInit = {}, userId = session.created_by): Promise<Response> {
  if (!session.daemon_url) throw new Error('the sandbox is not running');
  const token = sandboxTokenOf(sessionsOf(services).secretKey, session.id);
  const headers = new Headers(init.headers);
  headers.set(USER_CONTEXT_HEADER, signUserContext({ user_id: userId, project_id: session.project_id, session_id: session.id }, token));
  return fetch(`${session.daemon_url}${pathAndQuery}`, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(30_000) });
}
