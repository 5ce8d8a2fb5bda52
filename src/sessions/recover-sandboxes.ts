/**
 * Keeps sessions true to their sandboxes, every SVC_SANDBOX_WATCH_INTERVAL_MS:
 * - a running session whose sandbox died while svc watched it (killed, crashed, out of memory, its Docker
 *   engine restarted) becomes `failed` with what happened as its `error`, and what the sandbox left on the
 *   host is removed; resuming boots it again on its kept files;
 * - a running session whose sandbox lives but whose daemon has not answered for the boot timeout (the
 *   daemon cannot bind its port, or crashes as it starts) is stopped and becomes `failed` the same way;
 * - on the first run after svc (re)starts, a running session whose sandbox is gone is booted again instead:
 *   it died while svc was not running (svc was killed, the machine restarted) and its files are there;
 * - a session left provisioning by a replica that died mid-boot is booted again;
 * - a deleted session whose sandbox could not be removed then (its Docker engine did not answer, or svc
 *   stopped mid-delete) still has its sandbox's reference: the sandbox is removed now, if it can be.
 * Runs on one replica at a time; the process and bubblewrap providers' sandboxes are local to the machine.
 */
import pMap from 'p-map';
import type { BackgroundTask } from '../background/task-runner.js';
import type { Services } from '../context.js';
import { nowIso } from '../db/values.js';
import type { SessionRow } from './session-row.js';
import { moveSession, reloadSession } from './session-status.js';

/** A boot older than this with no daemon was abandoned (its replica died mid-boot). */
const ABANDONED_BOOT_MS = 30_000;
/** Sessions whose sandbox is looked at together. */
const CHECKS_AT_ONCE = 16;

/** Removes the sandboxes of deleted sessions that are still there; one that cannot be removed yet is tried again next time. */
async function removeDeleted(services: Services): Promise<void> {
  const { supervisor } = services.sessions;
  const deleted = await services.db
    .selectFrom('sessions')
    .select(['id', 'sandbox_ref'])
    .where('sandbox_state', '=', 'archived')
    .where('sandbox_ref', 'is not', null)
    .where('sandbox_provider', '=', supervisor.provider.name)
    .execute();
  for (const session of deleted) {
    // A delete under way waits for this boot and then removes the sandbox itself.
    if (supervisor.booting(session.id)) continue;
    try {
      await supervisor.provider.remove(session.id, session.sandbox_ref);
    } catch {
      continue;
    }
    await services.db.updateTable('sessions').set({ sandbox_ref: null }).where('id', '=', session.id).where('sandbox_ref', '=', session.sandbox_ref).execute();
  }
}

