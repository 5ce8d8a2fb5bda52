/**
 * What the disk suites of the sandbox providers share (test/sandbox-disk-*.test.ts): one svc for the file
 * with a 64 MiB disk per sandbox, a project of each test's own with the starter repository, and the paths
 * and routes of its sessions.
 */
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { removeTempDirs } from '../../src/git/testing/fixtures.js';
import { pushStarterRepository } from './sandbox-conformance.js';
import { sandboxDriver, type DrivenSession, type SandboxDriver } from './sandbox-driver.js';
import { startTestServer, type TestServer } from './test-server.js';

export const MIB = 1024 * 1024;
export const LIMIT_MB = 64;

export interface DiskSuite {
  svc: TestServer;
  project: { id: string; clone_url: string };
  driver: SandboxDriver;
  running(session: DrivenSession): Promise<DrivenSession>;
  sandboxDir(sessionId: string): string;
  sessionRoute(sessionId: string): string;
}

/** Registers the file's hooks; the returned object's fields are set once they ran. */
export function diskSuite(provider: 'bubblewrap' | 'docker', setup?: () => Promise<void>): DiskSuite {
  const suite: DiskSuite = {
    svc: undefined as unknown as TestServer,
    project: { id: '', clone_url: '' },
    driver: undefined as unknown as SandboxDriver,
    running: (session) => suite.driver.until('it runs', session.id, (s) => s.status === 'running' && s.runtime_session_id !== null),
    sandboxDir: (sessionId) => path.join(suite.svc.dataDir, 'sandboxes', sessionId),
    sessionRoute: (sessionId) => `/v1/projects/${suite.project.id}/sessions/${sessionId}`,
  };
  beforeAll(async () => {
    await setup?.();
    suite.svc = await startTestServer({ env: { SVC_SANDBOX_PROVIDER: provider, SVC_MAX_SESSIONS: '4', SVC_SANDBOX_DISK_MB: String(LIMIT_MB), SVC_SANDBOX_MAX_DISK_MB: '256' } });
  }, 900_000);
  // Each test has a project of its own (one grows its disk through the manifest), and deletes its sessions.
  beforeEach(async () => {
    const created = await suite.svc.request('POST', '/v1/projects', { body: { name: `Disk ${provider} ${Date.now()}` } });
    suite.project = created.body.project;
    suite.driver = sandboxDriver(suite.svc, suite.project.id, provider);
    await pushStarterRepository(suite.project.clone_url, suite.svc.adminToken);
  }, 120_000);
  afterAll(async () => {
    await suite.svc?.close();
    removeTempDirs();
  });
  return suite;
}
