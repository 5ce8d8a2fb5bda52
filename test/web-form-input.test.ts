/**
 * What the web UI's forms do with input no field may hold, on each database: a NUL character, which
 * PostgreSQL refuses in any text value, is refused with a 400 page naming the field, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let project: TestProject;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  svc = await startTestServer();
  project = await createProject(svc);
  const signIn = await fetch(`${svc.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: svc.adminToken }).toString(),
    redirect: 'manual',
  });
  cookie = /svc_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const page = await (await fetch(`${svc.url}/projects/${project.slug}/sessions`, { headers: { cookie } })).text();
  csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

async function postForm(path: string, fields: Record<string, string>): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(svc.url + path, {
    method: 'POST',
    headers: { cookie, origin: svc.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    redirect: 'manual',
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

describe(`web forms on ${testDialect}`, () => {
  it('refuses a NUL character in any field with a 400 page naming the field, and stores nothing', async () => {
    expect(cookie).not.toBe('');
    expect(csrf).not.toBe('');
    const secret = await postForm(`/projects/${project.slug}/settings/secrets`, { name: 'DEPLOY_KEY', value: 'a\u0000b' });
    expect(secret.status).toBe(400);
    expect(secret.type).toContain('text/html');
    expect(secret.text).toContain('The form field &quot;value&quot; has a NUL character (U+0000), which svc never stores; remove it and send the form again.');
    const secrets = await svc.request('GET', `/v1/projects/${project.id}/secrets`);
    expect(secrets.body.secrets).toEqual([]);

    const session = await postForm(`/projects/${project.slug}/sessions`, { prompt: 'fix \u0000 this' });
    expect(session.status).toBe(400);
    expect(session.text).toContain('The form field &quot;prompt&quot; has a NUL character');
    const sessions = await svc.request('GET', `/v1/projects/${project.id}/sessions`);
    expect(sessions.body.sessions).toEqual([]);

    // The same form without the NUL goes through, so only the character was refused.
    const stored = await postForm(`/projects/${project.slug}/settings/secrets`, { name: 'DEPLOY_KEY', value: 'ab' });
    expect(stored.status).toBe(303);
    expect((await svc.request('GET', `/v1/projects/${project.id}/secrets`)).body.secrets).toEqual([expect.objectContaining({ name: 'DEPLOY_KEY' })]);
  });
});
