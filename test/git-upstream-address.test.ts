/**
 * No network oracle through repo_url: a non-administrator cannot point a project at a loopback, private,
 * link-local or other special-use address (literal or by a name resolving to one), and what svc answers
 * when an upstream fails says nothing about what answered on the other end. Real HTTP API, real git.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpecialAddress } from '../src/repositories/upstream-address.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let userToken: string;

beforeAll(async () => {
  svc = await startTestServer();
  const user = await svc.request('POST', '/v1/users', { body: { name: `oracle-${randomBytes(4).toString('hex')}` } });
  expect(user.status).toBe(201);
  userToken = user.body.token as string;
});
afterAll(async () => {
  await svc.close();
});

/** Unread at create (check_repo false): what is under test is where svc connects afterwards. */
function createProject(repoUrl: string, token: string) {
  return svc.request('POST', '/v1/projects', { token, body: { name: `Upstream ${randomBytes(4).toString('hex')}`, repo_url: repoUrl, check_repo: false } });
}

describe(`repo_url addresses on ${testDialect}`, () => {
  it('refuses a non-administrator repo_url at a loopback, private, link-local or special-use address, literal or resolved, and lets administrators use one', async () => {
    const refused: Array<[string, string]> = [
      ['http://127.0.0.1:5432/db.git', '127.0.0.1'],
      ['https://10.1.2.3/team/app.git', '10.1.2.3'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      ['https://[::1]/x.git', '::1'],
      ['https://[fd12:3456::1]/x.git', 'fd12:3456::1'],
      ['https://[fe80::1]/x.git', 'fe80::1'],
      ['http://[::ffff:127.0.0.1]:6379/x.git', '::ffff:7f00:1'],
      ['ssh://git@192.168.1.10/team/app.git', '192.168.1.10'],
      ['git@172.16.0.5:team/app.git', '172.16.0.5'],
      ['git://0.0.0.0/app.git', '0.0.0.0'],
      ['http://2130706433/app.git', '127.0.0.1'],
      ['ssh://git@0x7f.1/app.git', '127.0.0.1'],
      ['https://localhost:8443/app.git', 'localhost'],
    ];
    for (const [repoUrl, address] of refused) {
      const response = await createProject(repoUrl, userToken);
      expect(response.status, repoUrl).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
      expect(response.body.error, repoUrl).toMatch(/^repo_url points at \S+, a private or local network address .*Use the repository's public https:\/\/ or ssh:\/\/ URL, or ask an administrator to create the project\.$/);
      if (address !== 'localhost') expect(response.body.error).toContain(`points at ${address},`);
    }

    // A public address is fine (creating a mirror project does not clone yet, so nothing is contacted).
    expect((await createProject('https://140.82.112.3/team/app.git', userToken)).status).toBe(201);
    expect((await createProject('git@140.82.112.4:team/app.git', userToken)).status).toBe(201);
    // Administrators configure the machine and may point a project anywhere.
    expect((await createProject('http://127.0.0.1:9/git/local.git', svc.adminToken)).status).toBe(201);
  });

  it('classifies special-use addresses, including IPv4 embedded in IPv6', () => {
    for (const address of ['100.64.0.1', '198.18.0.1', '224.0.0.1', '255.255.255.255', '::', '64:ff9b::a00:1', '2002:c0a8:101::1', 'fe80::1%eth0', '2001:db8::1']) {
      expect(isSpecialAddress(address), address).toBe(true);
    }
    for (const address of ['140.82.112.3', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isSpecialAddress(address), address).toBe(false);
    }
  });

  it('answers the same sentence whatever the upstream said, so repo_url cannot probe what listens on a port', async () => {
    // One port answers HTTP 404, another 401, a third is closed: git's errors differ, svc's answers may not.
    const server = http.createServer((request, response) => {
      response.writeHead(request.url?.includes('secret') ? 401 : 404, { 'WWW-Authenticate': 'Basic realm="x"' }).end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const upstreams = [`http://127.0.0.1:${port}/db.git`, `http://127.0.0.1:${port}/secret.git`, 'http://127.0.0.1:9/closed.git'];
      for (const repoUrl of upstreams) {
        const created = await createProject(repoUrl, svc.adminToken);
        expect(created.status).toBe(201);
        const opened = await svc.request('POST', `/v1/projects/${created.body.project.id}/change-requests`, { body: { title: 'probe', head_ref: 'feature' } });
        expect(opened.status, opened.text).toBe(502);
        expect(opened.body).toEqual({
          code: 'UPSTREAM_UNAVAILABLE',
          error: `svc could not reach or read the project's repository ${repoUrl}. Check repo_url and the project secret GIT_TOKEN; the server log has git's error.`,
        });
      }
    } finally {
      server.close();
    }
  });

  it("checks a non-administrator's upstream again before every clone, fetch and push, so a name that now points inside is not contacted", async () => {
    let requests = 0;
    const server = http.createServer((_request, response) => {
      requests += 1;
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const created = await createProject('https://140.82.112.5/team/app.git', userToken);
      expect(created.status).toBe(201);
      // As if its host name had been re-pointed at this machine since (DNS rebinding).
      const inside = `http://127.0.0.1:${port}/team/app.git`;
      await svc.server.services.db.updateTable('projects').set({ repo_url: inside }).where('id', '=', created.body.project.id).execute();
      const opened = await svc.request('POST', `/v1/projects/${created.body.project.id}/change-requests`, { body: { title: 'probe', head_ref: 'feature' } });
      expect(opened.status).toBe(502);
      expect(opened.body.error).toBe(`svc could not reach or read the project's repository ${inside}. Check repo_url and the project secret GIT_TOKEN; the server log has git's error.`);
      expect(requests).toBe(0);

      // Control: the same URL in a project an administrator created is contacted (and fails the same way).
      const byAdmin = await createProject(inside, svc.adminToken);
      expect((await svc.request('POST', `/v1/projects/${byAdmin.body.project.id}/change-requests`, { body: { title: 'x', head_ref: 'feature' } })).status).toBe(502);
      expect(requests).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });
});
