/**
 * A runtime that cannot start: the daemon stays up, says why on /svc/health, keeps retrying, and the
 * runtime paths answer 503 while the workspace (the clone on the session branch) stays in place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from './support/daemon-harness.js';

let daemon: DaemonFixture | undefined;
afterAll(async () => {
  await daemon?.close();
});

test('a missing runtime command is reported on health and retried, and the daemon keeps serving', async () => {
  daemon = await createDaemonFixture({ env: { SVC_RUNTIME_COMMAND: '/nonexistent/opencode' } });
  await daemon.start();
  const health = await daemon.waitHealth((h) => h.runtime.state === 'crashed' || h.runtime.restarts >= 2);
  const later = await daemon.waitHealth((h) => h.runtime.restarts >= 2 && h.runtime.error);
  expect(later.runtime.error).toMatch(/The runtime command "\/nonexistent\/opencode" could not start: .*ENOENT/);
  expect(later.daemon.state).toBe('ready');
  expect(later.status).toBe('starting');
  expect(later.branch).toBe(daemon.sessionId);
  expect(fs.existsSync(path.join(daemon.workspace, 'README.md'))).toBe(true);
  expect(health.runtime.root_session_id).toBeNull();
  const refused = await daemon.request('GET', '/session');
  expect(refused.status).toBe(503);
  expect(refused.body.code).toBe('RUNTIME_STARTING');
});
