/**
 * PATCH /v1/projects/:id default_branch names a branch the repository has (hosted or mirror), and the
 * push rules follow the configured default branch. Real HTTP API, real git.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, git, gitAsync, gitFailsAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { bareGit, createProject, hostedRepoPath, projectWithClone } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const uniqueName = (name: string): string => `${name} ${randomBytes(3).toString('hex')}`;

describe(`choosing the default branch on ${testDialect}`, () => {
  it('refuses a default_branch the hosted repository does not have with 409 naming the branches it has, and moves the push rules with an accepted one', async () => {
    const { project, clone } = await projectWithClone(svc);
    clone.checkout('trunk');
    await clone.push('trunk');
    clone.checkout('zz-last');
    await clone.push('zz-last');

    const missing = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'develop' } });
    expect(missing.status).toBe(409);
    expect(missing.body).toEqual({
      code: 'BRANCH_MISSING',
      error:
        "The project's repository has no branch \"develop\", so it cannot be the default branch. Its branches: main, trunk, zz-last. " +
        'Choose one of them, or push develop as a new branch first.',
    });
    expect((await svc.request('GET', `/v1/projects/${project.id}`)).body.project.default_branch).toBe('main');
    expect(bareGit(hostedRepoPath(svc, project.id), ['symbolic-ref', 'HEAD'])).toBe('refs/heads/main');

    const moved = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'trunk' } });
    expect(moved.status).toBe(200);
    expect(moved.body.project.default_branch).toBe('trunk');
    // trunk is now written only by merges; main is an ordinary branch.
    clone.checkout('main');
    const next = clone.commit({ 'next.txt': 'next\n' }, 'next');
    const refused = await clone.gitAsync(['push', 'origin', 'HEAD:refs/heads/trunk']).then(
      () => '',
      (error: { stderr?: string }) => String(error.stderr),
    );
    expect(refused).toContain('(trunk is the default branch; it changes only by merging a change request');
    await clone.push('main');
    expect(bareGit(hostedRepoPath(svc, project.id), ['rev-parse', 'refs/heads/main'])).toBe(next);
  });

  it('lets an empty hosted repository take any default_branch, which the first push then creates', async () => {
    const project = await createProject(svc, { name: uniqueName('Empty') });
    const patched = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'develop' } });
    expect(patched.status).toBe(200);
    expect(bareGit(hostedRepoPath(svc, project.id), ['symbolic-ref', 'HEAD'])).toBe('refs/heads/develop');

    const work = path.join(tempDir(), 'work');
    const url = new URL(project.clone_url);
    url.username = 'x';
    url.password = svc.adminToken;
    await gitAsync(['clone', '--quiet', url.toString(), work]);
    git(['commit', '--quiet', '--allow-empty', '-m', 'start'], { cwd: work });
    await gitAsync(['push', '--quiet', 'origin', 'HEAD:refs/heads/develop'], { cwd: work });
    git(['commit', '--quiet', '--allow-empty', '-m', 'again'], { cwd: work });
    expect(await gitFailsAsync(['push', 'origin', 'HEAD:refs/heads/develop'], { cwd: work })).toContain('(develop is the default branch;');
  });

  it('refuses a default_branch that is not on the mirror, after fetching it', async () => {
    const upstream = createWorkspace();
    const project = await createProject(svc, { name: uniqueName('Mirror Choice'), repo_url: upstream.bare });
    const missing = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'release' } });
    expect(missing.status).toBe(409);
    expect(missing.body.error).toBe(
      `The repository ${upstream.bare} has no branch "release", so it cannot be the default branch. Its branches: main. Choose one of them, or push release as a new branch first.`,
    );

    upstream.checkout('release');
    upstream.push('release');
    const accepted = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { default_branch: 'release' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.project.default_branch).toBe('release');
  });
});
