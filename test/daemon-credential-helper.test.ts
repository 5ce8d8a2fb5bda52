/**
 * `svc-agent git-credential get`, the helper git calls for the session's repository, against a real svc:
 * it fetches a fresh clone credential from the API with the sandbox token (one that git can then use on the
 * hosted repository), answers only for the repository's own host, and ignores `store` and `erase` (nothing
 * is ever written down).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readManifestConfigDir } from '../src/daemon/workspace.js';
import { gitAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { sandboxTokenOf } from '../src/sessions/session-tokens.js';
import { repoRoot } from './support/runtime-fixture.js';
import { projectWithCommit } from './support/session-fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let svc: TestServer;
let project: { id: string; clone_url: string };
let sandboxToken: string;

beforeAll(async () => {
  // The session's sandbox runs a runtime that does nothing: only its token matters here.
  const idleRuntime = path.join(tempDir(), 'idle-runtime');
  fs.writeFileSync(idleRuntime, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  svc = await startTestServer({ env: { SVC_RUNTIME_COMMAND: idleRuntime } });
  project = await projectWithCommit(svc, `Credentials ${Date.now()}`);
  const session = (await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).body.session;
  sandboxToken = sandboxTokenOf(svc.server.services.sessions.secretKey, session.id);
  // Its sandbox is stopped (its token stays valid), so only this file's helper asks for credentials.
  await svc.server.services.sessions.supervisor.booting(session.id);
  expect((await svc.request('POST', `/v1/projects/${project.id}/sessions/${session.id}/stop`)).status).toBe(200);
});
afterAll(async () => {
  await svc?.close();
  removeTempDirs();
});

function helper(operation: string, input: string, token = sandboxToken): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [path.join(repoRoot, 'bin', 'svc-agent.js'), 'git-credential', operation], { env: { PATH: process.env.PATH ?? '', SVC_API_URL: `${svc.url}/v1`, SVC_PROJECT_ID: project.id, SVC_SANDBOX_TOKEN: token, SVC_REPO_URL: project.clone_url } }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    child.stdin!.end(input);
  });
}

const issuedCredentials = async () => (await svc.server.services.db.selectFrom('tokens').select('id').where('name', '=', 'git clone credential').execute()).length;

test('get answers with a fresh credential from the API for the repository host only, and git can use it', async () => {
  const repo = new URL(project.clone_url);
  const answer = await helper('get', `protocol=${repo.protocol.slice(0, -1)}\nhost=${repo.host}\npath=${repo.pathname.slice(1)}\n\n`);
  expect(answer.code).toBe(0);
  const fields = Object.fromEntries(answer.stdout.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  expect(fields.password).toMatch(/^svc_p_/);
  const withCredential = new URL(project.clone_url);
  withCredential.username = fields.username ?? '';
  withCredential.password = fields.password ?? '';
  expect(await gitAsync(['ls-remote', withCredential.toString(), 'refs/heads/main'])).toMatch(/^[0-9a-f]{40}\trefs\/heads\/main$/);

  const issued = await issuedCredentials();
  const elsewhere = await helper('get', 'protocol=https\nhost=github.com\n\n');
  expect(elsewhere).toMatchObject({ code: 0, stdout: '' });
  for (const operation of ['store', 'erase']) expect(await helper(operation, `protocol=http\nhost=${repo.host}\nusername=u\npassword=p\n\n`)).toMatchObject({ code: 0, stdout: '' });
  expect(await issuedCredentials()).toBe(issued);
});

test('a refused credential makes the helper fail with the API answer, so git reports it', async () => {
  const answer = await helper('get', `protocol=http\nhost=${new URL(project.clone_url).host}\n\n`, 'svc_s_wrong');
  expect(answer.code).toBe(1);
  expect(answer.stdout).toBe('');
  expect(answer.stderr).toMatch(/answered 401/);
});

test('the runtime config directory comes from runtime.config_dir in svc.yaml or svc.toml', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-manifest-'));
  try {
    expect(readManifestConfigDir(dir)).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'svc.yaml'), 'name: x\nruntime:\n  # where opencode.json lives\n  config_dir: "agents/runtime" # comment\ntriggers: []\n');
    expect(readManifestConfigDir(dir)).toBe('agents/runtime');
    fs.writeFileSync(path.join(dir, 'svc.yaml'), 'runtime: {}\nconfig_dir: nope\n');
    expect(readManifestConfigDir(dir)).toBeUndefined();
    fs.rmSync(path.join(dir, 'svc.yaml'));
    fs.writeFileSync(path.join(dir, 'svc.toml'), "[project]\nconfig_dir = 'no'\n[runtime]\nconfig_dir = 'tools/oc'\n");
    expect(readManifestConfigDir(dir)).toBe('tools/oc');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
