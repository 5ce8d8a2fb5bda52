/**
 * Least privilege (contract §2): capabilities that mean one thing (project.admin for settings, secrets,
 * tokens, members and deletion), tokens that never grant more than their creator holds and die with the
 * creator's access, user tokens a person can list and revoke, users an administrator can disable, and
 * one way in for credentials on every surface (API, git, pages).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/accounts/token-secrets.js';
import { gitFailsAsync, gitAsync, removeTempDirs } from '../src/git/testing/fixtures.js';
import { newId } from '../src/ids.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const unique = () => randomBytes(4).toString('hex');

interface Person {
  id: string;
  name: string;
  token: string;
}

async function createPerson(password?: string): Promise<Person> {
  const name = `user-${unique()}`;
  const created = await svc.request('POST', '/v1/users', { body: { name, ...(password ? { password } : {}) } });
  expect(created.status).toBe(201);
  return { id: created.body.user.id, name, token: created.body.token };
}

async function createProject(token = svc.adminToken) {
  const response = await svc.request('POST', '/v1/projects', { token, body: { name: `Project ${unique()}` } });
  expect(response.status).toBe(201);
  return response.body.project as { id: string; slug: string; clone_url: string };
}

async function addMember(projectId: string, userId: string, role: 'member' | 'admin' = 'member') {
  const response = await svc.request('PUT', `/v1/projects/${projectId}/members/${userId}`, { body: { role } });
  expect([200, 201]).toContain(response.status);
}

async function mintToken(projectId: string, capabilities: readonly string[], token = svc.adminToken) {
  const response = await svc.request('POST', `/v1/projects/${projectId}/tokens`, { token, body: { name: 'agent', capabilities } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.token as string;
}

/** A password sign-in through the form, as a browser posts it. */
function signIn(name: string, password: string): Promise<Response> {
  const body = new URLSearchParams({ name, password }).toString();
  return fetch(`${svc.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
}

function withToken(cloneUrl: string, token: string): string {
  const url = new URL(cloneUrl);
  url.username = 'x';
  url.password = token;
  return url.toString();
}

describe(`least privilege on ${testDialect}`, () => {
  it('keeps settings, secrets, tokens, members and deletion behind project.admin, not project.write', async () => {
    const project = await createProject();
    const writer = await mintToken(project.id, ['project.read', 'project.write', 'project.gitops.push', 'project.gitops.merge']);
    const attempts: Array<[string, string, unknown?]> = [
      ['PATCH', `/v1/projects/${project.id}`, { default_branch: 'trunk' }],
      ['PATCH', `/v1/projects/${project.id}`, { name: 'Renamed' }],
      ['PUT', `/v1/projects/${project.id}/secrets/GIT_TOKEN`, { value: 'attacker' }],
      ['DELETE', `/v1/projects/${project.id}/secrets/GIT_TOKEN`],
      ['DELETE', `/v1/projects/${project.id}`],
    ];
    await svc.request('PUT', `/v1/projects/${project.id}/secrets/GIT_TOKEN`, { body: { value: 'original' } });
    for (const [method, route, body] of attempts) {
      const response = await svc.request(method, route, { token: writer, body });
      expect(response.status, `${method} ${route}`).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
      expect(response.body.error, `${method} ${route}`).toContain('lacks the capability project.admin');
    }
    const still = await svc.request('GET', `/v1/projects/${project.id}`);
    expect(still.body.project).toMatchObject({ default_branch: 'main', name: project.slug === '' ? '' : expect.stringMatching(/^Project /) });
    expect((await svc.request('GET', `/v1/projects/${project.id}/secrets`)).body.secrets.map((s: { name: string }) => s.name)).toEqual(['GIT_TOKEN']);

    const admin = await mintToken(project.id, ['project.read', 'project.admin']);
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/API_KEY`, { token: admin, body: { value: 'v' } })).status).toBe(201);
    expect((await svc.request('PATCH', `/v1/projects/${project.id}`, { token: admin, body: { name: 'Renamed by admin' } })).status).toBe(200);
    expect((await svc.request('DELETE', `/v1/projects/${project.id}`, { token: admin })).status).toBe(204);
  });

  it('lets members work on a project but only its admins change its settings', async () => {
    const project = await createProject();
    const member = await createPerson();
    const owner = await createPerson();
    await addMember(project.id, member.id, 'member');
    await addMember(project.id, owner.id, 'admin');

    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: member.token })).status).toBe(200);
    const refusals: Array<[string, string, unknown?]> = [
      ['PUT', `/v1/projects/${project.id}/secrets/NPM_TOKEN`, { value: 'x' }],
      ['POST', `/v1/projects/${project.id}/tokens`, { name: 'mine', capabilities: ['project.read'] }],
      ['GET', `/v1/projects/${project.id}/tokens`],
      ['PUT', `/v1/projects/${project.id}/members/${owner.id}`, { role: 'member' }],
      ['DELETE', `/v1/projects/${project.id}`],
    ];
    for (const [method, route, body] of refusals) {
      const response = await svc.request(method, route, { token: member.token, body });
      expect(response.status, `${method} ${route}`).toBe(403);
      expect(response.body.error).toBe(
        `You are a member of project ${project.slug} but not one of its admins, and to ${
          method === 'PUT' && route.includes('secrets')
            ? 'set project secrets'
            : route.endsWith('/tokens')
              ? method === 'POST'
                ? 'mint project tokens'
                : 'list project tokens'
              : route.includes('members')
                ? 'add project members'
                : 'delete this project'
        } needs project.admin; ask an admin of the project.`,
      );
    }

    // A project admin manages its members and tokens without being an account administrator.
    const members = await svc.request('GET', `/v1/projects/${project.id}/members`, { token: owner.token });
    expect(members.status).toBe(200);
    expect(members.body.members.map((m: { name: string; role: string }) => [m.name, m.role]).sort()).toEqual(
      [
        [member.name, 'member'],
        [owner.name, 'admin'],
      ].sort(),
    );
    const promote = await svc.request('PUT', `/v1/projects/${project.id}/members/${member.name}`, { token: owner.token, body: { role: 'admin' } });
    expect(promote.status).toBe(200);
    expect(promote.body.member).toMatchObject({ name: member.name, role: 'admin' });
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/NPM_TOKEN`, { token: member.token, body: { value: 'x' } })).status).toBe(201);
  });

  it('makes a project’s creator its admin', async () => {
    const creator = await createPerson();
    const project = await createProject(creator.token);
    const members = await svc.request('GET', `/v1/projects/${project.id}/members`, { token: creator.token });
    expect(members.body.members).toEqual([{ user_id: creator.id, name: creator.name, role: 'admin', created_at: expect.any(String) }]);
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/DEPLOY_KEY`, { token: creator.token, body: { value: 'k' } })).status).toBe(201);
  });

  it('never lets a token grant more than its creator holds, when minted and after the creator is demoted', async () => {
    const project = await createProject();
    const owner = await createPerson();
    await addMember(project.id, owner.id, 'admin');
    const token = await mintToken(project.id, ['project.read', 'project.admin'], owner.token);
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/ONE`, { token, body: { value: '1' } })).status).toBe(201);

    await addMember(project.id, owner.id, 'member');
    const demoted = await svc.request('PUT', `/v1/projects/${project.id}/secrets/TWO`, { token, body: { value: '2' } });
    expect(demoted.status).toBe(403);
    expect(demoted.body.error).toContain('lacks the capability project.admin');
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token })).status).toBe(200);
    const listed = await svc.request('GET', `/v1/projects/${project.id}/secrets`, { token: svc.adminToken });
    expect(listed.body.secrets.map((s: { name: string }) => s.name)).toEqual(['ONE']);
  });

  it('stops a project token on the API and over git once its creator leaves the project', async () => {
    const project = await createProject();
    const owner = await createPerson();
    await addMember(project.id, owner.id, 'admin');
    const token = await mintToken(project.id, ['project.read', 'project.gitops.push'], owner.token);
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token })).status).toBe(200);
    expect(await gitAsync(['ls-remote', withToken(project.clone_url, token)])).toBe('');

    expect((await svc.request('DELETE', `/v1/projects/${project.id}/members/${owner.id}`)).status).toBe(204);
    const api = await svc.request('GET', `/v1/projects/${project.id}`, { token });
    expect(api.status).toBe(401);
    expect(api.body).toEqual({
      code: 'UNAUTHENTICATED',
      error: `This token no longer works: ${owner.name}, who created it, no longer has access to project ${project.slug}. Ask an admin of the project for a new token.`,
    });
    const overGit = await gitFailsAsync(['ls-remote', withToken(project.clone_url, token)]);
    expect(overGit).toMatch(/Authentication failed|401/);

    // Access given back, the token works again: it was never deleted.
    await addMember(project.id, owner.id, 'admin');
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token })).status).toBe(200);
  });

  it('lets a person list, mint and revoke their own user tokens, and an administrator anyone’s', async () => {
    const person = await createPerson();
    const mine = await svc.request('GET', '/v1/users/me/tokens', { token: person.token });
    expect(mine.status).toBe(200);
    expect(mine.body.tokens).toEqual([
      { id: expect.any(String), name: `${person.name} (created with the user)`, kind: 'user', project_id: null, capabilities: expect.any(Array), created_by: person.id, created_at: expect.any(String), expires_at: null },
    ]);
    expect(mine.text).not.toContain(person.token);

    const minted = await svc.request('POST', '/v1/users/me/tokens', { token: person.token, body: { name: 'laptop', expires_in_days: 30 } });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^svc_u_/);
    expect(minted.body).toMatchObject({ name: 'laptop', kind: 'user', created_by: person.id });
    expect((await svc.request('GET', '/v1/projects', { token: minted.body.token })).status).toBe(200);

    const other = await createPerson();
    const snooping = await svc.request('GET', `/v1/users/${other.id}/tokens`, { token: person.token });
    expect(snooping.status).toBe(403);
    expect(snooping.body.error).toBe('Only an administrator can list another user’s tokens; use "me" for your own.');

    expect((await svc.request('DELETE', `/v1/users/me/tokens/${minted.body.id}`, { token: person.token })).status).toBe(204);
    const revoked = await svc.request('GET', '/v1/projects', { token: minted.body.token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe('The token is not recognised: it is mistyped, revoked or expired.');

    const byAdmin = await svc.request('GET', `/v1/users/${person.name}/tokens`);
    expect(byAdmin.body.tokens.map((t: { name: string }) => t.name)).toEqual([`${person.name} (created with the user)`]);
    const firstId = byAdmin.body.tokens[0].id;
    expect((await svc.request('DELETE', `/v1/users/${person.id}/tokens/${firstId}`)).status).toBe(204);
    expect((await svc.request('GET', '/v1/projects', { token: person.token })).status).toBe(401);
  });

  it('ends every token and web session of a user an administrator disables, and restores the tokens on enable', async () => {
    const password = 'correct horse battery staple';
    const person = await createPerson(password);
    const project = await createProject();
    await addMember(project.id, person.id, 'admin');
    const projectToken = await mintToken(project.id, ['project.read'], person.token);
    const signedIn = await signIn(person.name, password);
    expect(signedIn.status).toBe(303);
    const cookie = (signedIn.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    expect((await fetch(`${svc.url}/d`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);

    const disabled = await svc.request('POST', `/v1/users/${person.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.user).toMatchObject({ id: person.id, disabled: true });

    const userToken = await svc.request('GET', '/v1/projects', { token: person.token });
    expect(userToken.status).toBe(401);
    expect(userToken.body.error).toBe(`This token belongs to user ${person.name}, whom an administrator has disabled; it no longer works.`);
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: projectToken })).status).toBe(401);
    expect(await gitFailsAsync(['ls-remote', withToken(project.clone_url, projectToken)])).toMatch(/Authentication failed|401/);
    const page = await fetch(`${svc.url}/d`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/login');
    const passwordAgain = await signIn(person.name, password);
    expect(passwordAgain.status).toBe(401);
    expect((await svc.request('GET', '/v1/users')).body.users.find((u: { id: string }) => u.id === person.id)).toMatchObject({ disabled: true });

    expect((await svc.request('POST', `/v1/users/${person.id}/enable`)).body.user).toMatchObject({ disabled: false });
    expect((await svc.request('GET', '/v1/projects', { token: person.token })).status).toBe(200);
    expect((await svc.request('GET', `/v1/projects/${project.id}`, { token: projectToken })).status).toBe(200);
  });

  it('refuses to disable yourself and lets only administrators disable anyone', async () => {
    const self = await svc.request('GET', '/v1/users/me/tokens');
    const adminId = self.body.tokens[0].created_by as string;
    const refused = await svc.request('POST', `/v1/users/${adminId}/disable`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('You cannot disable yourself; another administrator can.');
    const person = await createPerson();
    const other = await createPerson();
    const notAdmin = await svc.request('POST', `/v1/users/${other.id}/disable`, { token: person.token });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error).toBe('Only an administrator can disable users.');
    expect((await svc.request('POST', '/v1/users/nobody-here/disable')).status).toBe(404);
  });

  it('ends a user’s web sessions on request, theirs or an administrator’s', async () => {
    const password = 'correct horse battery staple';
    const person = await createPerson(password);
    const cookies: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const signedIn = await signIn(person.name, password);
      cookies.push((signedIn.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '');
    }
    const ended = await svc.request('DELETE', `/v1/users/${person.id}/web-sessions`);
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 2 });
    for (const cookie of cookies) {
      expect((await fetch(`${svc.url}/d`, { headers: { cookie }, redirect: 'manual' })).status).toBe(302);
    }
    // The token still works: only browsers were signed out.
    expect((await svc.request('GET', '/v1/projects', { token: person.token })).status).toBe(200);
    expect((await svc.request('DELETE', '/v1/users/me/web-sessions', { token: person.token })).body).toEqual({ ended: 0 });
  });
});

