/**
 * Projects whose default branch carries a manifest, for trigger tests: the first commit creates `main` by
 * a push (the one push to the default branch svc takes), later manifests land through a merged change
 * request, as they do for users.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { git, gitAsync, tempDir } from '../../src/git/testing/fixtures.js';
import { poll } from './poll.js';
import { commitAll, hostedProject, pushUrl, type HostedProject } from './project-fixtures.js';
import type { TestResponse, TestServer } from './test-server.js';

export type TriggerProject = HostedProject;

/** A hosted project whose first commit (pushed as main) holds a README and `files`, e.g. `{ 'svc.yaml': … }`. */
export function projectWithFiles(server: TestServer, name: string, files: Record<string, string>): Promise<TriggerProject> {
  return hostedProject(server, name, { 'README.md': `# ${name}\n`, ...files });
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

/** Polls `read` every 50 ms until `done` holds (the system's own timers decide how soon). */
export function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  return poll(what, read, done, { withinMs: timeoutMs, everyMs: 50 });
}

/** A runtime that starts and answers nothing: sessions reach their sandbox, no agent works. */
export function idleRuntimeCommand(): string {
  const file = path.join(tempDir(), 'idle-runtime');
  fs.writeFileSync(file, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  return file;
}

/** A project whose manifest svc has read, with its HOOK_SECRET set to `secret`. */
export async function webhookProject(server: TestServer, name: string, manifest: string, secret: string): Promise<TriggerProject> {
  const project = await projectWithFiles(server, name, { 'svc.yaml': manifest });
  const stored = await server.request('PUT', `/v1/projects/${project.id}/secrets/HOOK_SECRET`, { body: { value: secret } });
  if (stored.status >= 300) throw new Error(`setting HOOK_SECRET answered ${stored.status}: ${stored.text}`);
  // Read here, so that deliveries do not race the manifest's first read.
  await server.request('GET', `/v1/projects/${project.id}/triggers`);
  return project;
}

/** Delivers `{ n }` to a webhook trigger as GitHub does: signed with `secret`, with its delivery id. */
export function deliverSigned(server: TestServer, secret: string, project: TriggerProject, slug: string, n: number, deliveryId: string): Promise<TestResponse> {
  const body = JSON.stringify({ n });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return server.request('POST', `/v1/webhooks/projects/${project.id}/${slug}`, {
    token: null,
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, 'x-github-delivery': deliveryId },
  });
}
