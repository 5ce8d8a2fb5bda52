/**
 * Projects whose default branch carries a manifest, for trigger tests: the first commit creates `main` by
 * a push (the one push to the default branch svc takes), later manifests land through a merged change
 * request, as they do for users.
 */
import fs from 'node:fs';
import path from 'node:path';
import { git, gitAsync, tempDir } from '../../src/git/testing/fixtures.js';
import type { TestServer } from './test-server.js';

export interface TriggerProject {
  id: string;
  slug: string;
  clone_url: string;
  work: string;
}

function pushUrl(server: TestServer, project: { clone_url: string }): string {
  const url = new URL(project.clone_url);
  url.username = 'x';
  url.password = server.adminToken;
  return url.toString();
}

function commitAll(work: string, message: string): void {
  git(['add', '-A'], { cwd: work });
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', message], { cwd: work });
}

/** A hosted project whose first commit (pushed as main) holds `files`, e.g. `{ 'svc.yaml': … }`. */
export async function projectWithFiles(server: TestServer, name: string, files: Record<string, string>): Promise<TriggerProject> {
  const created = await server.request('POST', '/v1/projects', { body: { name } });
  if (created.status !== 201) throw new Error(`project not created: ${created.text}`);
  const project = created.body.project as Omit<TriggerProject, 'work'>;
  const work = tempDir();
  git(['init', '-q', '-b', 'main', work]);
  fs.writeFileSync(path.join(work, 'README.md'), `# ${name}\n`);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
  }
  commitAll(work, 'Start');
  await gitAsync(['push', '-q', pushUrl(server, project), 'HEAD:main'], { cwd: work });
  return { ...project, work };
}

let branchCount = 0;

/** Changes files on a branch, opens a change request and merges it: how a manifest edit reaches main. */
export async function mergeFiles(server: TestServer, project: TriggerProject, files: Record<string, string | null>): Promise<void> {
  const branch = `edit-${++branchCount}-${Date.now()}`;
  await gitAsync(['fetch', '-q', pushUrl(server, project), 'main'], { cwd: project.work });
  git(['checkout', '-q', '-B', branch, 'FETCH_HEAD'], { cwd: project.work });
  for (const [file, text] of Object.entries(files)) {
    if (text === null) fs.rmSync(path.join(project.work, file), { force: true });
    else fs.writeFileSync(path.join(project.work, file), text);
  }
  commitAll(project.work, `Edit ${Object.keys(files).join(', ')}`);
  await gitAsync(['push', '-q', pushUrl(server, project), `HEAD:${branch}`], { cwd: project.work });
  const opened = await server.request('POST', `/v1/projects/${project.id}/change-requests`, { body: { title: `Edit ${branch}`, head_ref: branch } });
  if (opened.status !== 201) throw new Error(`CR not opened: ${opened.text}`);
  const merged = await server.request('POST', `/v1/projects/${project.id}/change-requests/${opened.body.change_request.number}/merge`, { body: {} });
  if (merged.status !== 200) throw new Error(`CR not merged: ${merged.text}`);
}

/** Polls `read` until `done` holds (the system's own timers decide how soon); fails with the last value. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A runtime that starts and answers nothing: sessions reach their sandbox, no agent works. */
export function idleRuntimeCommand(): string {
  const file = path.join(tempDir(), 'idle-runtime');
  fs.writeFileSync(file, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  return file;
}
