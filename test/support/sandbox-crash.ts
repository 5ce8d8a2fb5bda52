/**
 * svc killed with two sandboxes running, one of which dies too while svc is down (a reboot, an OOM kill):
 * the next `svc serve` finds the survivor running as it was, removes what the dead one left on the host
 * (namespace, link, rules, cgroup, a container, processes that outlived their entrypoint) and boots its
 * session again; deleting both sessions then leaves nothing. Runs `svc serve` as a user does, per provider.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs } from '../../src/git/testing/fixtures.js';
import { DockerEngine } from '../../src/sessions/providers/docker-engine.js';
import { alive, sandboxProcesses } from '../../src/sessions/providers/host-processes.js';
import { poll } from './poll.js';
import { pushStarterRepository } from './sandbox-conformance.js';
import { SERVE_TOKEN, serveApi as api, serveSvc, type ServedSvc } from './svc-serve.js';

export interface CrashOptions {
  provider: 'process' | 'bubblewrap' | 'docker';
  setup?: () => Promise<void>;
  /** What the host shows of a session's sandbox; `files:` entries are kept files, not running parts. */
  hostTraces: (sessionId: string) => Promise<string[]>;
}

export function sandboxCrash(options: CrashOptions): void {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-crash-${options.provider}-`));
  const children: ChildProcess[] = [];

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    removeTempDirs();
  });

  async function serve(): Promise<ServedSvc> {
    const served = await serveSvc(dataDir, { SVC_SANDBOX_PROVIDER: options.provider, SVC_SANDBOX_WATCH_INTERVAL_MS: '200' });
    children.push(served.child);
    return served;
  }

  async function sessionUntil(url: string, route: string, done: (session: any) => boolean): Promise<any> {
    return poll('the session runs', async () => (await api(url, 'GET', route)).body.session, (session) => {
      if (session.status === 'failed') throw new Error(`the session failed: ${JSON.stringify(session)}`);
      return done(session);
    }, { withinMs: 90_000, everyMs: 50 });
  }

  const running = async (sessionId: string) => (await options.hostTraces(sessionId)).filter((trace) => !trace.startsWith('files:'));

  it(`finds the ${options.provider} sandbox that outlived svc, cleans what a dead one left, and boots its session again`, { timeout: 300_000 }, async () => {
    await options.setup?.();
    const first = await serve();
    const { body } = await api(first.url, 'POST', '/v1/projects', { name: 'Crash' });
    await pushStarterRepository(body.project.clone_url, SERVE_TOKEN);
    const base = `/v1/projects/${body.project.id}/sessions`;
    const [survivor, killed] = [(await api(first.url, 'POST', base, {})).body.session.id as string, (await api(first.url, 'POST', base, {})).body.session.id as string];
    const survivorBefore = await sessionUntil(first.url, `${base}/${survivor}`, (s) => s.status === 'running');
    await sessionUntil(first.url, `${base}/${killed}`, (s) => s.status === 'running');
    const oneSandbox = await running(killed);

    // svc dies, then one sandbox does: what it set up on the host stays behind.
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    if (options.provider === 'docker') {
      const containers = (await new DockerEngine().expect([200], 'GET', `/containers/json?filters=${encodeURIComponent(JSON.stringify({ label: [`svc.session=${killed}`] }))}`)).body as Array<{ Id: string }>;
      await new DockerEngine().expect([204], 'POST', `/containers/${containers[0]!.Id}/kill`);
    } else {
      const sandbox = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandboxes', killed, 'sandbox.json'), 'utf8')) as { pid: number };
      process.kill(-sandbox.pid, 'SIGKILL');
      await poll('the sandbox leader exits', () => fs.existsSync(`/proc/${sandbox.pid}`), (exists) => !exists, { withinMs: 10_000 });
    }
    // The process provider's runtime runs in a process group of its own: it outlives its entrypoint.
    const strays = sandboxProcesses(killed);

    const restartedAt = new Date().toISOString();
    const second = await serve();
    const rebooted = await sessionUntil(second.url, `${base}/${killed}`, (s) => s.status === 'running' && s.updated_at > restartedAt);
    expect(rebooted.sandbox).toEqual({ provider: options.provider, state: 'active' });
    // Found as it was, not booted again.
    expect((await api(second.url, 'GET', `${base}/${survivor}`)).body.session).toMatchObject({ status: 'running', updated_at: survivorBefore.updated_at });
    expect(strays.filter(alive)).toEqual([]);
    // Without the clean-up the dead sandbox's link and rules would be there beside the new ones.
    expect((await running(killed)).length).toBe(oneSandbox.length);

    for (const sessionId of [survivor, killed]) {
      expect((await api(second.url, 'DELETE', `${base}/${sessionId}`)).status).toBe(204);
      expect(await options.hostTraces(sessionId)).toEqual([]);
      await poll(`the processes of ${sessionId} end`, () => sandboxProcesses(sessionId), (pids) => pids.length === 0, { withinMs: 10_000 });
    }
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
  });
}