describe(`one way in for credentials on ${testDialect}`, () => {
  async function sandboxToken(projectId: string): Promise<string> {
    const token = `svc_s_${randomBytes(32).toString('base64url')}`;
    const db = svc.server.services.db;
    const admin = await db.selectFrom('users').select(['id', 'account_id']).where('name', '=', 'admin').executeTakeFirstOrThrow();
    await db
      .insertInto('tokens')
      .values({
        id: newId(),
        account_id: admin.account_id,
        kind: 'sandbox',
        name: 'sandbox',
        token_hash: hashToken(token),
        user_id: admin.id,
        project_id: projectId,
        capabilities: JSON.stringify(['project.read', 'project.write', 'project.gitops.push']),
        created_at: new Date().toISOString(),
        expires_at: null,
      })
      .execute();
    return token;
  }

  it('refuses a sandbox token on the API, the git host and the pages with one wording', async () => {
    const project = await createProject();
    const token = await sandboxToken(project.id);
    const wording = 'A sandbox token is accepted only on sandbox-identity routes; call this route with the project token in SVC_CLI_TOKEN.';
    for (const route of [`/v1/projects/${project.id}`, '/v1/projects', `/v1/projects/${project.id}/change-requests`, '/api/dashboards']) {
      const response = await svc.request('GET', route, { token });
      expect(response.status, route).toBe(401);
      expect(response.body, route).toEqual({ code: 'UNAUTHENTICATED', error: wording });
    }
    const gitAnswer = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` } });
    expect(gitAnswer.status).toBe(401);
    expect(await gitAnswer.json()).toEqual({ code: 'UNAUTHENTICATED', error: wording });
    const page = await fetch(`${svc.url}/d`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('A sandbox token is accepted only on sandbox-identity routes');
  });

  it('words each refusal the same on every surface', async () => {
    const project = await createProject();
    const unknown = 'svc_u_' + 'x'.repeat(43);
    const api = await svc.request('GET', '/v1/projects', { token: unknown });
    const gitAnswer = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`x:${unknown}`).toString('base64')}` } });
    const page = await fetch(`${svc.url}/d`, { headers: { authorization: `Bearer ${unknown}` }, redirect: 'manual' });
    const sentence = 'The token is not recognised: it is mistyped, revoked or expired.';
    expect(api.body.error).toBe(sentence);
    expect((await gitAnswer.json()).error).toBe(sentence);
    expect(page.status).toBe(401);
    expect(await page.text()).toContain(sentence);

    const empty = await svc.request('GET', '/v1/projects', { token: null, headers: { authorization: 'Bearer ' } });
    expect(empty.status).toBe(401);
    expect(empty.body.error).toMatch(/^The token is empty: send "Authorization: Bearer <token>"/);
    const emptyGit = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from('x:').toString('base64')}` } });
    expect((await emptyGit.json()).error).toMatch(/^The token is (empty|not recognised)/);

    const missing = await svc.request('GET', '/v1/projects', { token: null });
    expect(missing.body.error).toBe('This needs a token: send "Authorization: Bearer <token>" (the CLI reads SVC_CLI_TOKEN, or run svc login).');
    const missingGit = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`);
    expect((await missingGit.json()).error).toBe('This needs a token: use any user name and an svc token as the password.');
  });

  it('answers a project token on a person’s route with 401 before reading its body', async () => {
    const project = await createProject();
    const token = await mintToken(project.id, ['project.read', 'project.admin']);
    for (const [method, route] of [
      ['GET', '/v1/users/me/tokens'],
      ['POST', `/v1/projects/${project.id}/tokens`],
      ['POST', '/v1/users/me/tokens'],
    ] as const) {
      const body = method === 'GET' ? {} : { rawBody: '{not json', headers: { 'content-type': 'application/json' } };
      const response = await svc.request(method, route, { token, ...body });
      expect(response.status, route).toBe(401);
      expect(response.body.error).toBe('This route needs a user token (svc_u_…); this is a project token (svc_p_…), which acts only inside its project. Call it with your own user token.');
    }
  });
});
