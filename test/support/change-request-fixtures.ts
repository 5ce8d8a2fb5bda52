/**
 * Fixtures for change-request tests: projects on a running test server and working clones that commit and
 * push over smart HTTP with the real git CLI, the way a person or an agent does. Network git runs
 * asynchronously (the server answering it lives in the same process); local commits run synchronously.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitAsync, WorkingCopy, type FileChanges } from '../../src/git/testing/fixtures.js';
import type { TestServer } from './test-server.js';

export interface TestProject {
  id: string;
  slug: string;
  default_branch: string;
  clone_url: string;
  repo_url: string | null;
}

export async function createProject(svc: TestServer, body: { name?: string; repo_url?: string; git_token?: string; default_branch?: string } = {}, token?: string): Promise<TestProject> {
  const response = await svc.request('POST', '/v1/projects', { body: { name: body.name ?? `p-${Math.random().toString(36).slice(2, 10)}`, ...body }, token });
  if (response.status !== 201) throw new Error(`project create failed: ${response.status} ${response.text}`);
  return response.body.project as TestProject;
}

/** `http://host/git/x.git` → `http://x:<token>@host/git/x.git` (HTTP Basic with the token as password, contract §2). */
export function withToken(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.username = 'x';
  parsed.password = token;
  return parsed.toString();
}

const cleanups: string[] = [];

export function tempDir(prefix = 'svc-cr-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of cleanups.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A working clone of a project repository; network git runs asynchronously. */
export class Clone extends WorkingCopy {
  /** Clones `url` (an empty repository is fine) and checks out `branch`, creating it when absent. */
  static async of(url: string, options: { branch?: string } = {}): Promise<Clone> {
    const work = path.join(tempDir(), 'work');
    await gitAsync(['clone', '--quiet', url, work]);
    const clone = new Clone(work);
    clone.git(['checkout', '--quiet', '-B', options.branch ?? 'main']);
    return clone;
  }

  gitAsync(args: string[]): Promise<string> {
    return gitAsync(args, { cwd: this.work });
  }

  /** `git push origin <branch>` (never forced), as a user would. */
  async push(...branches: string[]): Promise<void> {
    await this.gitAsync(['push', '--quiet', 'origin', ...branches.map((branch) => `refs/heads/${branch}:refs/heads/${branch}`)]);
  }

  async fetch(): Promise<void> {
    await this.gitAsync(['fetch', '--quiet', 'origin']);
  }
}

/** Reads a bare repository directly (expectations are built without the code under test). */
export function bareGit(repoPath: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', repoPath, ...args], {
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' },
    encoding: 'utf8',
  }).replace(/\n$/, '');
}

export function hostedRepoPath(svc: TestServer, projectId: string): string {
  return path.join(svc.dataDir, 'repos', `${projectId}.git`);
}

/**
 * Moves `branch` of a hosted project's repository to the clone's `branch` (never forced), writing the bare
 * repository directly: the way a merged change request moves the default branch, which no push may
 * (contract §2). A fetch into the bare repository, so no receive rule or hook is involved.
 */
export function moveHostedBranch(svc: TestServer, project: TestProject, clone: Clone, branch = 'main'): void {
  bareGit(hostedRepoPath(svc, project.id), ['fetch', '--quiet', '--no-write-fetch-head', clone.work, `refs/heads/${branch}:refs/heads/${branch}`]);
}

/**
 * A project whose main branch holds `files`, pushed over HTTP (the first push into its empty repository),
 * and a clone of it. The usual start of a test.
 */
export async function projectWithClone(svc: TestServer, files: FileChanges = { 'README.md': 'hello\n' }, options: { token?: string } = {}): Promise<{ project: TestProject; clone: Clone }> {
  const project = await createProject(svc);
  const clone = await Clone.of(withToken(project.clone_url, options.token ?? svc.adminToken));
  clone.commit(files, 'initial');
  await clone.push('main');
  return { project, clone };
}
