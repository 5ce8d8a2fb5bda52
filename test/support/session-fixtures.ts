/**
 * What the session tests share: a project whose repository points the agent runtime at a scripted model,
 * reading a session as its owner sees it, and polling for a condition with a deadline.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { hostedProject, type HostedProject } from './project-fixtures.js';
import { scriptedRuntimeConfig } from './runtime-fixture.js';
import type { TestServer } from './test-server.js';

export type SessionProject = HostedProject;

/** A new project whose first commit holds `files`, pushed to each of `branches`. */
export function projectWithCommit(svc: TestServer, name: string, files: Record<string, string> = { 'README.md': `# ${name}\n` }, branches: readonly string[] = ['main']): Promise<SessionProject> {
  return hostedProject(svc, name, files, branches);
}

/** A project whose `main` holds a README and `.svc/runtime/opencode.json` aimed at `modelBaseUrl`. */
export function projectWithRuntime(svc: TestServer, modelBaseUrl: string, name: string): Promise<SessionProject> {
  return projectWithCommit(svc, name, { 'README.md': `# ${name}\n`, '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(modelBaseUrl), null, 2) });
}

export async function sessionOf(svc: TestServer, projectId: string, id: string) {
  const response = await svc.request('GET', `/v1/projects/${projectId}/sessions/${id}`);
  expect(response.status).toBe(200);
  return response.body.session;
}

/** Polls `read` every 50 ms until `done`; fails at once when the value is a failed session. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if ((value as { status?: string })?.status === 'failed') throw new Error(`${what}: the session failed: ${JSON.stringify(value)}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The last part of a sandbox's log, for failure messages. */
export function sandboxLog(svc: TestServer, sessionId: string): string {
  try {
    return fs.readFileSync(path.join(svc.dataDir, 'sandboxes', sessionId, 'sandbox.log'), 'utf8').slice(-4000);
  } catch {
    return '(no sandbox log)';
  }
}
