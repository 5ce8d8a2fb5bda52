/**
 * repo_url is read when the project is made: an address git cannot read is refused then, with what git
 * said and what to do, and a token given at create is what it is read with (and kept as GIT_TOKEN).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

let svc: TestServer;
let upstreamUrl: string;
let readToken: string;

beforeAll(async () => {
  svc = await startTestServer();
  // The upstream: a repository svc itself hosts, which takes a token, as a private repository elsewhere would.
  const upstream = await svc.request('POST', '/v1/projects', { body: { name: 'Upstream' } });
  upstreamUrl = upstream.body.project.clone_url;
  readToken = (await svc.request('POST', `/v1/projects/${upstream.body.project.id}/tokens`, { body: { name: 'read', capabilities: ['project.read'] } })).body.token;
});
afterAll(async () => {
  await svc.close();
});

const create = (body: Record<string, unknown>) => svc.request('POST', '/v1/projects', { body: { name: `Mirror ${Math.random().toString(36).slice(2, 8)}`, ...body } });

describe('repo_url is checked when the project is created', () => {
  it('refuses a local path that is not a repository, saying what git said and to give a repository', async () => {
    const notARepository = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-not-a-repo-'));
    const response = await create({ repo_url: notARepository });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.issues).toEqual([
      {
        path: '/repo_url',
        message: `cannot be read: git said "'${notARepository}' does not appear to be a git repository". Give the path of an existing git repository (a bare repository, or a working copy with a .git directory) on the svc server.`,
      },
    ]);
  });

  it('suggests a token for a repository that asks for one, reads it with the token given, and keeps the token as GIT_TOKEN', async () => {
    const refused = await create({ repo_url: upstreamUrl });
    expect(refused.status).toBe(400);
    const message = refused.body.issues[0].message as string;
    expect(message).toMatch(/^cannot be read: git said ".+"\. If the repository is private, give a token that may read it when you create the project \(git_token; svc project create --git-token-stdin\); svc keeps it as the project secret GIT_TOKEN\. Otherwise check the address\.$/);

    const wrongToken = await create({ repo_url: upstreamUrl, git_token: 'svc_p_not_a_token' });
    expect(wrongToken.status).toBe(400);
    expect(wrongToken.body.issues[0].message).toContain('The host refused the token given');

    const created = await create({ repo_url: upstreamUrl, git_token: readToken });
    expect(created.status).toBe(201);
    const secrets = await svc.request('GET', `/v1/projects/${created.body.project.id}/secrets`);
    expect(secrets.body.secrets.map((s: { name: string }) => s.name)).toEqual(['GIT_TOKEN']);
  });

  it('says to check the host name when it does not resolve, without advice about tokens', async () => {
    const response = await create({ repo_url: 'https://no-such-host.invalid/team/app.git' });
    expect(response.status).toBe(400);
    const message = response.body.issues[0].message as string;
    expect(message).toMatch(/^cannot be read: git said ".*no-such-host\.invalid.*"\. Check the host name in the address\.$/);
    expect(message).not.toContain('GIT_TOKEN');
  });

  it("reads a non-administrator's address the same way, through the address checks", async () => {
    const user = await svc.request('POST', '/v1/users', { body: { name: 'upstream-checker' } });
    const response = await svc.request('POST', '/v1/projects', { token: user.body.token, body: { name: 'Theirs', repo_url: 'https://no-such-host.invalid/team/app.git' } });
    expect(response.status).toBe(400);
    expect(response.body.issues[0].message).toMatch(/^cannot be read: git said ".*no-such-host\.invalid.*"\. Check the host name in the address\.$/);
    const inside = await svc.request('POST', '/v1/projects', { token: user.body.token, body: { name: 'Inside', repo_url: upstreamUrl } });
    expect(inside.status).toBe(403);
  });

  it('creates the project unread with check_repo false, and refuses git credentials for a hosted project', async () => {
    expect((await create({ repo_url: 'https://no-such-host.invalid/team/app.git', check_repo: false })).status).toBe(201);
    const hosted = await create({ git_token: 'x' });
    expect(hosted.status).toBe(400);
    expect(hosted.body.issues).toEqual([{ path: '/git_token', message: 'is for reading repo_url; a project without repo_url has its repository on svc, which needs no git credentials.' }]);
  });
});
