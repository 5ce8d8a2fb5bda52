/**
 * The merge gate on the manifest's `sandbox` section, through the API with real git: settings over this
 * server's maximums (SVC_SANDBOX_MAX_*, disk among them), a Dockerfile the head does not hold and malformed values are each
 * refused with 422 MANIFEST_INVALID where they are written, and the fixed branch merges. A session whose
 * base ref asks for more than the server gives fails before any sandbox starts, saying where to fix it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGit, hostedRepoPath, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { poll } from './support/poll.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer({ env: { SVC_SANDBOX_MAX_MEMORY_MB: '4096', SVC_SANDBOX_MAX_CPUS: '2', SVC_SANDBOX_DISK_MB: '4096', SVC_SANDBOX_MAX_DISK_MB: '8192' } });
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;
const tip = (project: TestProject) => bareGit(hostedRepoPath(svc, project.id), ['rev-parse', 'refs/heads/main']);
const DOCKERFILE = 'ARG SVC_SANDBOX_IMAGE\nFROM ${SVC_SANDBOX_IMAGE}\nRUN echo ready > /opt/ready\n';

describe(`the sandbox section at the merge gate on ${testDialect}`, () => {
  it('refuses memory and disk over the maximum and a missing Dockerfile, each by its path; the fixed branch merges', async () => {
    const { project, clone } = await projectWithClone(svc);
    const mainTip = clone.head();
    clone.checkout('bigger-sandbox');
    clone.commit({ 'svc.yaml': 'sandbox:\n  memory: 8g\n  cpus: 1.5\n  disk: 20g\n  image:\n    dockerfile: .svc/sandbox/Dockerfile\n' }, 'ask for a bigger sandbox');
    await clone.push('bigger-sandbox');
    expect((await svc.request('POST', crs(project), { body: { title: 'Bigger sandbox', head_ref: 'bigger-sandbox' } })).status).toBe(201);

    const refused = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('MANIFEST_INVALID');
    expect(refused.body.issues).toEqual([
      { path: '/sandbox/memory', message: 'sandbox.memory 8g is more than this server gives a sandbox (at most 4g); lower it or ask its operator to raise SVC_SANDBOX_MAX_MEMORY_MB' },
      { path: '/sandbox/disk', message: 'sandbox.disk 20g is more than this server gives a sandbox (at most 8g); lower it or ask its operator to raise SVC_SANDBOX_MAX_DISK_MB' },
      { path: '/sandbox/image/dockerfile', message: 'sandbox.image.dockerfile ".svc/sandbox/Dockerfile" is not a file on this branch; commit it or correct the path' },
    ]);
    expect(refused.body.error).toBe(
      'svc.yaml on the head branch is invalid, so the merge did not run: /sandbox/memory: sandbox.memory 8g is more than this server gives a sandbox (at most 4g); lower it or ask its operator to raise SVC_SANDBOX_MAX_MEMORY_MB (and 2 more; see issues)',
    );
    expect(tip(project)).toBe(mainTip);

    clone.commit({ 'svc.yaml': 'sandbox:\n  memory: 4g\n  cpus: 1.5\n  disk: 8g\n  image:\n    dockerfile: .svc/sandbox/Dockerfile\n', '.svc/sandbox/Dockerfile': DOCKERFILE }, 'fit the server');
    await clone.push('bigger-sandbox');
    const merged = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merged.status, merged.text).toBe(200);
    expect(tip(project)).toBe(merged.body.merge_commit_sha);
  });

  it("fails a session whose base ref asks more than the server gives, without starting a sandbox", async () => {
    const { project } = await projectWithClone(svc, { 'svc.yaml': 'sandbox:\n  memory: 16g\n' });
    const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} });
    expect(created.status, created.text).toBe(201);
    const route = `/v1/projects/${project.id}/sessions/${created.body.session.id}`;
    const session = await poll('the session failed', async () => (await svc.request('GET', route)).body.session, (current) => current.status !== 'provisioning');
    expect(session).toMatchObject({
      status: 'failed',
      error:
        'The sandbox could not be started: svc.yaml on main: /sandbox/memory: sandbox.memory 16g is more than this server gives a sandbox (at most 4g); ' +
        'lower it or ask its operator to raise SVC_SANDBOX_MAX_MEMORY_MB. Fix it on main and resume the session.',
    });
    expect(fs.existsSync(path.join(svc.dataDir, 'sandboxes', session.id))).toBe(false);
  });

  it('refuses malformed settings in svc.toml too, one issue per setting', async () => {
    const { project, clone } = await projectWithClone(svc);
    clone.checkout('typos');
    clone.commit({ 'svc.toml': '[sandbox]\nmemory = 2048\ncpus = 3\npid = 100\ndisk = "5 gigs"\n' }, 'sandbox typos');
    await clone.push('typos');
    expect((await svc.request('POST', crs(project), { body: { title: 'Typos', head_ref: 'typos' } })).status).toBe(201);
    const refused = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(refused.status).toBe(422);
    expect(refused.body.issues).toEqual([
      { path: '/sandbox/pid', message: '"pid" is not a sandbox setting (known: memory, cpus, pids, disk, image) (did you mean pids?)' },
      { path: '/sandbox/memory', message: 'sandbox.memory must be a size with its unit, e.g. "2g" or "512m"; got the number 2048, which could be bytes or megabytes' },
      { path: '/sandbox/disk', message: 'sandbox.disk "5 gigs" is not a size; write a number and a unit k, m, g or t, e.g. "5g" or "20g"' },
      { path: '/sandbox/cpus', message: 'sandbox.cpus 3 is more than this server gives a sandbox (at most 2); lower it or ask its operator to raise SVC_SANDBOX_MAX_CPUS' },
    ]);
  });
});
