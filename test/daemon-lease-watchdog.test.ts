/**
 * The lease keeper against the runtime's known failure: a session whose status stays `busy` after its turn
 * ended. The real runtime does this only by accident, so a small HTTP stand-in plays that runtime (its
 * event stream, `/session/status` and the conversation); the API is the sandbox API stub over real HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { ApiClient } from '../src/daemon/api-client.js';
import { LeaseKeeper } from '../src/daemon/lease-keeper.js';
import { RuntimeClient } from '../src/daemon/runtime-client.js';
import { startSandboxApiStub, type SandboxApiStub } from './support/sandbox-api-stub.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface StuckRuntime {
  port: number;
  /** Resolves once the lease keeper follows the event stream. */
  connected: Promise<void>;
  emit(event: unknown): void;
  lastMessageCompleted: boolean;
}

async function startStuckRuntime(sessionId: string): Promise<StuckRuntime> {
  const streams: http.ServerResponse[] = [];
  let onConnect!: () => void;
  const connected = new Promise<void>((resolve) => (onConnect = resolve));
  const runtime: StuckRuntime = { port: 0, connected, emit: (event) => streams.forEach((stream) => stream.write(`data: ${JSON.stringify(event)}\n\n`)), lastMessageCompleted: false };
  const server = http.createServer((request, response) => {
    if (request.url === '/event') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${JSON.stringify({ type: 'server.connected', properties: {} })}\n\n`);
      streams.push(response);
      onConnect();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url === '/session/status') return response.end(JSON.stringify({ [sessionId]: { type: 'busy' } }));
    if (request.url === `/session/${sessionId}/message`) {
      return response.end(JSON.stringify([{ info: { role: 'assistant', time: { created: 1, ...(runtime.lastMessageCompleted ? { completed: 2 } : {}) } }, parts: [{ type: 'text', text: 'done' }] }]));
    }
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  runtime.port = (server.address() as AddressInfo).port;
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return runtime;
}

async function setup(stuckMs: number) {
  const projectId = randomUUID();
  const sandboxToken = `svc_s_${randomBytes(8).toString('hex')}`;
  const api: SandboxApiStub = await startSandboxApiStub({ projectId, sandboxToken, gitRoot: os.tmpdir() });
  cleanups.push(() => api.close());
  const sessionId = `ses_${randomBytes(6).toString('hex')}`;
  const runtime = await startStuckRuntime(sessionId);
  const keeper = new LeaseKeeper({ api: new ApiClient({ apiUrl: api.apiUrl, sandboxToken, projectId }), runtime: new RuntimeClient(runtime.port), renewMs: 50, stuckMs, isRuntimeReady: () => true, log: () => {} });
  keeper.start();
  keeper.follow();
  cleanups.push(() => keeper.stop());
  const leases = () => api.calls.filter((call) => call.path === '/v1/sandbox/lease').map((call) => call.body.busy as boolean);
  return { api, runtime, keeper, leases, sessionId };
}

test('a status stuck at busy after its turn ended stops holding the lease', async () => {
  const { api, runtime, keeper, leases, sessionId } = await setup(300);
  await runtime.connected;
  runtime.emit({ type: 'session.status', properties: { sessionID: sessionId, status: { type: 'busy' } } });
  await api.until(() => leases().filter((busy) => busy).length >= 3);
  // While the turn is really running (its last message not completed), quiet or not, the lease is kept.
  const renewalsWhileRunning = leases().filter((busy) => busy).length;
  await api.until(() => leases().filter((busy) => busy).length >= renewalsWhileRunning + 8);
  expect(leases().slice(-1)).toEqual([true]);

  runtime.lastMessageCompleted = true;
  await api.until(() => leases().at(-1) === false);
  // Released for good: the session is no longer counted busy, whatever the status says.
  while (keeper.held !== false) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(keeper.busy.size).toBe(0);
});

test('session.error releases the lease, and renewals continue through an API outage', async () => {
  const { api, runtime, keeper, leases, sessionId } = await setup(60_000);
  await runtime.connected;
  runtime.emit({ type: 'session.status', properties: { sessionID: sessionId, status: { type: 'retry', attempt: 1 } } });
  await api.until(() => leases().includes(true));

  api.available = false;
  const failedBefore = api.calls.length;
  await api.until(() => api.calls.length >= failedBefore + 3);
  expect(keeper.lastError).toMatch(/answered 503/);
  api.available = true;
  const renewed = keeper.renewals;
  await api.until(() => keeper.renewals > renewed);
  expect(keeper.lastError).toBeNull();

  runtime.emit({ type: 'session.error', properties: { sessionID: sessionId, error: { name: 'APIError' } } });
  await api.until(() => leases().at(-1) === false);
  expect(keeper.busy.size).toBe(0);
});