export function recoverSandboxesTask(intervalMs: number): BackgroundTask {
  let firstRun = true;
  /** When each running session's daemon was first found silent (this process's view; a restart starts afresh). */
  const silentSince = new Map<string, number>();

  async function fail(services: Services, session: SessionRow, error: string): Promise<void> {
    const { supervisor } = services.sessions;
    // Its namespace, link, rules, cgroup and stray processes go before the session says it can be resumed.
    const stopped = await supervisor.stop(session).then(
      () => true,
      () => false,
    );
    // A container its engine could not stop (the engine did not answer) is marked in the database, so that it is
    // stopped once the engine answers again without having restarted, even by another replica or a restarted svc.
    await moveSession(services, services.db, session, { status: 'failed', sandbox_state: 'error', error, from: ['running'], extra: { lease_expires_at: null, ...(stopped ? {} : { sandbox_unstopped_since: nowIso() }) } });
  }

  /** Stops the sandboxes of failed sessions marked unstopped, now that their engine may answer; a resumed or deleted one is its boot's or delete's. */
  async function stopUnstopped(services: Services): Promise<void> {
    const { supervisor } = services.sessions;
    const marked = await services.db
      .selectFrom('sessions')
      .selectAll()
      .where('sandbox_unstopped_since', 'is not', null)
      .where('sandbox_provider', '=', supervisor.provider.name)
      .execute();
    for (const session of marked) {
      if (supervisor.booting(session.id)) continue;
      const clear = () =>
        services.db.updateTable('sessions').set({ sandbox_unstopped_since: null }).where('id', '=', session.id).where('sandbox_unstopped_since', '=', session.sandbox_unstopped_since).execute();
      if (session.status !== 'failed' || session.sandbox_state !== 'error') {
        await clear();
        continue;
      }
      try {
        await supervisor.stop(session);
      } catch {
        // The engine still does not answer: tried again next time.
        continue;
      }
      await clear();
    }
  }

  /** One session against its sandbox: running as it should, failed for what happened to it, or booted again. */
  async function watch(services: Services, session: SessionRow, { afterRestart, now }: { afterRestart: boolean; now: Date }): Promise<void> {
    const { supervisor } = services.sessions;
    if (supervisor.booting(session.id)) return;
    if (session.status === 'provisioning' && now.getTime() - Date.parse(session.updated_at) < ABANDONED_BOOT_MS) return;
    const alive = session.sandbox_ref !== null && (await supervisor.provider.isAlive(session.id, session.sandbox_ref));
    if (alive && session.daemon_url && (await supervisor.daemonAnswers(session.daemon_url))) {
      silentSince.delete(session.id);
      if (session.status === 'provisioning') {
        await services.db.updateTable('sessions').set({ status: 'running', sandbox_state: 'active', updated_at: nowIso() }).where('id', '=', session.id).where('status', '=', 'provisioning').execute();
      }
      return;
    }
    if (session.status === 'running' && !afterRestart) {
      if (!alive) {
        await fail(services, session, await supervisor.provider.endedReason(session.id, session.sandbox_ref ?? ''));
        return;
      }
      const since = silentSince.get(session.id) ?? Date.now();
      silentSince.set(session.id, since);
      const { bootTimeoutMs } = services.config.sessions;
      if (Date.now() - since >= bootTimeoutMs) {
        silentSince.delete(session.id);
        await fail(services, session, `The sandbox's daemon stopped answering for ${Math.round(bootTimeoutMs / 1000)} s (it keeps crashing, or another program holds its port ${new URL(session.daemon_url ?? 'http://x:8000').port || '8000'}); the sandbox was stopped. Resume the session to start it again with its files.`);
      }
      return;
    }
    const project = await services.db.selectFrom('projects').selectAll().where('id', '=', session.project_id).executeTakeFirst();
    if (!project) return;
    const moved = await services.db
      .updateTable('sessions')
      .set({ status: 'provisioning', sandbox_state: 'provisioning', runtime_session_id: null, updated_at: nowIso() })
      .where('id', '=', session.id)
      .where('status', 'in', ['running', 'provisioning'])
      .where('sandbox_state', '<>', 'archived')
      .executeTakeFirst();
    // Stopped or deleted since the list was read: its sandbox was ended on purpose.
    if (Number(moved.numUpdatedRows) === 0) return;
    supervisor.boot(project, await reloadSession(services, session.id));
  }

  return {
    name: 'session-sandbox-recovery',
    runsOn: 'one-replica',
    intervalMs,
    async run({ services, now }) {
      const { supervisor } = services.sessions;
      const afterRestart = firstRun;
      firstRun = false;
      const sessions = await services.db
        .selectFrom('sessions')
        .selectAll()
        .where('status', 'in', ['running', 'provisioning'])
        .where('sandbox_provider', '=', supervisor.provider.name)
        .execute();
      await removeDeleted(services);
      await stopUnstopped(services);
      for (const id of silentSince.keys()) if (!sessions.some((session) => session.id === id && session.status === 'running')) silentSince.delete(id);
      // Several sessions at once: an engine that hangs costs each of its sessions the engine's timeout, which
      // one session after another would make minutes before the watch comes round again.
      await pMap(sessions, (session) => watch(services, session, { afterRestart, now }), { concurrency: CHECKS_AT_ONCE });
    },
  };
}
