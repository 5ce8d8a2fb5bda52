/**
 * The daemon's life: 503 while the runtime cannot start yet, the first prompt sent once, a killed daemon
 * restarted by the entrypoint (same root session, no second first prompt), refresh, and a clean stop.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDaemonFixture, rssMb, type DaemonFixture } from './support/daemon-harness.js';

let daemon: DaemonFixture;
const FIRST_PROMPT = 'Start the work on the lifecycle task.';

beforeAll(async () => {
  daemon = await createDaemonFixture({ initialPrompt: FIRST_PROMPT, script: [{ text: 'Started.' }] });
  // The API is unreachable at first: the clone cannot get its credential, so the runtime cannot start.
  daemon.api.available = false;
  await daemon.start();
}, 60_000);

afterAll(async () => {
  await daemon?.close();
});

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/State:\s+Z/.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));

/*
 * One story, one test: each phase starts from the state the one before left (the API coming back, the
 * daemon killed, the branch refreshed, the entrypoint stopped), so the phases cannot be shuffled apart.
 */
test('the daemon lives through a runtime that cannot start, a kill, a refresh and a stop', async () => {
  // 1. the daemon answers while the runtime cannot start: health says why, the runtime paths 503, then it recovers.
  {
    const health = await daemon.waitHealth((h) => h.daemon.state === 'error');
    expect(health.status).toBe('error');
    expect(health.daemon.error).toMatch(/Preparing the workspace failed/);
    expect(health.runtime.state).toBe('stopped');

    const booting = await daemon.request('GET', '/session');
    expect(booting.status).toBe(503);
    expect(booting.body).toEqual({ error: 'The agent runtime is starting; try again in a few seconds.', code: 'RUNTIME_STARTING' });
    expect(booting.headers.get('retry-after')).toBe('2');
    // Authentication comes first, booting or not.
    expect((await daemon.request('GET', '/session', { context: null })).status).toBe(401);

    daemon.api.available = true;
    const ready = await daemon.waitHealth((h) => h.runtime.state === 'ready' && h.runtime.root_session_reported && h.runtime.initial_prompt_sent);
    expect(ready.status).toBe('ok');
    expect((await daemon.request('GET', '/session')).status).toBe(200);
    const reports = daemon.api.calls.filter((call) => call.method === 'PUT' && call.path === '/v1/sandbox/runtime-session');
    expect(reports.at(-1)!.body).toEqual({ runtime_session_id: ready.runtime.root_session_id });
  }
  // 2. the first prompt reaches the root session once, and a killed daemon is restarted without sending it again.
  {
    daemon.api.available = true;
    const before = await daemon.waitHealth((h) => h.runtime.state === 'ready' && h.runtime.initial_prompt_sent);
    await daemon.model.waitForAgentRequests(1);
    const firstPrompts = () => daemon.model.requests.filter((request) => request.agentTurn && request.lastUserText.includes(FIRST_PROMPT)).length;
    expect(firstPrompts()).toBe(1);
    console.log(`daemon RSS ${rssMb(before.daemon.pid)} MB`);

    process.kill(before.daemon.pid, 'SIGKILL');
    const after = await daemon.waitHealth((h) => h.daemon.pid !== before.daemon.pid && h.runtime.state === 'ready' && h.runtime.root_session_reported);
    expect(after.runtime.root_session_id).toBe(before.runtime.root_session_id);
    expect(after.runtime.initial_prompt_sent).toBe(true);
    // The runtime the killed daemon left behind was ended, not duplicated.
    expect(alive(before.runtime.pid)).toBe(false);
    expect(daemon.log()).toMatch(/svc-agent exited \(SIGKILL\); restarting/);
    const sessions = await daemon.request('GET', '/session');
    expect(sessions.body.map((session: any) => session.id)).toEqual([before.runtime.root_session_id]);
    expect(firstPrompts()).toBe(1);
  }
  // 3. /svc/refresh fast-forwards the session branch and restarts the runtime in place.
  {
    daemon.api.available = true;
    const other = path.join(daemon.root, 'other');
    execFileSync('git', ['clone', '-q', '--branch', daemon.sessionId, path.join(daemon.root, 'git', 'repo.git'), other]);
    fs.writeFileSync(path.join(other, 'notes.md'), 'from outside\n');
    execFileSync('git', ['-C', other, 'add', '.']);
    execFileSync('git', ['-C', other, '-c', 'user.name=O', '-c', 'user.email=o@example.com', 'commit', '-q', '-m', 'Out-of-band change']);
    execFileSync('git', ['-C', other, 'push', '-q', 'origin', 'HEAD']);
    const head = execFileSync('git', ['-C', other, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

    const before = await daemon.waitHealth((h) => h.runtime.state === 'ready');
    const response = await daemon.request('POST', '/svc/refresh');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ refreshed: true, branch: daemon.sessionId, commit: head });
    expect(fs.readFileSync(path.join(daemon.workspace, 'notes.md'), 'utf8')).toBe('from outside\n');
    const after = await daemon.waitHealth((h) => h.runtime.state === 'ready' && h.runtime.root_session_reported);
    expect(after.runtime.pid).not.toBe(before.runtime.pid);
    expect(after.commit).toBe(head);
    expect(after.runtime.root_session_id).toBe(before.runtime.root_session_id);
  }
  // 4. SIGTERM to the entrypoint stops the daemon and the runtime and exits.
  {
    daemon.api.available = true;
    const health = await daemon.waitHealth((h) => h.runtime.state === 'ready');
    const entrypoint = daemon.entrypoint!;
    const exited = new Promise<number | null>((resolve) => entrypoint.once('exit', (code) => resolve(code)));
    entrypoint.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(alive(health.daemon.pid)).toBe(false);
    expect(alive(health.runtime.pid)).toBe(false);
  }
}, 600_000);
