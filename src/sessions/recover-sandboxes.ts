/**
 * After a restart of svc (or of the replica that was booting them), sessions are brought back to a true
 * state: a running sandbox whose daemon answers is found again; one that is gone is booted again (it was
 * running when svc stopped, and its files are there); one left provisioning by a replica that died is
 * booted again. Runs on each replica at start: the process provider's sandboxes are local to the machine.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import { nowIso } from '../db/values.js';
import { reloadSession } from './session-status.js';

/** A boot older than this with no daemon was abandoned (its replica died mid-boot). */
const ABANDONED_BOOT_MS = 30_000;

export const recoverSandboxesTask: BackgroundTask = {
  name: 'session-sandbox-recovery',
  runsOn: 'one-replica',
  intervalMs: 15_000,
  async run({ services, now }) {
    const { supervisor } = services.sessions;
    const sessions = await services.db
      .selectFrom('sessions')
      .selectAll()
      .where('status', 'in', ['running', 'provisioning'])
      .where('sandbox_provider', '=', supervisor.provider.name)
      .execute();
    for (const session of sessions) {
      if (supervisor.booting(session.id)) continue;
      if (session.status === 'provisioning' && now.getTime() - Date.parse(session.updated_at) < ABANDONED_BOOT_MS) continue;
      const alive = session.sandbox_ref !== null && (await supervisor.provider.isAlive(session.id, session.sandbox_ref));
      if (alive && session.daemon_url && (await supervisor.daemonAnswers(session.daemon_url))) {
        if (session.status === 'provisioning') {
          await services.db.updateTable('sessions').set({ status: 'running', sandbox_state: 'active', updated_at: nowIso() }).where('id', '=', session.id).where('status', '=', 'provisioning').execute();
        }
        continue;
      }
      const project = await services.db.selectFrom('projects').selectAll().where('id', '=', session.project_id).executeTakeFirst();
      if (!project) continue;
      const moved = await services.db
        .updateTable('sessions')
        .set({ status: 'provisioning', sandbox_state: 'provisioning', runtime_session_id: null, updated_at: nowIso() })
        .where('id', '=', session.id)
        .where('status', 'in', ['running', 'provisioning'])
        .where('sandbox_state', '<>', 'archived')
        .executeTakeFirst();
      // Stopped or deleted since the list was read: its sandbox was ended on purpose.
      if (Number(moved.numUpdatedRows) === 0) continue;
      supervisor.boot(project, await reloadSession(services, session.id));
    }
  },
};
