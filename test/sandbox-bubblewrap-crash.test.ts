/**
 * svc killed with a bubblewrap sandbox running, and the sandbox gone too (a reboot, an OOM kill): the next
 * `svc serve` removes the namespace, link and rules the dead sandbox left, and boots the session again, so
 * the host holds exactly one sandbox's worth for it; deleting the session then leaves nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { bubblewrapTraces } from './support/bubblewrap-traces.js';
import { repoRoot } from './support/runtime-fixture.js';
import { pushStarterRepository } from './support/sandbox-conformance.js';

const token = 'svc_u_crash_test_token_0123456789';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-crash-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  removeTempDirs();
});

async function serve(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'svc.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, DATABASE_URL: '', SVC_ADMIN_TOKEN: token, SVC_SANDBOX_PROVIDER: 'bubblewrap', SVC_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /serving on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`svc serve exited with ${code}: ${stderr}`)));
  });
  return { url, child };
}

async function api(url: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(url + route, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function runningSession(url: string, projectId: string, sessionId: string): Promise<any> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { body } = await api(url, 'GET', `/v1/projects/${projectId}/sessions/${sessionId}`);
    if (body.session.status === 'running') return body.session;
    if (body.session.status === 'failed' || Date.now() > deadline) throw new Error(`the session did not run: ${JSON.stringify(body.session)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('cleans what a dead sandbox left after svc was killed, and boots the session again', { timeout: 240_000 }, async () => {
  const first = await serve();
  const { body } = await api(first.url, 'POST', '/v1/projects', { name: 'Crash' });
  await pushStarterRepository(body.project.clone_url, token);
  const created = await api(first.url, 'POST', `/v1/projects/${body.project.id}/sessions`, {});
  const sessionId = created.body.session.id as string;
  await runningSession(first.url, body.project.id, sessionId);
  const oneSandbox = bubblewrapTraces(sessionId);
  expect(oneSandbox.filter((trace) => trace.startsWith('namespace:'))).toHaveLength(1);
  expect(oneSandbox.filter((trace) => trace.startsWith('link:'))).toHaveLength(1);

  // svc dies, then the sandbox does: what it set up on the host stays behind.
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const sandbox = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandboxes', sessionId, 'sandbox.json'), 'utf8')) as { pid: number; link: { hostLink: string } };
  process.kill(-sandbox.pid, 'SIGKILL');
  const deadline = Date.now() + 10_000;
  while (fs.existsSync(`/proc/${sandbox.pid}`) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(bubblewrapTraces(sessionId)).toEqual(oneSandbox);

  const restartedAt = new Date().toISOString();
  const second = await serve();
  // The start-up recovery finds the sandbox gone and boots it again.
  const waitUntil = Date.now() + 90_000;
  let session: any;
  for (;;) {
    session = (await api(second.url, 'GET', `/v1/projects/${body.project.id}/sessions/${sessionId}`)).body.session;
    if (session.status === 'running' && session.updated_at > restartedAt) break;
    if (session.status === 'failed' || Date.now() > waitUntil) throw new Error(`the session did not run again: ${JSON.stringify(session)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(session.sandbox).toEqual({ provider: 'bubblewrap', state: 'active' });
  const after = bubblewrapTraces(sessionId);
  expect(after.filter((trace) => trace.startsWith('link:'))).toHaveLength(1);
  // Without the clean-up the dead sandbox's link and rules would be there beside the new ones.
  expect(after).toHaveLength(oneSandbox.length);

  expect((await api(second.url, 'DELETE', `/v1/projects/${body.project.id}/sessions/${sessionId}`)).status).toBe(204);
  expect(bubblewrapTraces(sessionId)).toEqual([]);
  second.child.kill('SIGTERM');
  await new Promise((resolve) => second.child.once('exit', resolve));
});
