import type { Services } from '../context.js';
import type { SandboxSupervisor } from './sandbox-supervisor.js';

/** What the session operations share in a running server: the secret key their tokens derive from, and the supervisor. */
export interface SessionServices {
  secretKey: string;
  supervisor: SandboxSupervisor;
}

export function sessionsOf(services: Services): SessionServices {
  return services.sessions;
}
