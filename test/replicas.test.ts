import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from './support/poll.js';
import { startReplicas, type Replicas } from './support/replicas.js';
import { testDialect, type TestServer } from './support/test-server.js';

/** Two svc processes sharing one database (and data dir) behave as one service. */
describe(`two replicas on one ${testDialect} database`, () => {
  let replicas: Replicas;
  let first: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    // A short token cache, so the test of a revocation on the other replica waits for little.
    replicas = await startReplicas({ adminToken: 'svc_u_replica_admin', env: { SVC_TOKEN_CACHE_MS: '100' } });
    ({ first, second } = replicas);
  });
  afterAll(async () => {
    await replicas.close();
  });

  it('boots concurrently into one account with one admin', async () => {
    const fromFirst = await first.request('POST', '/v1/projects', { body: { name: 'Shared' } });
    expect(fromFirst.status).toBe(201);
    const fromSecond = await second.request('GET', `/v1/projects/${fromFirst.body.project.id}`);
    expect(fromSecond.status).toBe(200);
  });

  it('numbers concurrent publishes of one slug 1..n with no gaps or duplicates', async () => {
    const publishes = Array.from({ length: 24 }, (_, i) =>
      (i % 2 ? first : second).request('POST', '/api/dashboards', { body: { slug: 'contended', title: `Publish ${i}` } }),
    );
    const responses = await Promise.all(publishes);
    expect(responses.map((r) => r.status).sort(), JSON.stringify(responses.map((r) => r.body))).toEqual([...Array(23).fill(200), 201]);
    expect(responses.map((r) => r.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const versions = await first.request('GET', '/api/dashboards/contended/versions');
    expect(versions.body.versions).toHaveLength(24);
    const current = await second.request('GET', '/api/dashboards/contended');
    expect(current.body.version).toBe(24);
  });

  it('stops accepting a token revoked on the other replica once its token cache (SVC_TOKEN_CACHE_MS) runs out', async () => {
    const project = (await first.request('POST', '/v1/projects', { body: { name: 'Revocation' } })).body.project;
    const minted = (await first.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 't', capabilities: ['project.read'] } })).body;
    expect((await second.request('GET', `/v1/projects/${project.id}`, { token: minted.token })).status).toBe(200);
    expect((await first.request('DELETE', `/v1/projects/${project.id}/tokens/${minted.id}`)).status).toBe(204);
    expect((await first.request('GET', `/v1/projects/${project.id}`, { token: minted.token })).status).toBe(401);
    // The other replica may serve its cached lookup until the cache runs out, and never after.
    await poll('the other replica refuses the revoked token', async () => (await second.request('GET', `/v1/projects/${project.id}`, { token: minted.token })).status, (status) => status === 401);
  });
});
