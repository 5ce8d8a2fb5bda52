import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../src/accounts/capabilities.js';
import { createTestDatabase, startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
});

async function createProject(name: string, token?: string) {
  const response = await svc.request('POST', '/v1/projects', { body: { name }, token });
  expect(response.status).toBe(201);
  return response.body.project as { id: string; slug: string; clone_url: string };
}

async function mintToken(projectId: string, capabilities: readonly string[]) {
  const response = await svc.request('POST', `/v1/projects/${projectId}/tokens`, { body: { name: 'ci', capabilities } });
  expect(response.status).toBe(201);
  return response.body.token as string;
}

describe(`platform core on ${testDialect}`, () => {
  it('answers health and OpenAPI without a token', async () => {
    const health = await svc.request('GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const openapi = await svc.request('GET', '/openapi.json', { token: null });
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining(['/v1/projects', '/api/dashboards', '/api/dashboards/{slug}']));
    expect(openapi.body.paths['/api/dashboards'].post.requestBody.content['application/json'].schema.required).toEqual(['slug', 'title']);
  });

  it("compiles every route's request and response schemas", () => {
    // They are compiled by each route's first request (src/server/route-schema-compilers.ts): here, all at once.
    expect(() => svc.server.app.compileRouteSchemas()).not.toThrow();
  });

  it('creates, lists, reads, renames and deletes projects', async () => {
    const project = await createProject('Billing Service (v2)');
    expect(project.slug).toBe('billing-service-v2');
    expect(project.clone_url).toBe(`${svc.url}/git/${project.id}.git`);

    const list = await svc.request('GET', '/v1/projects');
    expect(list.body.projects.map((p: { id: string }) => p.id)).toContain(project.id);

    const renamed = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { name: 'Billing', default_branch: 'trunk' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.project).toMatchObject({ name: 'Billing', default_branch: 'trunk', slug: 'billing-service-v2' });

    const duplicate = await svc.request('POST', '/v1/projects', { body: { name: 'Other', slug: 'billing-service-v2' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: 'CONFLICT', reason: 'NAME_TAKEN' });
    expect(duplicate.body.error).toContain('billing-service-v2');

    expect((await svc.request('DELETE', `/v1/projects/${project.id}`)).status).toBe(204);
    const gone = await svc.request('GET', `/v1/projects/${project.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('NOT_FOUND');
  });

  it('rejects unknown body properties and reports every schema problem', async () => {
    const response = await svc.request('POST', '/v1/projects', { body: { name: '', colour: 'red', default_branch: '-x' } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    const paths = response.body.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/name', '/colour', '/default_branch']));
    expect(response.body.issues.find((i: { path: string }) => i.path === '/colour').message).toBe('unknown property "colour" is not allowed here.');
  });

  it('answers a bad path parameter with 400 and an unknown route with 404', async () => {
    const bad = await svc.request('GET', '/v1/projects/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST' });
    expect(bad.body.error).toContain('not-a-uuid');
    const missing = await svc.request('GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('distinguishes 401 (no or unknown token) from 403 (missing capability)', async () => {
    const project = await createProject('Auth Matrix');
    const none = await svc.request('GET', `/v1/projects/${project.id}`, { token: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHENTICATED');
    const unknown = await svc.request('GET', `/v1/projects/${project.id}`, { token: 'svc_u_nope' });
    expect(unknown.status).toBe(401);
    const malformed = await svc.request('GET', '/v1/projects', { token: null, headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error).toContain('Bearer');

    const readOnly = await mintToken(project.id, ['project.read']);
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: readOnly })).status).toBe(200);
    const patch = await svc.request('PATCH', `/v1/projects/${project.id}`, { token: readOnly, body: { name: 'x' } });
    expect(patch.status).toBe(403);
    expect(patch.body).toMatchObject({ code: 'FORBIDDEN' });
    expect(patch.body.error).toContain('project.admin');

    const other = await createProject('Someone Else');
    const cross = await svc.request('GET', `/v1/projects/${other.id}`, { token: readOnly });
    expect(cross.status).toBe(403);
    const listed = await svc.request('GET', '/v1/projects', { token: readOnly });
    expect(listed.body.projects.map((p: { id: string }) => p.id)).toEqual([project.id]);

  });

  it('answers a project token on a route for user tokens with 401 saying which token the route needs', async () => {
    const project = await createProject('User Routes');
    const projectToken = await mintToken(project.id, CAPABILITIES);
    const minted = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'victim', capabilities: ['project.read'] } });
    const userOnly: Array<[string, string, unknown?]> = [
      ['POST', '/v1/projects', { name: 'nope' }],
      ['POST', `/v1/projects/${project.id}/tokens`, { name: 'x', capabilities: ['project.read'] }],
      ['GET', `/v1/projects/${project.id}/tokens`],
      ['DELETE', `/v1/projects/${project.id}/tokens/${minted.body.id}`],
      ['GET', '/v1/users'],
      ['POST', '/v1/users', { name: 'mallory' }],
      ['PUT', `/v1/projects/${project.id}/members/${project.id}`],
    ];
    for (const [method, route, body] of userOnly) {
      const response = await svc.request(method, route, { token: projectToken, body });
      expect(response.status, `${method} ${route}`).toBe(401);
      expect(response.body, `${method} ${route}`).toEqual({ code: 'UNAUTHENTICATED', error: expect.stringContaining('needs a user token (svc_u_…)') });
      expect(response.body.error).toContain('this is a project token');
    }
    // Nothing happened: the token still works and no project was created.
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: minted.body.token })).status).toBe(200);
    const names = (await svc.request('GET', '/v1/projects')).body.projects.map((p: { name: string }) => p.name);
    expect(names).not.toContain('nope');
  });

  it('lists projects for a project token only with project.read, like reading one', async () => {
    const project = await createProject('Listing Needs Read');
    const sessionsOnly = await mintToken(project.id, ['sessions.write']);
    const single = await svc.request('GET', `/v1/projects/${project.id}`, { token: sessionsOnly });
    expect(single.status).toBe(403);
    const list = await svc.request('GET', '/v1/projects', { token: sessionsOnly });
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('lacks the capability project.read') });
    expect(list.text).not.toContain(project.id);
  });

  it('gives non-admin users access only to projects they are members of', async () => {
    const project = await createProject('Members Only');
    const user = await svc.request('POST', '/v1/users', { body: { name: 'dana', password: 'correct horse battery' } });
    expect(user.status).toBe(201);
    const danaToken = user.body.token as string;
    expect(danaToken.startsWith('svc_u_')).toBe(true);
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: danaToken })).status).toBe(403);
    expect((await svc.request('POST', '/v1/users', { token: danaToken, body: { name: 'eve' } })).status).toBe(403);
    const added = await svc.request('PUT', `/v1/projects/${project.id}/members/${user.body.user.id}`);
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ created: true, member: { user_id: user.body.user.id, name: 'dana', role: 'member', created_at: expect.any(String) } });
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: danaToken })).status).toBe(200);
    const own = await createProject('Dana Project', danaToken);
    const danaList = await svc.request('GET', '/v1/projects', { token: danaToken });
    expect(danaList.body.projects.map((p: { id: string }) => p.id).sort()).toEqual([project.id, own.id].sort());
  });

  it('stores secrets write-only and refuses reserved or malformed names', async () => {
    const project = await createProject('Secrets');
    const put = await svc.request('PUT', `/v1/projects/${project.id}/secrets/GIT_TOKEN`, { body: { value: 's3cr3t' } });
    expect(put.status).toBe(201);
    const again = await svc.request('PUT', `/v1/projects/${project.id}/secrets/GIT_TOKEN`, { body: { value: 'rotated' } });
    expect(again.status).toBe(200);
    const list = await svc.request('GET', `/v1/projects/${project.id}/secrets`);
    expect(list.body.secrets.map((s: { name: string }) => s.name)).toEqual(['GIT_TOKEN']);
    expect(list.text).not.toContain('rotated');
    expect(list.text).not.toContain('s3cr3t');

    const reserved = await svc.request('PUT', `/v1/projects/${project.id}/secrets/SVC_API_URL`, { body: { value: 'x' } });
    expect(reserved.status).toBe(400);
    expect(reserved.body.code).toBe('SECRET_NAME_RESERVED');
    const malformed = await svc.request('PUT', `/v1/projects/${project.id}/secrets/lower`, { body: { value: 'x' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('BAD_REQUEST');

    expect((await svc.request('DELETE', `/v1/projects/${project.id}/secrets/GIT_TOKEN`)).status).toBe(204);
    expect((await svc.request('DELETE', `/v1/projects/${project.id}/secrets/GIT_TOKEN`)).status).toBe(404);
  });

  it('lists and revokes project tokens without ever showing them again', async () => {
    const project = await createProject('Tokens');
    const created = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'agent', capabilities: ['project.read', 'dashboards.publish'] } });
    expect(created.body.token).toMatch(/^svc_p_[A-Za-z0-9_-]{43}$/);
    const list = await svc.request('GET', `/v1/projects/${project.id}/tokens`);
    expect(list.body.tokens).toEqual([expect.objectContaining({ id: created.body.id, name: 'agent', capabilities: ['project.read', 'dashboards.publish'] })]);
    expect(list.text).not.toContain(created.body.token);
    expect((await svc.request('DELETE', `/v1/projects/${project.id}/tokens/${created.body.id}`)).status).toBe(204);
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: created.body.token })).status).toBe(401);
    const badCapability = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'x', capabilities: ['root'] } });
    expect(badCapability.status).toBe(400);
    expect(badCapability.body.code).toBe('VALIDATION_FAILED');
  });

  it('reports a value outside a list of choices as one issue naming the choices', async () => {
    const project = await createProject('Choices');
    const choices = CAPABILITIES.join(', ');
    const unknown = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'x', capabilities: ['project.read', 'admin', 7] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues).toEqual([
      { path: '/capabilities/1', message: `"admin" is not a capability; use one of: ${choices}.` },
      { path: '/capabilities/2', message: `7 is not a capability; use one of: ${choices}.` },
    ]);
    expect(unknown.body.error).toBe(`The request is invalid: /capabilities/1: "admin" is not a capability; use one of: ${choices}.`);

    const status = await svc.request('GET', `/v1/projects/${project.id}/change-requests?status=everything`);
    expect(status.status).toBe(400);
    expect(status.body.issues).toEqual([{ path: '/status', message: 'must be one of: open, merged, closed, all (got "everything").' }]);
  });

  it('answers malformed bodies with 400 and oversized ones with 413', async () => {
    const malformed = await svc.request('POST', '/v1/projects', { rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('BAD_REQUEST');
    expect(malformed.body.error).toContain('not valid JSON');

    const wrongType = await svc.request('POST', '/v1/projects', { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toContain('application/json');

    const latin1 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const notUtf8 = await svc.request('POST', '/v1/projects', { rawBody: latin1, headers: { 'content-type': 'application/json' } });
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body.error).toContain('UTF-8');

    const poisoned = await svc.request('POST', '/v1/projects', { rawBody: '{"name":"x","__proto__":{"admin":true}}', headers: { 'content-type': 'application/json' } });
    expect(poisoned.status).toBe(400);

    const huge = await svc.request('POST', '/v1/projects', { body: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(huge.body.error).toContain('1 MiB');
  });
});

describe('authentication comes before the body', () => {
  it('answers a request without a token, or with an unknown one, 401 whatever its body', async () => {
    const project = await createProject('Auth First');
    const json = { 'content-type': 'application/json' };
    const cases: Array<[string, string, { rawBody?: string; body?: unknown; headers?: Record<string, string> }]> = [
      ['POST', '/v1/projects', { rawBody: '{}', headers: json }],
      ['POST', '/v1/projects', { rawBody: '{"name": ', headers: json }],
      ['POST', '/v1/projects', { body: { name: 'x'.repeat(2 * 1024 * 1024) } }],
      ['POST', '/api/dashboards', { rawBody: 'slug=x', headers: { 'content-type': 'text/plain' } }],
      ['POST', '/api/dashboards', { rawBody: '{"slug":', headers: json }],
      ['PATCH', '/v1/projects/not-a-uuid', { body: { colour: 'red' } }],
      ['POST', `/v1/projects/${project.id}/tokens`, { body: { capabilities: ['admin'] } }],
      ['PUT', `/v1/projects/${project.id}/secrets/GIT_TOKEN`, { body: {} }],
      ['POST', `/v1/projects/${project.id}/change-requests`, { body: { title: 5 } }],
      ['GET', `/v1/projects/${project.id}/change-requests?status=everything`, {}],
    ];
    for (const [method, route, options] of cases) {
      for (const token of [null, 'svc_u_unknown']) {
        const response = await svc.request(method, route, { ...options, token });
        expect(response.status, `${method} ${route} with ${token ?? 'no token'}`).toBe(401);
        expect(response.body.code).toBe('UNAUTHENTICATED');
        expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
      }
    }
    expect((await svc.request('POST', '/v1/projects', { rawBody: '{}', headers: json, token: null })).body.error).toContain('Authorization: Bearer <token>');
  });

  it('answers a token without the right 403 or 404 before looking at the body or query string', async () => {
    const project = await createProject('Access First');
    const other = await createProject('Access Elsewhere');
    const readOnly = await mintToken(project.id, ['project.read']);
    const otherProject = await mintToken(other.id, CAPABILITIES);
    const person = await svc.request('POST', '/v1/users', { body: { name: 'access-first-person' } });
    expect(person.status).toBe(201);
    const personToken = person.body.token as string;
    const json = { 'content-type': 'application/json' };
    const unknownProject = '00000000-0000-4000-8000-000000000000';
    const cases: Array<[string, string, string, { rawBody?: string; body?: unknown; headers?: Record<string, string> }, number]> = [
      ['PATCH', `/v1/projects/${project.id}`, readOnly, { body: { colour: 'red' } }, 403],
      ['PATCH', `/v1/projects/${project.id}`, readOnly, { rawBody: '{"name": ', headers: json }, 403],
      ['PATCH', `/v1/projects/${unknownProject}`, svc.adminToken, { body: { colour: 'red' } }, 404],
      ['PUT', `/v1/projects/${project.id}/secrets/GIT_TOKEN`, readOnly, { body: {} }, 403],
      ['POST', `/v1/projects/${project.id}/tokens`, personToken, { body: { capabilities: ['admin'] } }, 403],
      ['POST', '/v1/users', personToken, { body: {} }, 403],
      ['POST', `/v1/projects/${project.id}/change-requests`, readOnly, { body: { title: 5 } }, 403],
      ['POST', `/v1/projects/${project.id}/change-requests`, readOnly, { rawBody: '{"title":', headers: json }, 403],
      ['GET', `/v1/projects/${project.id}/change-requests?status=everything`, otherProject, {}, 403],
      ['PATCH', `/v1/projects/${project.id}/change-requests/1`, readOnly, { body: { title: 5 } }, 403],
      ['POST', `/v1/projects/${project.id}/change-requests/1/merge`, readOnly, { body: { message: 5 } }, 403],
      ['POST', `/v1/projects/${project.id}/change-requests/1/request-changes`, readOnly, { body: {} }, 403],
      ['POST', '/api/dashboards', readOnly, { rawBody: '{"slug":', headers: json }, 403],
      ['POST', '/api/dashboards/check', readOnly, { body: { title: 5 } }, 403],
    ];
    for (const [method, route, token, options, status] of cases) {
      const response = await svc.request(method, route, { ...options, token });
      expect(response.status, `${method} ${route}`).toBe(status);
      expect(response.body.code).toBe(status === 403 ? 'FORBIDDEN' : 'NOT_FOUND');
      expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
    }
    const cross = await svc.request('GET', `/v1/projects/${project.id}/change-requests`, { token: otherProject });
    expect(cross.body.error).toBe('This project token belongs to another project, so it cannot read change requests here; use a token of this project.');
  });

  it('takes a request without a body, or with an empty one, as {} where every field is optional', async () => {
    const project = await createProject('Bodiless');
    const json = { 'content-type': 'application/json' };
    const renamed = await svc.request('PATCH', `/v1/projects/${project.id}`, { rawBody: '', headers: json });
    expect(renamed.status).toBe(200);
    expect(renamed.body.project.name).toBe('Bodiless');

    const needsBody = await svc.request('POST', '/v1/projects', { rawBody: '', headers: json });
    expect(needsBody.status).toBe(400);
    expect(needsBody.body).toEqual({ code: 'BAD_REQUEST', error: 'The request body is empty; send a JSON document.' });
    const noBody = await svc.request('POST', '/v1/projects');
    expect(noBody.status).toBe(400);
    expect(noBody.body).toEqual({
      code: 'BAD_REQUEST',
      error: 'This route needs a JSON body and the request has none; send a JSON document with Content-Type: application/json.',
    });

    const openapi = await svc.request('GET', '/openapi.json', { token: null });
    expect(openapi.body.paths['/v1/projects'].post.requestBody.required).toBe(true);
    expect(openapi.body.paths['/v1/projects/{id}'].patch.requestBody.required).toBe(false);
    expect(openapi.body.paths['/v1/projects/{id}/change-requests/{crId}/merge'].post.requestBody.required).toBe(false);

    expect((await svc.request('DELETE', `/v1/projects/${project.id}`, { rawBody: '', headers: json })).status).toBe(204);
    expect((await svc.request('GET', `/v1/projects/${project.id}`)).status).toBe(404);
  });

  it('still validates the body of an authenticated request', async () => {
    const empty = await svc.request('POST', '/v1/projects', { rawBody: '{}', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: '/name', message: 'required property "name" is missing.' }] });
    const text = await svc.request('POST', '/api/dashboards', { rawBody: 'slug=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    expect(text.body.code).toBe('BAD_REQUEST');
    const huge = await svc.request('POST', '/v1/projects', { body: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
  });

  it('keeps the public routes public', async () => {
    expect((await svc.request('GET', '/healthz', { token: null })).status).toBe(200);
    expect((await svc.request('GET', '/openapi.json', { token: null })).status).toBe(200);
    expect((await svc.request('GET', '/login', { token: null })).status).toBe(200);
    const page = await svc.request('GET', '/d', { token: null, headers: {} });
    expect([200, 302]).toContain(page.status);
    expect((await svc.request('GET', '/v1/nothing-here', { token: null })).status).toBe(404);
  });
});

describe('first boot', () => {
  it('generates an admin token once, writes it with mode 0600 and keeps it across restarts', async () => {
    const database = await createTestDatabase();
    const shared = database.url ? { databaseUrl: database.url } : {};
    const first = await startTestServer({ adminToken: null, ...shared });
    const tokenFile = `${first.dataDir}/admin-token`;
    let token: string;
    try {
      token = fs.readFileSync(tokenFile, 'utf8').trim();
      expect(token).toMatch(/^svc_u_/);
      expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect((await first.request('GET', '/v1/projects', { token })).status).toBe(200);
    } finally {
      await first.server.close();
    }
    const second = await startTestServer({ adminToken: null, dataDir: first.dataDir, ...shared });
    try {
      expect(second.server.bootstrap.generatedToken).toBeNull();
      expect(fs.readFileSync(tokenFile, 'utf8').trim()).toBe(token);
      expect((await second.request('GET', '/v1/projects', { token })).status).toBe(200);
    } finally {
      await second.close();
      await database.drop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  });

  it('uses SVC_ADMIN_TOKEN verbatim and replaces it when it changes', async () => {
    const database = await createTestDatabase();
    const shared = database.url ? { databaseUrl: database.url } : {};
    const dataDir = fs.mkdtempSync('/tmp/svc-admin-');
    const first = await startTestServer({ adminToken: 'my-automation-token', dataDir, ...shared });
    expect(fs.existsSync(`${dataDir}/admin-token`)).toBe(false);
    expect((await first.request('GET', '/v1/projects', { token: 'my-automation-token' })).status).toBe(200);
    await first.server.close();
    const second = await startTestServer({ adminToken: 'rotated-token', dataDir, ...shared });
    expect((await second.request('GET', '/v1/projects', { token: 'rotated-token' })).status).toBe(200);
    expect((await second.request('GET', '/v1/projects', { token: 'my-automation-token' })).status).toBe(401);
    await second.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

/** Sends `request` as is over TCP and returns everything the server wrote before closing. */
function rawExchange(request: string): Promise<string> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

function parseRawResponse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { statusLine, headers, body: JSON.parse(body) as unknown };
}

describe('requests that never reach a route', () => {
  it('answers a request that is not valid HTTP with the JSON error body', async () => {
    const badLength = parseRawResponse(await rawExchange('POST /v1/projects HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}'));
    expect(badLength.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(badLength.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(badLength.body).toEqual({ code: 'BAD_REQUEST', error: expect.stringContaining('Content-Length') });

    const garbage = parseRawResponse(await rawExchange('HELLO\r\n\r\n'));
    expect(garbage.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(garbage.body).toEqual({ code: 'BAD_REQUEST', error: expect.stringContaining('not a valid HTTP request') });

    const bigHeaders = parseRawResponse(await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(bigHeaders.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(bigHeaders.body).toEqual({ code: 'HEADERS_TOO_LARGE', error: expect.stringContaining('headers') });
  });


  it('answers a URL that is not valid percent-encoding with the JSON error body', async () => {
    const response = await svc.request('GET', '/api/dashboards/%ZZ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 'BAD_REQUEST', error: expect.stringContaining('percent-encoding') });
  });

  it('answers a URL with a NUL character (%00) 400, on the API, the webhook receiver and the web pages alike', async () => {
    // PostgreSQL cannot compare a text column with a value holding NUL: these answered 500 there, 404 on SQLite.
    const project = await createProject('NUL in a URL');
    for (const [method, route] of [
      ['DELETE', `/v1/projects/${project.id}/secrets/%00`],
      ['GET', '/v1/projects/%00/triggers/nightly/fires'],
      ['GET', `/v1/projects/${project.id}/triggers/nightly%00/fires`],
      ['GET', `/v1/projects/${project.id}/sessions?status=%00`],
      ['POST', `/v1/webhooks/projects/${project.id}/hook%00`],
    ] as const) {
      const response = await svc.request(method, route);
      expect({ route, status: response.status, body: response.body }).toEqual({
        route,
        status: 400,
        body: { code: 'BAD_REQUEST', error: 'The URL has a NUL character (%00), which no id, slug, name or query value in svc contains; check the URL.' },
      });
    }
    const page = await svc.request('GET', `/projects/${project.slug}%00`);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('NUL character (%00)');
  });

  it('refuses compressed JSON bodies instead of misreading them', async () => {
    const response = await svc.request('POST', '/v1/projects', { rawBody: '{"name":"x"}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('Content-Encoding gzip is not supported');
  });
});
