/**
 * `svc-agent git-credential get`, the helper git calls for the session's repository: it fetches a fresh
 * clone credential from the API with the sandbox token, answers only for the repository's own host, and
 * ignores `store` and `erase` (nothing is ever written down).
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readManifestConfigDir } from '../src/daemon/workspace.js';
import { repoRoot } from './support/runtime-fixture.js';
import { startSandboxApiStub, type SandboxApiStub } from './support/sandbox-api-stub.js';

let api: SandboxApiStub;
const projectId = randomUUID();
const sandboxToken = `svc_s_${randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  api = await startSandboxApiStub({ projectId, sandboxToken, gitRoot: os.tmpdir() });
});
afterAll(async () => {
  await api?.close();
});

function helper(operation: string, input: string, token = sandboxToken): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [path.join(repoRoot, 'bin', 'svc-agent.js'), 'git-credential', operation], { env: { PATH: process.env.PATH ?? '', SVC_API_URL: api.apiUrl, SVC_PROJECT_ID: projectId, SVC_SANDBOX_TOKEN: token, SVC_REPO_URL: api.repoUrl('repo.git') } }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    child.stdin!.end(input);
  });
}

test('get answers with a fresh credential from the API for the repository host only', async () => {
  const host = new URL(api.url).host;
  const answer = await helper('get', `protocol=http\nhost=${host}\npath=git/repo.git\n\n`);
  expect(answer.code).toBe(0);
  expect(answer.stdout).toBe(`username=x-svc-sandbox\npassword=${api.issued.at(-1)}\n`);
  expect(api.calls.at(-1)).toMatchObject({ method: 'GET', path: `/v1/projects/${projectId}/git/clone-credential`, authorized: true });

  const calls = api.calls.length;
  const elsewhere = await helper('get', 'protocol=https\nhost=github.com\n\n');
  expect(elsewhere).toMatchObject({ code: 0, stdout: '' });
  expect(api.calls.length).toBe(calls);
  for (const operation of ['store', 'erase']) expect(await helper(operation, `protocol=http\nhost=${host}\nusername=u\npassword=p\n\n`)).toMatchObject({ code: 0, stdout: '' });
  expect(api.calls.length).toBe(calls);
});

test('a refused credential makes the helper fail with the API answer, so git reports it', async () => {
  const answer = await helper('get', `protocol=http\nhost=${new URL(api.url).host}\n\n`, 'svc_s_wrong');
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
