/**
 * Drives a project's sessions through svc's API as a user would: creates them, waits for a status, and
 * runs shell commands inside their sandboxes through svc's runtime proxy and the runtime's shell endpoint.
 * Shared by the conformance suite and the fault suites.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestServer } from './test-server.js';

export interface DrivenSession {
  id: string;
  status: string;
  runtime_session_id: string | null;
  sandbox: { provider: string; state: string };
  error: string | null;
  updated_at: string;
}

export interface SandboxDriver {
  sessionOf(id: string): Promise<DrivenSession>;
  /** Polls the session until `done`; a `failed` session ends the wait (unless `done` accepts it) with its log. */
  until(what: string, id: string, done: (session: DrivenSession) => boolean, timeoutMs?: number): Promise<DrivenSession>;
  run(session: DrivenSession, command: string): Promise<string>;
  create(): Promise<DrivenSession>;
}

export function sandboxDriver(svc: TestServer, projectId: string, provider: string): SandboxDriver {
  const base = `/v1/projects/${projectId}/sessions`;
  async function sessionOf(id: string): Promise<DrivenSession> {
    const response = await svc.request('GET', `${base}/${id}`);
    expect(response.status).toBe(200);
    return response.body.session as DrivenSession;
  }
  return {
    sessionOf,
    async until(what, id, done, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const session = await sessionOf(id);
        if (done(session)) return session;
        if (session.status === 'failed' || Date.now() > deadline) {
          const log = path.join(svc.dataDir, 'sandboxes', id, 'sandbox.log');
          throw new Error(`waiting until ${what}: ${JSON.stringify(session)}\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-3000) : ''}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async run(session, command) {
      const response = await svc.request('POST', `${base}/${session.id}/runtime/session/${session.runtime_session_id}/shell`, { body: { agent: 'build', command } });
      // A refused command says what became of the session (its status and error), which the refusal alone does not.
      if (response.status !== 200) expect(response.status, `${response.text}\nthe session now: ${JSON.stringify(await sessionOf(session.id))}`).toBe(200);
      const parts = response.body.parts as Array<{ type: string; state?: { output?: string; metadata?: { output?: string } } }>;
      const tool = parts.find((part) => part.type === 'tool');
      return (tool?.state?.output ?? tool?.state?.metadata?.output ?? '').trim();
    },
    async create() {
      const created = await svc.request('POST', base, { body: {} });
      expect(created.status).toBe(201);
      expect(created.body.session.sandbox).toEqual({ provider, state: 'provisioning' });
      return created.body.session as DrivenSession;
    },
  };
}
