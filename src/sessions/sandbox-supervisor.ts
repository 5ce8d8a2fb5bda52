/**
 * Boots, stops and removes sandboxes for the session lifecycle. A boot runs after the request that asked
 * for it has been answered (the session is `provisioning`): the provider starts the sandbox, then the
 * session turns `running` once its daemon answers `GET /svc/health`, or `failed` with the reason.
 * Boots under way are tracked here only so that stopping svc waits for them; what a boot achieved is in the
 * session row, so a replica that dies mid-boot leaves a session the start-up recovery settles.
 */
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import type { SessionStatusEvent } from '../events.js';
import { nowIso } from '../db/values.js';
import { sandboxEnvironment } from './environment.js';
import { sandboxSettings } from './sandbox-settings.js';
import type { SandboxProvider } from './providers/provider.js';
import type { SessionRow } from './session-row.js';


const HEALTH_POLL_MS = 10;

export class SandboxSupervisor {
  private readonly boots = new Map<string, Promise<void>>();
  /** Stops under way: a wake that arrives while the sandbox is still shutting down starts after it. */
  private readonly stops = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    readonly provider: SandboxProvider,
    private readonly services: () => Services,
    private readonly onStatus: (event: SessionStatusEvent) => void,
  ) {}

  /** Starts the sandbox of a `provisioning` session in the background; resolves at once. */
  boot(project: ProjectRow, session: SessionRow): void {
    if (this.boots.has(session.id) || this.closed) return;
    const boot = this.runBoot(project, session).finally(() => this.boots.delete(session.id));
    this.boots.set(session.id, boot);
  }

  /** The boot under way for a session, if any (tests and shutdown wait for it). */
  booting(sessionId: string): Promise<void> | undefined {
    return this.boots.get(sessionId);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.boots.values()]);
  }

  /**
   * Ends the session's sandbox. `beforeEnd` runs while the sandbox still answers (the conversation is kept
   * then); it is part of the stop, so a wake that comes meanwhile starts only once the sandbox has ended.
   */
  async stop(session: SessionRow, beforeEnd?: () => Promise<void>): Promise<void> {
    // Tracked from the start, so a wake that comes while this one waits for a boot starts after it.
    const stopping = (async () => {
      await this.boots.get(session.id)?.catch(() => undefined);
      await beforeEnd?.().catch(() => undefined);
      // The row the caller read may predate the boot that started the sandbox: its reference is read now.
      const ref = await this.sandboxRef(session.id);
      if (ref) await this.provider.stop(session.id, ref);
    })().finally(() => {
      if (this.stops.get(session.id) === stopping) this.stops.delete(session.id);
    });
    this.stops.set(session.id, stopping);
    await stopping;
  }

  async remove(session: SessionRow): Promise<void> {
    await this.boots.get(session.id)?.catch(() => undefined);
    await this.provider.remove(session.id, await this.sandboxRef(session.id));
  }

  private async sandboxRef(sessionId: string): Promise<string | null> {
    const row = await this.services().db.selectFrom('sessions').select('sandbox_ref').where('id', '=', sessionId).executeTakeFirst();
    return row?.sandbox_ref ?? null;
  }

  /** Whether the session still wants this boot: provisioning, and not deleted. */
  private async stillProvisioning(sessionId: string): Promise<boolean> {
    const row = await this.services().db.selectFrom('sessions').select(['status', 'sandbox_state']).where('id', '=', sessionId).executeTakeFirst();
    return row?.status === 'provisioning' && row.sandbox_state !== 'archived';
  }

  /** Whether the daemon answers its health check now. */
  async daemonAnswers(daemonUrl: string, timeoutMs = 1_000): Promise<boolean> {
    try {
      const response = await fetch(`${daemonUrl}/svc/health`, { signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }

  private async runBoot(project: ProjectRow, session: SessionRow): Promise<void> {
    const services = this.services();
    const { bootTimeoutMs } = services.config.sessions;
    let error: string | null = null;
    try {
      // Started on the old sandbox's processes as they exit, the new boot would adopt a dying daemon.
      await this.stops.get(session.id)?.catch(() => undefined);
      // Asked for on a row read earlier (a wake, the recovery task): a session stopped or deleted since
      // gets no sandbox, for nothing would ever stop that one.
      if (!(await this.stillProvisioning(session.id))) return;
      const env = {
        ...(await sandboxEnvironment({ ...services, secretKey: services.sessions.secretKey }, project, session)),
        // Not in spec 3's table: how often the daemon renews the lease is svc's setting, as is the lease's life.
        SVC_LEASE_RENEW_MS: String(services.config.sessions.leaseRenewMs),
      };
      const settings = await sandboxSettings(services, project, session);
      const started = await this.provider.start({ sessionId: session.id, env, ref: session.sandbox_ref, settings });
      // The reference is the sandbox's identity (its files, its container) whatever happens next.
      await services.db.updateTable('sessions').set({ sandbox_ref: started.ref }).where('id', '=', session.id).execute();
      const recorded = await services.db
        .updateTable('sessions')
        .set({ daemon_url: started.daemonUrl })
        .where('id', '=', session.id)
        .where('status', '=', 'provisioning')
        .where('sandbox_state', '<>', 'archived')
        .executeTakeFirst();
      if (Number(recorded.numUpdatedRows) === 0) {
        // Stopped or deleted while the sandbox started, by a request that found no sandbox to end yet
        // (another replica's, or one that came before this boot was tracked): it is ended here.
        const now = await services.db.selectFrom('sessions').select('sandbox_state').where('id', '=', session.id).executeTakeFirst();
        const deleted = now === undefined || now.sandbox_state === 'archived';
        await (deleted ? this.provider.remove(session.id, started.ref) : this.provider.stop(session.id, started.ref)).catch(() => undefined);
        return;
      }
      const deadline = Date.now() + bootTimeoutMs;
      let healthy = false;
      while (!this.closed && Date.now() < deadline) {
        if (await this.daemonAnswers(started.daemonUrl, 500)) {
          healthy = true;
          break;
        }
        if (!(await this.provider.isAlive(session.id, started.ref))) {
          error = 'The sandbox exited before its daemon answered; its log is in the sandbox directory. Resume the session to try again.';
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
      }
      if (this.closed && !healthy) return;
      if (!healthy) {
        error ??= `The sandbox's daemon did not answer within ${Math.round(bootTimeoutMs / 1000)} s; resume the session to try again.`;
        await this.provider.stop(session.id, started.ref).catch(() => undefined);
      }
    } catch (caught) {
      error = `The sandbox could not be started: ${caught instanceof Error ? caught.message : String(caught)}`;
    }
    const at = nowIso();
    const next = error
      ? ({ status: 'failed', sandbox_state: 'error', error } as const)
      : ({ status: 'running', sandbox_state: 'active', error: null } as const);
    // Only a session still provisioning moves: one stopped or deleted meanwhile stays as it was left.
    const updated = await services.db
      .updateTable('sessions')
      .set({ ...next, updated_at: at, last_activity_at: at })
      .where('id', '=', session.id)
      .where('status', '=', 'provisioning')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 1) {
      this.onStatus({ sessionId: session.id, projectId: session.project_id, status: next.status, sandboxState: next.sandbox_state, at });
    }
  }
}
