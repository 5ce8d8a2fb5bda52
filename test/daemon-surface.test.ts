/**
 * The daemon's surface with a ready runtime: authentication, the proxies, streaming, the lease during a
 * slow turn, abort, environment updates, and the clone it made. Real daemon, real runtime, real git.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDaemonFixture, rssMb, type DaemonFixture } from './support/daemon-harness.js';
import { followEvents } from './support/runtime-fixture.js';
import { gate } from './support/scripted-model.js';

let daemon: DaemonFixture;
let rootId: string;

beforeAll(async () => {
  daemon = await createDaemonFixture();
  const started = Date.now();
  await daemon.start();
  const healthyMs = Date.now() - started;
  const health = await daemon.waitHealth((h) => h.runtime.state === 'ready' && h.runtime.root_session_reported);
  rootId = health.runtime.root_session_id;
  console.log(`daemon healthy after ${healthyMs} ms; runtime ready after ${Date.now() - started} ms; daemon RSS ${rssMb(health.daemon.pid)} MB`);
}, 180_000);

afterAll(async () => {
  await daemon?.close();
});

async function prompt(text: string): Promise<void> {
  const response = await daemon.request('POST', `/session/${rootId}/prompt_async`, { body: { parts: [{ type: 'text', text }] } });
  expect(response.status).toBe(204);
}

test('health answers without a user context and names the runtime, repo, branch and commit', async () => {
  const response = await daemon.request('GET', '/svc/health', { context: null });
  expect(response.status).toBe(200);
  const head = execFileSync('git', ['-C', daemon.workspace, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  expect(response.body).toMatchObject({ status: 'ok', daemon: { state: 'ready' }, runtime: { state: 'ready', root_session_id: rootId }, repo: { url: daemon.env.SVC_REPO_URL }, branch: daemon.sessionId, commit: head });
});

test('every other path answers 401 without a valid user context, and the runtime with one', async () => {
  const now = Math.floor(Date.now() / 1000);
  const cases: Array<[string | null, RegExp]> = [
    [null, /missing/],
    ['v1.garbage', /malformed/],
    [daemon.context({ token: 'svc_s_someone_else' }), /signature does not match/],
    // Well past the 300 s window, so a slow machine running this loop cannot bring them back into it.
    [daemon.context({ at: now - 400 }), /expired/],
    [daemon.context({ at: now + 400 }), /expired/],
  ];
  for (const route of ['/session', '/svc/abort', '/svc/refresh', '/svc/env', `/proxy/${daemon.runtimePort}/session`, '/svc/unknown']) {
    for (const [context, reason] of cases) {
      const response = await daemon.request(route.startsWith('/svc/') ? 'POST' : 'GET', route, { context });
      expect(response.status, `${route} with ${context}`).toBe(401);
      expect(response.body.code).toBe('UNAUTHENTICATED');
      expect(response.body.error).toMatch(reason);
    }
  }
  const ok = await daemon.request('GET', '/session', { context: daemon.context({ at: Math.floor(Date.now() / 1000) - 250 }) });
  expect(ok.status).toBe(200);
  expect(ok.body.map((session: any) => session.id)).toContain(rootId);
});

test('/proxy/{port}/ reaches other ports without the user context, never the daemon itself', async () => {
  const seen: http.IncomingHttpHeaders[] = [];
  const target = http.createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(201, { 'content-type': 'text/plain', 'x-target': 'yes' });
    response.end(`${request.method} ${request.url}`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const port = (target.address() as AddressInfo).port;
  try {
    const proxied = await daemon.request('POST', `/proxy/${port}/preview/page?x=1`, { body: { a: 1 } });
    expect(proxied.status).toBe(201);
    expect(proxied.text).toBe('POST /preview/page?x=1');
    expect(proxied.headers.get('x-target')).toBe('yes');
    expect(seen[0]!['x-svc-user-context']).toBeUndefined();

    const own = await daemon.request('GET', `/proxy/${daemon.servicePort}/svc/health`);
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ error: expect.stringContaining('is the daemon itself'), code: 'FORBIDDEN' });
    expect((await daemon.request('GET', '/proxy/99999/')).status).toBe(400);
    expect((await daemon.request('GET', '/proxy/abc/')).body.code).toBe('BAD_REQUEST');
  } finally {
    target.close();
  }
});

test('the clone uses the credential helper and leaves no token in .git/config', async () => {
  const config = fs.readFileSync(path.join(daemon.workspace, '.git', 'config'), 'utf8');
  expect(daemon.api.issued.length).toBeGreaterThan(0);
  for (const token of [...daemon.api.issued, daemon.sandboxToken]) expect(config).not.toContain(token);
  expect(config).toContain('git-credential');
  const git = (...args: string[]) => execFileSync('git', ['-C', daemon.workspace, ...args], { encoding: 'utf8' }).trim();
  expect(git('remote', 'get-url', 'origin')).toBe(daemon.env.SVC_REPO_URL);
  expect(git('symbolic-ref', '--short', 'HEAD')).toBe(daemon.sessionId);
  expect(git('rev-parse', '--abbrev-ref', '@{upstream}')).toBe(`origin/${daemon.sessionId}`);
  expect(git('config', 'user.name')).toBe(`builder (svc session ${daemon.sessionId})`);
  expect(git('config', 'user.email')).toMatch(/noreply/);
  // The runtime's offline markers in the config directory are ignored: the working tree is clean.
  expect(git('status', '--porcelain')).toBe('');
  expect(daemon.api.calls.filter((call) => call.path.endsWith('/git/clone-credential')).every((call) => call.authorized)).toBe(true);
});

test('the event stream passes through unbuffered, and the lease is renewed during a slow turn and released at idle', async () => {
  const slow = gate();
  daemon.model.push({ text: 'Thinking slowly.', gate: slow.promise });
  const events = followEvents(`${daemon.url}/event`, { 'x-svc-user-context': daemon.context() });
  await events.until((event) => event.type === 'server.connected');
  expect(events.response()!.headers.get('content-type')).toMatch(/text\/event-stream/);

  const leaseCalls = () => daemon.api.calls.filter((call) => call.path === '/v1/sandbox/lease');
  const before = leaseCalls().length;
  const requestsBefore = daemon.model.requests.filter((request) => request.agentTurn).length;
  await prompt('Take your time.');
  await daemon.model.waitForAgentRequests(requestsBefore + 1);
  // Renewals keep coming while the model has not answered.
  await daemon.api.until(() => leaseCalls().slice(before).filter((call) => call.body?.busy === true).length >= 3);
  expect(leaseCalls().slice(before).every((call) => call.body?.busy === true && call.authorized)).toBe(true);
  const busyHealth = await daemon.health();
  expect(busyHealth.lease.busy_sessions).toContain(rootId);

  slow.open();
  await events.until((event) => event.type === 'session.idle' && event.properties?.sessionID === rootId);
  await daemon.api.until(() => leaseCalls().slice(before).some((call) => call.body?.busy === false));
  const after = leaseCalls().slice(before);
  expect(after[after.length - 1]!.body).toEqual({ busy: false });
  expect(events.events.some((event) => event.type === 'session.status' && event.properties?.status?.type === 'busy')).toBe(true);
  events.close();
}, 120_000);

test('the runtime sees every injected variable and the project secrets; /svc/env restarts it with changes', async () => {
  daemon.model.push({ tool: 'bash', input: { command: 'env > "$HOME/env-before.txt"', description: 'Save the environment' } }, { text: 'Saved.' });
  const events = followEvents(`${daemon.url}/event`, { 'x-svc-user-context': daemon.context() });
  await events.until((event) => event.type === 'server.connected');
  await prompt('Save your environment.');
  await events.until((event) => event.type === 'session.idle' && event.properties?.sessionID === rootId);
  events.close();
  const env = Object.fromEntries(fs.readFileSync(path.join(daemon.runtimeHome, 'env-before.txt'), 'utf8').split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  for (const name of Object.keys(daemon.env).filter((name) => name.startsWith('SVC_') && name !== 'SVC_INITIAL_PROMPT')) expect(env[name], name).toBe(daemon.env[name]);
  expect(env.PROJECT_SECRET).toBe('secret-value');
  expect(env.HOME).toBe(daemon.runtimeHome);

  const bad = await daemon.request('POST', '/svc/env', { body: { env: { 'NOT A NAME': 'x' } } });
  expect(bad.status).toBe(400);
  expect(bad.body.code).toBe('VALIDATION_FAILED');
  const pidBefore = (await daemon.health()).runtime.pid;
  const changed = await daemon.request('POST', '/svc/env', { body: { env: { NEW_SECRET: 'fresh', PROJECT_SECRET: null } } });
  expect(changed.status).toBe(200);
  expect(changed.body).toEqual({ restarted: true, names: ['NEW_SECRET', 'PROJECT_SECRET'] });
  const health = await daemon.waitHealth((h) => h.runtime.state === 'ready' && h.runtime.root_session_reported);
  expect(health.runtime.pid).not.toBe(pidBefore);
  expect(health.runtime.root_session_id).toBe(rootId);
  const environ = fs.readFileSync(`/proc/${health.runtime.pid}/environ`, 'utf8').split('\0');
  expect(environ).toContain('NEW_SECRET=fresh');
  expect(environ.some((entry) => entry.startsWith('PROJECT_SECRET='))).toBe(false);
}, 180_000);

test('/svc/abort aborts the turn and ends the shell command it left running', async () => {
  const marker = path.join(daemon.root, 'abort-started');
  daemon.model.push({ tool: 'bash', input: { command: `touch ${marker}; sleep 600`, description: 'Wait a long time', timeout: 900000 } });
  await prompt('Wait.');
  while (!fs.existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 50));
  // This sandbox's sleepers only: other tests on the machine run `sleep 600` too (idle runtimes).
  const ours = (pid: string) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`HOME=${daemon.runtimeHome}`);
    } catch {
      return false;
    }
  };
  const sleepers = () => execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes('sleep 600') && !line.includes('ps -eo') && ours(line.trim().split(/\s+/)[0]!));
  expect(sleepers().length).toBeGreaterThan(0);
  const response = await daemon.request('POST', '/svc/abort');
  expect(response.status).toBe(200);
  expect(response.body.aborted).toContain(rootId);
  for (let attempt = 0; sleepers().length > 0 && attempt < 100; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(sleepers()).toEqual([]);
  await daemon.waitHealth((h) => h.lease.busy_sessions.length === 0);
}, 120_000);

test('a WebSocket upgrade passes through /proxy/{port}/ with a user context and is refused without one', async () => {
  const target = http.createServer();
  const upgrades: http.IncomingHttpHeaders[] = [];
  target.on('upgrade', (request, socket) => {
    upgrades.push(request.headers);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
    // An echo: whatever arrives goes back, as frames would.
    socket.on('data', (data) => socket.write(data));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const port = (target.address() as AddressInfo).port;
  const exchange = (context: string | null) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(daemon.servicePort, '127.0.0.1', () => {
        socket.write(`GET /proxy/${port}/ws HTTP/1.1\r\nhost: sandbox\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n${context ? `x-svc-user-context: ${context}\r\n` : ''}\r\n`);
      });
      let received = '';
      socket.on('data', (data) => {
        received += data.toString();
        if (received.includes('\r\n\r\n') && received.startsWith('HTTP/1.1 101') && !received.includes('ping')) socket.write('ping');
        if (received.includes('ping') || !received.startsWith('HTTP/1.1 101')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('close', () => resolve(received));
    });
  try {
    const open = await exchange(daemon.context());
    expect(open).toMatch(/^HTTP\/1.1 101/);
    expect(open).toContain('ping');
    expect(upgrades[0]!['x-svc-user-context']).toBeUndefined();
    const refused = await exchange(null);
    expect(refused).toMatch(/^HTTP\/1.1 401/);
    expect(refused).toContain('"code":"UNAUTHENTICATED"');
    expect(upgrades.length).toBe(1);
  } finally {
    target.close();
  }
});

test('the agent commits as the session and pushes its branch with the just-in-time credential', async () => {
  daemon.model.push({ tool: 'bash', input: { command: 'echo work > work.txt && git add work.txt && git commit -q -m "Agent work" && git push -q origin HEAD', description: 'Commit and push' } }, { text: 'Pushed.' });
  const events = followEvents(`${daemon.url}/event`, { 'x-svc-user-context': daemon.context() });
  await events.until((event) => event.type === 'server.connected');
  const issuedBefore = daemon.api.issued.length;
  await prompt('Commit your work and push it.');
  await events.until((event) => event.type === 'session.idle' && event.properties?.sessionID === rootId);
  events.close();
  const bare = path.join(daemon.root, 'git', 'repo.git');
  const pushed = execFileSync('git', ['--git-dir', bare, 'log', '-1', '--format=%an <%ae>|%s', daemon.sessionId], { encoding: 'utf8' }).trim();
  expect(pushed).toBe(`builder (svc session ${daemon.sessionId}) <session-${daemon.sessionId}@noreply.svc.invalid>|Agent work`);
  // The push asked the API for a fresh credential; none was written anywhere in the repository.
  expect(daemon.api.issued.length).toBeGreaterThan(issuedBefore);
  const search = spawnSync('grep', ['-rl', '--', daemon.api.issued.at(-1)!, path.join(daemon.workspace, '.git'), daemon.runtimeHome], { encoding: 'utf8' });
  expect(search.status).toBe(1);
  expect(search.stdout).toBe('');
}, 120_000);
