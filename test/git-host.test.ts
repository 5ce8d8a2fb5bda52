/**
 * The git smart-HTTP host end to end: the real git CLI, as a person or an agent uses it, against a real
 * svc server. Git runs asynchronously (gitAsync) because the server it talks to lives in this process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitAsync, gitFailsAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

interface CreatedProject {
  id: string;
  slug: string;
  clone_url: string;
}

async function createProject(name: string, body: Record<string, unknown> = {}): Promise<CreatedProject> {
  const response = await svc.request('POST', '/v1/projects', { body: { name, ...body } });
  expect(response.status).toBe(201);
  return response.body.project as CreatedProject;
}

async function mintToken(projectId: string, capabilities: string[]): Promise<string> {
  const response = await svc.request('POST', `/v1/projects/${projectId}/tokens`, { body: { name: 'git', capabilities } });
  expect(response.status).toBe(201);
  return response.body.token as string;
}

/** The clone URL with HTTP Basic credentials in it, the way a user pastes a token into git. */
function withToken(cloneUrl: string, token: string): string {
  const url = new URL(cloneUrl);
  url.username = 'anyone';
  url.password = token;
  return url.toString();
}

function hostedPath(projectId: string): string {
  return path.join(svc.dataDir, 'repos', `${projectId}.git`);
}

/** The server-side tip of a branch, read from the hosted repository directly (null when absent). */
function serverTip(projectId: string, branch: string): string | null {
  try {
    return git(['--git-dir', hostedPath(projectId), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  } catch {
    return null;
  }
}

/** A fresh clone of `url`; returns its working directory. */
async function cloneInto(url: string, extraArgs: string[] = []): Promise<string> {
  const work = path.join(tempDir(), 'work');
  await gitAsync([...extraArgs, 'clone', '--quiet', url, work]);
  return work;
}

async function commitFile(work: string, file: string, content: string | Buffer, message: string): Promise<string> {
  fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
  fs.writeFileSync(path.join(work, file), content);
  await gitAsync(['add', '--all'], { cwd: work });
  await gitAsync(['commit', '--quiet', '-m', message], { cwd: work });
  return gitAsync(['rev-parse', 'HEAD'], { cwd: work });
}

/** A hosted project whose `main` has one commit, pushed through the git host. */
async function projectWithHistory(name: string): Promise<{ project: CreatedProject; work: string; url: string; first: string }> {
  const project = await createProject(name);
  const url = withToken(project.clone_url, svc.adminToken);
  const work = await cloneInto(url);
  await gitAsync(['checkout', '--quiet', '-b', 'main'], { cwd: work });
  const first = await commitFile(work, 'README.md', '# hello\n', 'first commit');
  await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: work });
  return { project, work, url, first };
}

