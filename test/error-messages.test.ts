import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCliEnv, runCli } from './support/cli-harness.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let svc: TestServer;
let env: NodeJS.ProcessEnv;
let projectId: string;

beforeAll(async () => {
  svc = await startTestServer();
  env = adminCliEnv(svc);
  projectId = (await svc.request('POST', '/v1/projects', { body: { name: 'Messages' } })).body.project.id;
});
afterAll(async () => {
  await svc.close();
});

function fileWith(name: string, text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-messages-')), name);
  fs.writeFileSync(file, text);
  return file;
}

describe('errors name everything that is wrong, once', () => {
  it('names both capabilities a token lacks for opening a change request', async () => {
    const minted = await svc.request('POST', `/v1/projects/${projectId}/tokens`, { body: { name: 'reader', capabilities: ['project.read'] } });
    const refused = await svc.request('POST', `/v1/projects/${projectId}/change-requests`, { token: minted.body.token, body: { title: 'x', head_ref: 'topic' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: 'FORBIDDEN',
      error: 'This token lacks the capabilities project.write and project.gitops.push, which are needed to open change requests.',
    });
  });

  it('says where a malformed JSON body breaks, by line and column', async () => {
    const response = await svc.request('POST', '/v1/projects', { rawBody: '{"name": "x",\n  "slug": }', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('The request body is not valid JSON: line 2, column 11: expected a value (a string, number, object, array, true, false or null), found "}".');
  });

  it('says what a repository address looks like instead of showing a regular expression', async () => {
    const response = await svc.request('POST', '/v1/projects', { body: { name: 'Bad address', repo_url: 'ftp://example.com/x.git' } });
    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      {
        path: '/repo_url',
        message:
          'must be the address of a git repository without spaces: https://host/path, ssh://host/path, git://host/path, user@host:path, file:///path or an absolute local path (got "ftp://example.com/x.git").',
      },
    ]);
  });

  it('suggests the nearest block kind once when the CLI publishes an unknown one', async () => {
    const file = fileWith('notes.json', JSON.stringify({ slug: 'notes', title: 'Notes', sections: [{ blocks: [{ type: 'markdown', text: '# Hi' }] }] }));
    const result = await runCli(['dashboard', 'publish', file], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'svc: The dashboard spec has 1 problem; fix it and run the command again (DASHBOARD_INVALID)\n/sections/0/blocks/0/type: "markdown" is not a block kind; did you mean "prose"?\n',
    );
  });

  it('gives the line and column of a malformed JSON file', async () => {
    const file = fileWith('broken.json', '{\n  "slug": "broken",\n  "title": "Broken",\n}\n');
    const result = await runCli(['dashboard', 'publish', file], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`svc: ${file} is not valid JSON: line 4, column 1: expected a property name in double quotes, found "}". Fix it and run the command again.\n`);
  });

  it('names the option the CLI user typed, not the API field', async () => {
    const result = await runCli(['project', 'create', 'Mirror', '--repo-url', 'ftp://example.com/x.git'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc: What you gave has 1 problem; fix it and run the command again \(VALIDATION_FAILED\)\n--repo-url: must be the address of a git repository/);
    expect(result.stderr).not.toContain('repo_url');
    expect(result.stderr).not.toContain('issues');
  });

  it('says an empty token is empty', async () => {
    const result = await runCli(['login', '--url', svc.url, '--token', ''], { env: { SVC_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cfg-')) } });
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'svc: The token is empty: pass --token <token> (is the variable holding it set?).\n' });
    const emptyVariable = await runCli(['project', 'ls'], { env: { SVC_API_URL: env.SVC_API_URL, SVC_CLI_TOKEN: '', SVC_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cfg-')) } });
    expect(emptyVariable).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: SVC_CLI_TOKEN is set but empty: set it to a token (is the variable it was copied from set?), or unset it and run svc login.\n',
    });
  });
});
