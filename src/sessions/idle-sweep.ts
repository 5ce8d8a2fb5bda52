/**
 * The idle sweep (contract §6): a running session with no live execution lease and no activity for
 * SVC_IDLE_TIMEOUT_S is stopped (hibernated). Pages, event streams and health polls are not activity; the
 * daemon's lease while the agent works is what keeps a long turn alive.
 *
 * A session holding work its agent has not taken yet (the first prompt, or a message waiting for delivery)
 * is not idle while its runtime boots: it is given the sandbox boot timeout too, or an idle timeout shorter
 * than a runtime's start would stop every such session before its agent could begin.
 */
import { sql } from 'kysely';
import type { BackgroundTask } from '../background/task-runner.js';
import { hibernate } from './stop-session.js';

export const idleSweepTask = (intervalMs: number): BackgroundTask => ({
  name: 'session-idle-sweep',
  runsOn: 'one-replica',
  intervalMs,
  async run({ services, now }) {
    const { idleTimeoutMs, bootTimeoutMs } = services.config.sessions;
    const idleSince = new Date(now.getTime() - idleTimeoutMs).toISOString();
    const bootingSince = new Date(now.getTime() - Math.max(idleTimeoutMs, bootTimeoutMs)).toISOString();
    const nowIso = now.toISOString();
    const idle = await services.db
      .selectFrom('sessions')
      .selectAll()
      .where('status', '=', 'running')
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', nowIso)]))
      .where('last_activity_at', '<', idleSince)
      .where((eb) =>
        eb.or([
          eb('last_activity_at', '<', bootingSince),
          eb.and([
            eb.or([eb('initial_prompt', 'is', null), eb('initial_prompt_sent_at', 'is not', null)]),
            eb.not(eb.exists(eb.selectFrom('session_messages').select(sql`1`.as('one')).whereRef('session_messages.session_id', '=', 'sessions.id').where('session_messages.status', 'in', ['pending', 'delivering']))),
          ]),
        ]),
      )
      .execute();
    for (const session of idle) await hibernate(services, session);
  },
});
