import type { ProjectRow } from '../accounts/access.js';
import type { ActorContext, Services } from '../context.js';

/**
 * Who a trigger's session acts as: a person who fired it by hand, else the project's creator, held to this
 * one project and to what starting and re-prompting a session needs (the session's own tokens are cut from it).
 */
export function triggerActor(services: Services, project: ProjectRow, userId: string, slug: string): ActorContext {
  return {
    ...services,
    actor: {
      kind: 'project',
      tokenId: `trigger ${slug}`,
      accountId: project.account_id,
      userId,
      isAdmin: false,
      projectId: project.id,
      capabilities: ['project.read', 'sessions.write'],
      sessionId: null,
      pushRef: null,
    },
  };
}
