/**
 * The idle sweep (contract §6): a running session with no live execution lease and no activity for
 * SVC_IDLE_TIMEOUT_S is stopped (hibernated). Pages, event streams and health polls are not activity; the
 * daemon's lease while the agent works is what keeps a long turn alive.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import { hibernate } from './stop-session.js';

export const idleSweepTask = (intervalMs: number): BackgroundTask => ({
  name: 'session-idle-sweep',
  runsOn: 'one-replica',
  intervalMs,
  async run({ services, now }) {
    const idleSince = new Date(now.getTime() - services.config.sessions.idleTimeoutMs).toISOString();
    const nowIso = now.toISOString();
    const idle = await services.db
      .selectFrom('sessions')
      .selectAll()
      .where('status', '=', 'running')
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', nowIso)]))
      .where('last_activity_at', '<', idleSince)
      .execute();
    for (const session of idle) await hibernate(services, session);
  },
});