describe(`git smart-HTTP host on ${testDialect}`, () => {
  it('provisions a bare repository on project creation and serves clone, push and a second clone', async () => {
    const project = await createProject('Hosted Repo');
    expect(project.clone_url).toBe(`${svc.url}/git/${project.id}.git`);
    expect(git(['--git-dir', hostedPath(project.id), 'rev-parse', '--is-bare-repository'])).toBe('true');
    expect(git(['--git-dir', hostedPath(project.id), 'symbolic-ref', 'HEAD'])).toBe('refs/heads/main');

    const url = withToken(project.clone_url, svc.adminToken);
    const work = await cloneInto(url);
    await gitAsync(['checkout', '--quiet', '-b', 'main'], { cwd: work });
    const sha = await commitFile(work, 'src/app.ts', 'export const answer = 42;\n', 'add the answer');
    await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: work });
    expect(serverTip(project.id, 'main')).toBe(sha);

    const second = await cloneInto(url);
    expect(await gitAsync(['rev-parse', 'HEAD'], { cwd: second })).toBe(sha);
    expect(await gitAsync(['log', '--format=%s'], { cwd: second })).toBe('add the answer');
    expect(fs.readFileSync(path.join(second, 'src/app.ts'), 'utf8')).toBe('export const answer = 42;\n');
  });

  it('speaks protocol v0 and v2, fetches new commits and pushes new branches', async () => {
    const { project, work, url } = await projectWithHistory('Protocols');
    const v0 = await cloneInto(url, ['-c', 'protocol.version=0']);
    const v2 = await cloneInto(url, ['-c', 'protocol.version=2']);

    await gitAsync(['checkout', '--quiet', '-b', 'session/abc'], { cwd: work });
    const branchTip = await commitFile(work, 'notes.md', 'work in progress\n', 'session work');
    await gitAsync(['push', '--quiet', 'origin', 'HEAD'], { cwd: work });
    expect(serverTip(project.id, 'session/abc')).toBe(branchTip);

    for (const [clone, version] of [[v0, '0'], [v2, '2']] as const) {
      await gitAsync(['-c', `protocol.version=${version}`, 'fetch', '--quiet', 'origin'], { cwd: clone });
      expect(await gitAsync(['rev-parse', 'origin/session/abc'], { cwd: clone })).toBe(branchTip);
    }
    const remoteBranches = await gitAsync(['ls-remote', '--heads', url]);
    expect(remoteBranches).toContain('refs/heads/session/abc');
    expect(remoteBranches).toContain('refs/heads/main');
  });

  it('refuses force pushes on every branch and the deletion of the default branch, allows deleting other branches', async () => {
    const { project, work, first } = await projectWithHistory('Protected');
    await gitAsync(['push', '--quiet', 'origin', 'HEAD:refs/heads/session/1'], { cwd: work });
    await gitAsync(['commit', '--quiet', '--amend', '-m', 'rewritten history'], { cwd: work });
    for (const branch of ['main', 'session/1']) {
      const forced = await gitFailsAsync(['push', '--force', 'origin', `HEAD:refs/heads/${branch}`], { cwd: work });
      expect(forced).toMatch(/non-fast-forward|rejected/);
      expect(serverTip(project.id, branch)).toBe(first);
    }

    const deleted = await gitFailsAsync(['push', 'origin', ':main'], { cwd: work });
    expect(deleted).toContain('! [remote rejected] main (main is the default branch of this project and cannot be deleted)');
    expect(serverTip(project.id, 'main')).toBe(first);

    await gitAsync(['push', '--quiet', 'origin', `${first}:refs/heads/old-session`], { cwd: work });
    expect(serverTip(project.id, 'old-session')).toBe(first);
    await gitAsync(['push', '--quiet', 'origin', ':old-session'], { cwd: work });
    expect(serverTip(project.id, 'old-session')).toBeNull();
  });

  it('moves HEAD and the deletion guard with the default branch', async () => {
    const { project, work, first } = await projectWithHistory('Trunk Based');
    await gitAsync(['push', '--quiet', 'origin', `${first}:refs/heads/trunk`], { cwd: work });
    const patched = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'trunk' } });
    expect(patched.status).toBe(200);
    expect(git(['--git-dir', hostedPath(project.id), 'symbolic-ref', 'HEAD'])).toBe('refs/heads/trunk');

    expect(await gitFailsAsync(['push', 'origin', ':trunk'], { cwd: work })).toContain('default branch');
    await gitAsync(['push', '--quiet', 'origin', ':main'], { cwd: work });
    expect(serverTip(project.id, 'main')).toBeNull();
  });

  it('lets a read-only token clone but answers its push with 403', async () => {
    const { project } = await projectWithHistory('Read Only');
    const readOnly = await mintToken(project.id, ['project.read']);
    const work = await cloneInto(withToken(project.clone_url, readOnly));
    const before = serverTip(project.id, 'main');
    await commitFile(work, 'change.txt', 'nope\n', 'not allowed');
    const refused = await gitFailsAsync(['push', 'origin', 'main'], { cwd: work });
    expect(refused).toContain('403');
    // git shows a text/plain error body to the user as "remote:" lines.
    expect(refused).toContain('remote: This token lacks the capability project.gitops.push');
    expect(serverTip(project.id, 'main')).toBe(before);

    const pusher = await mintToken(project.id, ['project.read', 'project.gitops.push']);
    await gitAsync(['push', '--quiet', withToken(project.clone_url, pusher), 'HEAD:refs/heads/allowed'], { cwd: work });
    expect(serverTip(project.id, 'allowed')).toBe(await gitAsync(['rev-parse', 'HEAD'], { cwd: work }));
  });

  it('refuses a token without project.read, and a project token of another project, with 403', async () => {
    const { project } = await projectWithHistory('Guarded');
    const other = await createProject('Somebody Else');
    const otherToken = await mintToken(other.id, ['project.read', 'project.gitops.push']);
    const crossProject = await gitFailsAsync(['ls-remote', withToken(project.clone_url, otherToken)]);
    expect(crossProject).toContain('403');
    expect(crossProject).toContain('belongs to another project');

    const publisher = await mintToken(project.id, ['dashboards.publish']);
    expect(await gitFailsAsync(['ls-remote', withToken(project.clone_url, publisher)])).toContain('403');

    const raw = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x:${otherToken}`).toString('base64')}` },
    });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('asks for credentials with 401 and WWW-Authenticate, and rejects unknown tokens the same way', async () => {
    const { project } = await projectWithHistory('Needs Auth');
    for (const service of ['git-upload-pack', 'git-receive-pack']) {
      const anonymous = await fetch(`${project.clone_url}/info/refs?service=${service}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="svc"');
      expect(await anonymous.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const anonymousClone = await gitFailsAsync(['clone', project.clone_url, path.join(tempDir(), 'x')]);
    expect(anonymousClone).toMatch(/could not read Username|Authentication failed/);

    const wrongToken = await gitFailsAsync(['ls-remote', withToken(project.clone_url, 'svc_p_not_a_real_token')]);
    expect(wrongToken).toContain('Authentication failed');

    // The token as user name with no password (what some tools send) is accepted too, and so is Bearer.
    const asUser = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`${svc.adminToken}:`).toString('base64')}` },
    });
    expect(asUser.status).toBe(200);
    const bearer = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Bearer ${svc.adminToken}` },
    });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(bearer.headers.get('cache-control')).toContain('no-cache');
  });

  it('answers 404 for unknown projects, malformed repository names and the dumb protocol', async () => {
    const unknown = `${svc.url}/git/${randomUUID()}.git`;
    const missing = await gitFailsAsync(['ls-remote', withToken(unknown, svc.adminToken)]);
    expect(missing).toContain('not found');
    const auth = { authorization: `Bearer ${svc.adminToken}` };
    const unknownRaw = await fetch(`${unknown}/info/refs?service=git-upload-pack`, { headers: auth });
    expect(unknownRaw.status).toBe(404);
    expect(await unknownRaw.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await fetch(`${svc.url}/git/not-a-project.git/info/refs?service=git-upload-pack`, { headers: auth })).status).toBe(404);
    const { project } = await projectWithHistory('Dumb');
    expect((await fetch(`${project.clone_url}/info/refs`, { headers: auth })).status).toBe(404);
  });

  it('tells git users to clone repo_url for a mirror project', async () => {
    const upstream = path.join(tempDir(), 'upstream.git');
    git(['init', '--quiet', '--bare', upstream]);
    const mirror = await createProject('Mirrored', { repo_url: upstream });
    const refused = await gitFailsAsync(['ls-remote', withToken(`${svc.url}/git/${mirror.id}.git`, svc.adminToken)]);
    expect(refused).toContain(`remote: Project ${mirror.slug} is a mirror of ${upstream}`);
    expect(refused).toContain('not found');
  });

  it('streams large pushes past the JSON body limit', async () => {
    const { project, work } = await projectWithHistory('Big Push');
    // Random bytes do not compress, so the pack is as large as the file: well over the 1 MiB JSON limit.
    const sha = await commitFile(work, 'assets/blob.bin', randomBytes(8 * 1024 * 1024), 'add a large asset');
    await gitAsync(['push', '--quiet', 'origin', 'HEAD:refs/heads/assets'], { cwd: work });
    expect(serverTip(project.id, 'assets')).toBe(sha);
    const copy = await cloneInto(withToken(project.clone_url, svc.adminToken));
    await gitAsync(['checkout', '--quiet', 'assets'], { cwd: copy });
    expect(fs.statSync(path.join(copy, 'assets/blob.bin')).size).toBe(8 * 1024 * 1024);
  });

  it('accepts a gzip-encoded upload-pack request body', async () => {
    const { project, first } = await projectWithHistory('Gzip');
    // A protocol v0 negotiation by hand: want the tip, no haves, done. git gzips such bodies once they are large.
    const pkt = (line: string): string => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const body = gzipSync(Buffer.from(`${pkt(`want ${first} ofs-delta\n`)}0000${pkt('done\n')}`));
    const response = await fetch(`${project.clone_url}/git-upload-pack`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${svc.adminToken}`,
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    const answer = Buffer.from(await response.arrayBuffer());
    expect(answer.subarray(0, 8).toString('latin1')).toBe('0008NAK\n');
    expect(answer.includes(Buffer.from('PACK'))).toBe(true);
  });

  it('refuses a service request with the wrong content type', async () => {
    const { project } = await projectWithHistory('Content Types');
    const response = await fetch(`${project.clone_url}/git-upload-pack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.adminToken}`, 'content-type': 'text/plain' },
      body: '0000',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'BAD_REQUEST', error: expect.stringContaining('application/x-git-upload-pack-request') });
  });

  it('deletes the repository with the project', async () => {
    const { project } = await projectWithHistory('Short Lived');
    expect(fs.existsSync(hostedPath(project.id))).toBe(true);
    expect((await svc.request('DELETE', `/v1/projects/${project.id}`)).status).toBe(204);
    expect(fs.existsSync(hostedPath(project.id))).toBe(false);
    const gone = await fetch(`${project.clone_url}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Bearer ${svc.adminToken}` },
    });
    expect(gone.status).toBe(404);
  });
});
