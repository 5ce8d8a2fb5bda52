import type { SessionRow } from './session-row.js';

/** Exactly the session keys of contract §6. */
export function presentSession(session: SessionRow) {
  return {
    id: session.id,
    project_id: session.project_id,
    status: session.status,
    base_ref: session.base_ref,
    branch: session.branch,
    agent: session.agent,
    model: session.model,
    trigger_slug: session.trigger_slug,
    created_by: session.created_by,
    created_at: session.created_at,
    updated_at: session.updated_at,
    last_activity_at: session.last_activity_at,
    error: session.error,
    runtime_session_id: session.runtime_session_id,
    sandbox: { provider: session.sandbox_provider, state: session.sandbox_state },
  };
}

export type PresentedSession = ReturnType<typeof presentSession>;
