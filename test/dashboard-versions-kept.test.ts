import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

/** SVC_DASHBOARD_VERSIONS_KEPT: a dashboard republished for ever keeps only its newest versions. */
let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer({ env: { SVC_DASHBOARD_VERSIONS_KEPT: '3' } });
});
afterAll(async () => {
  await svc.close();
});

const publish = (slug: string, subtitle: string) => svc.request('POST', '/api/dashboards', { body: { slug, title: 'Kept', subtitle } });
const versionsOf = async (slug: string) => (await svc.request('GET', `/api/dashboards/${slug}/versions`)).body.versions.map((v: { version: number }) => v.version);

describe(`dashboard versions kept on ${testDialect}`, () => {
  it('keeps the newest versions only, numbers running on, and says when one asked for was pruned', async () => {
    for (let n = 1; n <= 5; n += 1) expect((await publish('pruned', `v${n}`)).body.version).toBe(n);
    expect(await versionsOf('pruned')).toEqual([5, 4, 3]);
    expect((await svc.request('GET', '/api/dashboards/pruned/versions/3')).body.spec.subtitle).toBe('v3');

    const pruned = await svc.request('GET', '/api/dashboards/pruned/versions/2');
    expect(pruned.status).toBe(404);
    expect(pruned.body).toEqual({
      code: 'NOT_FOUND',
      error: 'Version 2 of dashboard "pruned" was pruned: svc keeps the latest 3 versions of each dashboard (SVC_DASHBOARD_VERSIONS_KEPT), here versions 3 to 5.',
    });
    const future = await svc.request('GET', '/api/dashboards/pruned/versions/6');
    expect(future.body).toEqual({ code: 'NOT_FOUND', error: 'Dashboard "pruned" has no version 6; it has versions 3 to 5.' });

    expect((await publish('pruned', 'v6')).body).toMatchObject({ version: 6, created: false });
    expect(await versionsOf('pruned')).toEqual([6, 5, 4]);
    expect((await svc.request('GET', '/api/dashboards/pruned')).body.spec.subtitle).toBe('v6');
    // Other dashboards keep their own.
    expect((await publish('unpruned', 'v1')).status).toBe(201);
    expect(await versionsOf('unpruned')).toEqual([1]);
  });

  it('takes 1 or more versions, 100 by default', () => {
    expect(loadConfig({}).dashboardVersionsKept).toBe(100);
    expect(loadConfig({ SVC_DASHBOARD_VERSIONS_KEPT: '1' }).dashboardVersionsKept).toBe(1);
    expect(() => loadConfig({ SVC_DASHBOARD_VERSIONS_KEPT: '0' })).toThrow('SVC_DASHBOARD_VERSIONS_KEPT must be a whole number from 1 to 1000000 (got "0")');
  });
});
