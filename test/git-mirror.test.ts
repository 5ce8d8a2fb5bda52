/**
 * Mirror projects end to end: a second real svc server is the upstream git host (its hosted repository is
 * the project's repo_url, a project token of it is the GIT_TOKEN secret), plus local-path and file://
 * upstreams. Every git process started in this test file goes through a `git` on PATH that records its
 * argument list, so the tests can show that the upstream token never reaches an argv.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRow } from '../src/accounts/access.js';
import { RefUpdateRaceError, PushRejectedError, resolveRef } from '../src/git/index.js';
import { gitFailureReason, mirrorRepositoryPath, UpstreamUnavailableError, type OpenProjectRepositoryOptions } from '../src/repositories/project-repository.js';
import { openProjectRepository } from '../src/projects/repository-of.js';
import { createWorkspace, git, gitAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { poll } from './support/poll.js';
import { rejection } from './support/rejection.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

/** The upstream git host and the svc under test. */
let upstream: TestServer;
let svc: TestServer;
let argvLog: string;
let originalPath: string | undefined;

/** A `git` first on PATH that appends its arguments (unit-separated, record-separated) to argvLog. */
function installRecordingGit(): void {
  const realGit = execFileSync('sh', ['-c', 'command -v git']).toString('utf8').trim();
  const directory = tempDir();
  argvLog = path.join(directory, 'argv.log');
  fs.writeFileSync(
    path.join(directory, 'git'),
    `#!/bin/sh\nfor argument in "$@"; do printf '%s\\037' "$argument"; done >> '${argvLog}'\nprintf '\\036' >> '${argvLog}'\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 },
  );
  originalPath = process.env.PATH;
  process.env.PATH = `${directory}:${originalPath ?? ''}`;
}

function recordedArgv(): string[][] {
  if (!fs.existsSync(argvLog)) return [];
  return fs
    .readFileSync(argvLog, 'utf8')
    .split('\x1e')
    .filter((record) => record.length > 0)
    .map((record) => record.split('\x1f').slice(0, -1));
}

/** The recorded git runs whose subcommand is `subcommand` and that name `repoPath` (svc's own runs). */
function runsOf(subcommand: string, repoPath: string): string[][] {
  return recordedArgv().filter((argv) => argv.includes(subcommand) && argv.some((argument) => argument.includes(repoPath)));
}

beforeAll(async () => {
  installRecordingGit();
  upstream = await startTestServer();
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  await upstream.close();
  if (originalPath !== undefined) process.env.PATH = originalPath;
  removeTempDirs();
});

function withToken(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.username = 'person';
  parsed.password = token;
  return parsed.toString();
}

interface UpstreamProject {
  id: string;
  /** The clone URL without credentials: what the mirror project's repo_url is. */
  url: string;
  /** A working clone whose origin carries the upstream admin token. */
  work: string;
  /** A project token of the upstream (read + push): the GIT_TOKEN secret of the mirror project. */
  token: string;
  tip(branch: string): string | null;
  commit(file: string, content: string, message: string): Promise<string>;
}

async function createUpstreamProject(name: string): Promise<UpstreamProject> {
  // The upstream's default branch is trunk: svc refuses pushes to a hosted default branch (contract §2),
  // while its main is an ordinary branch that people and the mirror's merges may push to.
  const created = await upstream.request('POST', '/v1/projects', { body: { name, default_branch: 'trunk' } });
  expect(created.status).toBe(201);
  const { id, clone_url: url } = created.body.project as { id: string; clone_url: string };
  const minted = await upstream.request('POST', `/v1/projects/${id}/tokens`, {
    body: { name: 'svc mirror', capabilities: ['project.read', 'project.gitops.push'] },
  });
  expect(minted.status).toBe(201);
  const work = path.join(tempDir(), 'upstream-work');
  await gitAsync(['clone', '--quiet', withToken(url, upstream.adminToken), work]);
  await gitAsync(['checkout', '--quiet', '-b', 'main'], { cwd: work });
  const project: UpstreamProject = {
    id,
    url,
    work,
    token: minted.body.token as string,
    tip(branch) {
      try {
        return git(['--git-dir', path.join(upstream.dataDir, 'repos', `${id}.git`), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
      } catch {
        return null;
      }
    },
    async commit(file, content, message) {
      fs.writeFileSync(path.join(work, file), content);
      await gitAsync(['add', '--all'], { cwd: work });
      await gitAsync(['commit', '--quiet', '-m', message], { cwd: work });
      return gitAsync(['rev-parse', 'HEAD'], { cwd: work });
    },
  };
  await project.commit('README.md', 'upstream\n', 'initial');
  await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: work });
  return project;
}

/**
 * A project of the svc under test mirroring `repoUrl`, with GIT_TOKEN set when given. Created unread
 * (check_repo false): these tests are about what a mirror does later, upstreams that fail included.
 */
async function createMirrorProject(name: string, repoUrl: string, gitToken?: string): Promise<ProjectRow> {
  const created = await svc.request('POST', '/v1/projects', { body: { name, repo_url: repoUrl, check_repo: false } });
  expect(created.status).toBe(201);
  const id = created.body.project.id as string;
  if (gitToken !== undefined) {
    const secret = await svc.request('PUT', `/v1/projects/${id}/secrets/GIT_TOKEN`, { body: { value: gitToken } });
    expect(secret.status).toBe(201);
  }
  return svc.server.services.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

function open(project: ProjectRow, options: OpenProjectRepositoryOptions = {}) {
  return openProjectRepository(svc.server.services, project, options);
}

describe(`mirror projects on ${testDialect}`, () => {
  it('clones lazily on first open and fetches when stale, forced or invalidated, one fetch for concurrent callers', async () => {
    const up = await createUpstreamProject('Mirror Freshness');
    const project = await createMirrorProject('Freshness', up.url, up.token);
    const mirrorPath = mirrorRepositoryPath(svc.server.services.config, project.id);
    expect(fs.existsSync(mirrorPath)).toBe(false);

    const repository = await open(project, { mirrorMaxAgeMs: 60_000 });
    expect(repository.kind).toBe('mirror');
    expect(repository.path).toBe(mirrorPath);
    expect(await resolveRef(repository.path, 'main')).toBe(up.tip('main'));

    const second = await up.commit('a.txt', 'a\n', 'second');
    await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: up.work });
    // The clone a moment ago is still fresh: no network round trip.
    await repository.refresh();
    expect(await resolveRef(repository.path, 'main')).not.toBe(second);
    await repository.refresh({ force: true });
    expect(await resolveRef(repository.path, 'main')).toBe(second);

    const third = await up.commit('b.txt', 'b\n', 'third');
    await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: up.work });
    repository.invalidate();
    const fetchesBefore = runsOf('fetch', mirrorPath).length;
    await Promise.all(Array.from({ length: 5 }, () => repository.refresh()));
    expect(runsOf('fetch', mirrorPath).length).toBe(fetchesBefore + 1);
    expect(await resolveRef(repository.path, 'main')).toBe(third);

    // A second open reuses the mirror rather than cloning again.
    const clonesBefore = runsOf('clone', mirrorPath).length;
    await open(project);
    expect(runsOf('clone', mirrorPath).length).toBe(clonesBefore);
  });

  it('lands a branch move with a non-force push and follows it in the mirror', async () => {
    const up = await createUpstreamProject('Mirror CAS');
    const project = await createMirrorProject('CAS', up.url, up.token);
    const repository = await open(project);
    const base = up.tip('main');
    await gitAsync(['checkout', '--quiet', '-b', 'feature'], { cwd: up.work });
    const feature = await up.commit('feature.txt', 'feature\n', 'feature work');
    await gitAsync(['push', '--quiet', 'origin', 'feature'], { cwd: up.work });
    await repository.refresh({ force: true });

    await repository.compareAndSwapBranch('main', feature, base ?? '');
    expect(up.tip('main')).toBe(feature);
    expect(await resolveRef(repository.path, 'main')).toBe(feature);
    const pushes = runsOf('push', repository.path);
    expect(pushes.length).toBe(1);
    expect(pushes[0]?.some((argument) => argument === '--force' || argument.startsWith('+') || argument.startsWith('--force'))).toBe(false);
  });

  it('reports a moved upstream as RefUpdateRaceError and loses nothing', async () => {
    const up = await createUpstreamProject('Mirror Race');
    const project = await createMirrorProject('Race', up.url, up.token);
    const repository = await open(project);
    const base = up.tip('main') ?? '';
    await gitAsync(['checkout', '--quiet', '-b', 'session'], { cwd: up.work });
    const session = await up.commit('session.txt', 'session\n', 'session work');
    await gitAsync(['push', '--quiet', 'origin', 'session'], { cwd: up.work });
    await repository.refresh({ force: true });

    // Someone else lands a commit on main upstream; the mirror has not seen it.
    const elsewhere = path.join(tempDir(), 'elsewhere');
    await gitAsync(['clone', '--quiet', '--branch', 'main', withToken(up.url, upstream.adminToken), elsewhere]);
    fs.writeFileSync(path.join(elsewhere, 'hotfix.txt'), 'hotfix\n');
    await gitAsync(['add', '--all'], { cwd: elsewhere });
    await gitAsync(['commit', '--quiet', '-m', 'hotfix'], { cwd: elsewhere });
    await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: elsewhere });
    const hotfix = up.tip('main');
    expect(hotfix).not.toBe(base);

    const error = await rejection(repository.compareAndSwapBranch('main', session, base));
    expect(error).toBeInstanceOf(RefUpdateRaceError);
    expect(error).toMatchObject({ ref: 'refs/heads/main', expectedOldSha: base, actualSha: hotfix });
    expect(up.tip('main')).toBe(hotfix);
    expect(up.tip('session')).toBe(session);
    // The refusal refreshed the mirror, so the caller's retry computes from the real tip.
    expect(await resolveRef(repository.path, 'main')).toBe(hotfix);

    // A "move" that would drop commits is refused before the upstream is asked.
    const pushesBefore = runsOf('push', repository.path).length;
    const rewrite = await rejection(repository.compareAndSwapBranch('main', base, hotfix ?? ''));
    expect(rewrite).toBeInstanceOf(PushRejectedError);
    expect(runsOf('push', repository.path).length).toBe(pushesBefore);
    expect(up.tip('main')).toBe(hotfix);
  });

  it('answers UpstreamUnavailableError (502) when the upstream cannot be reached or refuses the token', async () => {
    const nowhere = await createMirrorProject('Nowhere', 'http://127.0.0.1:9/git/nothing.git');
    const neverCloned = await rejection(open(nowhere));
    expect(neverCloned).toBeInstanceOf(UpstreamUnavailableError);
    expect(neverCloned).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502 });
    expect(fs.existsSync(mirrorRepositoryPath(svc.server.services.config, nowhere.id))).toBe(false);
    // The answer names no detail of what git met there (see git-upstream-address.test.ts); the cause, for the log, does.
    expect((neverCloned as Error).message).toBe(
      "svc could not reach or read the project's repository http://127.0.0.1:9/git/nothing.git. Check repo_url and the project secret GIT_TOKEN; the server log has git's error.",
    );
    expect(String((neverCloned as Error).cause)).toMatch(/Failed to connect to 127\.0\.0\.1 port 9/);
    const missingPath = await rejection(open(await createMirrorProject('Missing Path', '/nonexistent/upstream.git')));
    expect((missingPath as Error).message).toBe(
      "svc could not reach or read the project's repository /nonexistent/upstream.git. Check repo_url and the project secret GIT_TOKEN; the server log has git's error.",
    );
    expect(String((missingPath as Error).cause)).toContain("repository '/nonexistent/upstream.git' does not exist");

    const up = await createUpstreamProject('Mirror Auth');
    const wrongToken = await createMirrorProject('Wrong Token', up.url, 'svc_p_not_the_token');
    const refused = await rejection(open(wrongToken));
    expect(refused).toBeInstanceOf(UpstreamUnavailableError);
    expect((refused as Error).message).toContain('GIT_TOKEN');
    const noToken = await createMirrorProject('No Token', up.url);
    expect(await rejection(open(noToken))).toBeInstanceOf(UpstreamUnavailableError);

    // A mirror whose upstream disappears keeps serving what it has; refresh and pushes report the outage.
    const project = await createMirrorProject('Gone Later', up.url, up.token);
    const repository = await open(project);
    const tip = up.tip('main');
    expect((await upstream.request('DELETE', `/v1/projects/${up.id}`)).status).toBe(204);
    expect(await rejection(repository.refresh({ force: true }))).toBeInstanceOf(UpstreamUnavailableError);
    expect(await resolveRef(repository.path, 'main')).toBe(tip);
    const headOfMain = git(['--git-dir', repository.path, 'commit-tree', '-p', tip ?? '', '-m', 'next', `${tip}^{tree}`]);
    expect(await rejection(repository.compareAndSwapBranch('main', headOfMain, tip ?? ''))).toBeInstanceOf(UpstreamUnavailableError);
  });

  it("names git's reason for a failure, not the advice git prints after it", () => {
    // What a fetch from an upstream that moved away prints: two fatal lines, then advice.
    const fetched = spawnSync('git', ['ls-remote', '/nonexistent/moved.git'], { cwd: os.tmpdir(), encoding: 'utf8' });
    expect(fetched.stderr).toContain('and the repository exists.');
    expect(gitFailureReason(fetched.stderr)).toBe("'/nonexistent/moved.git' does not appear to be a git repository");
    expect(gitFailureReason('error: RPC failed; HTTP 500\nfatal: the remote end hung up unexpectedly\n')).toBe('the remote end hung up unexpectedly');
    expect(gitFailureReason('error: error in sideband demultiplexer\n')).toBe('error in sideband demultiplexer');
  });

  it('never writes the upstream token to an argument list or to the mirror on disk', async () => {
    const up = await createUpstreamProject('Mirror Secrets');
    const project = await createMirrorProject('Secrets', up.url, up.token);
    const repository = await open(project);
    await up.commit('c.txt', 'c\n', 'more');
    await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: up.work });
    await repository.refresh({ force: true });
    await gitAsync(['checkout', '--quiet', '-b', 'topic'], { cwd: up.work });
    const topic = await up.commit('d.txt', 'd\n', 'topic');
    await gitAsync(['push', '--quiet', 'origin', 'topic'], { cwd: up.work });
    await repository.refresh({ force: true });
    await repository.compareAndSwapBranch('main', topic, (await resolveRef(repository.path, 'main')) ?? '');

    const networkRuns = ['clone', 'fetch', 'push'].flatMap((subcommand) => recordedArgv().filter((argv) => argv.includes(subcommand)));
    expect(runsOf('clone', repository.path).length).toBeGreaterThan(0);
    expect(runsOf('fetch', repository.path).length).toBeGreaterThan(0);
    expect(runsOf('push', repository.path).length).toBeGreaterThan(0);
    const basic = Buffer.from(`x-access-token:${up.token}`).toString('base64');
    for (const argv of recordedArgv()) {
      const joined = argv.join(' ');
      expect(joined).not.toContain(up.token);
      expect(joined).not.toContain(basic);
    }
    expect(networkRuns.length).toBeGreaterThan(0);
    // Control: the recorder does see credentials when someone puts them in argv (the test's own clone URLs).
    expect(recordedArgv().some((argv) => argv.join(' ').includes(upstream.adminToken))).toBe(true);

    const config = fs.readFileSync(path.join(repository.path, 'config'), 'utf8');
    expect(config).toContain(`url = ${up.url}`);
    for (const file of fs.readdirSync(repository.path, { recursive: true, encoding: 'utf8' })) {
      const full = path.join(repository.path, file);
      if (!fs.statSync(full).isFile()) continue;
      const content = fs.readFileSync(full).toString('latin1');
      expect(content, file).not.toContain(up.token);
      expect(content, file).not.toContain(basic);
    }
  });

  it('mirrors a local path or file:// upstream, pushes merges into it and tells refusals from races', async () => {
    const workspace = createWorkspace();
    const viaPath = await createMirrorProject('Local Path', workspace.bare);
    const viaFileUrl = await createMirrorProject('File URL', `file://${workspace.bare}`);
    for (const project of [viaPath, viaFileUrl]) {
      const repository = await open(project);
      expect(repository.kind).toBe('mirror');
      expect(await resolveRef(repository.path, 'main')).toBe(workspace.tip('main'));
    }

    const repository = await open(viaFileUrl, { mirrorMaxAgeMs: 0 });
    workspace.checkout('feature');
    const feature = workspace.commit({ 'f.txt': 'f\n' }, 'feature');
    workspace.push('feature');
    await repository.refresh();
    const base = workspace.tip('main');
    await repository.compareAndSwapBranch('main', feature, base);
    expect(workspace.tip('main')).toBe(feature);

    // A refusal by the upstream's own rules (here a hook) is not a race: PushRejectedError, nothing moves.
    const next = workspace.commit({ 'g.txt': 'g\n' }, 'next');
    workspace.git(['push', '--quiet', 'origin', 'HEAD:refs/heads/next']);
    await repository.refresh();
    fs.writeFileSync(path.join(workspace.bare, 'hooks', 'pre-receive'), '#!/bin/sh\necho "protected by policy" >&2\nexit 1\n', { mode: 0o755 });
    const refused = await rejection(repository.compareAndSwapBranch('main', next, feature));
    expect(refused).toBeInstanceOf(PushRejectedError);
    expect(refused).not.toBeInstanceOf(RefUpdateRaceError);
    expect(workspace.tip('main')).toBe(feature);
    expect(await resolveRef(repository.path, 'main')).toBe(feature);
  });

  it('refuses credentials in repo_url, allows local upstreams only to administrators and removes the mirror with the project', async () => {
    const user = await svc.request('POST', '/v1/users', { body: { name: `mirror-user-${Date.now()}` } });
    expect(user.status).toBe(201);
    const forbidden = await svc.request('POST', '/v1/projects', {
      token: user.body.token as string,
      body: { name: 'Sneaky', repo_url: path.join(svc.dataDir, 'repos') },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toContain('administrator');

    const withPassword = await svc.request('POST', '/v1/projects', {
      body: { name: 'Leaky', repo_url: 'https://person:ghp_secret@git.example.test/team/app.git' },
    });
    expect(withPassword.status).toBe(400);
    expect(withPassword.body).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: '/repo_url' }] });
    expect(withPassword.body.issues[0].message).toContain('GIT_TOKEN');

    const workspace = createWorkspace();
    const project = await createMirrorProject('Removable', workspace.bare);
    const repository = await open(project);
    expect(fs.existsSync(repository.path)).toBe(true);
    expect((await svc.request('DELETE', `/v1/projects/${project.id}`)).status).toBe(204);
    expect(fs.existsSync(repository.path)).toBe(false);
  });

  it("reads the project's triggers again when a fetch moves the mirror's default branch", async () => {
    const up = await createUpstreamProject('Mirror Triggers');
    const project = await createMirrorProject('Mirror triggers', up.url, up.token);
    const repository = await open(project);
    // The receiver reads the stored set: 404 for a trigger not in it, 409 (its secret unset) once it is.
    const deliver = async () => (await svc.request('POST', `/v1/webhooks/projects/${project.id}/hook`, { token: null, rawBody: '{}', headers: { 'content-type': 'application/json' } })).status;
    expect(await deliver()).toBe(404);
    await up.commit('svc.yaml', 'triggers:\n  - slug: hook\n    type: webhook\n    secret_env: HOOK_SECRET\n    prompt: x\n', 'Add a webhook trigger');
    await gitAsync(['push', '--quiet', 'origin', 'main'], { cwd: up.work });
    expect(await deliver()).toBe(404);
    await repository.refresh({ force: true });
    await poll("the fetched branch's triggers are read", deliver, (status) => status === 409, { withinMs: 10_000, everyMs: 50 });
  });
});
