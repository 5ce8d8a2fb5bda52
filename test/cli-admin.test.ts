/**
 * The CLI covers what a person does through the API: users, projects, secrets and tokens, people shown by
 * name. The real `svc` binary against a running server.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecretValue } from '../src/accounts/secrets.js';
import { adminCliEnv, cliBinary, runCli } from './support/cli-harness.js';
import { Clone, removeTempDirs, withToken } from './support/change-request-fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let svc: TestServer;
let env: NodeJS.ProcessEnv;
/** Outside any repository, so no linked project is picked up. */
let elsewhere: string;

beforeAll(async () => {
  svc = await startTestServer();
  env = adminCliEnv(svc);
  elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-admin-'));
});
afterAll(async () => {
  await svc.close();
  fs.rmSync(elsewhere, { recursive: true, force: true });
  removeTempDirs();
});

const svcCli = (args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) => runCli(args, { env: options.env ?? env, cwd: elsewhere, ...(options.input !== undefined ? { input: options.input } : {}) });

async function projectIdOf(slug: string): Promise<string> {
  const shown = await svcCli(['project', 'show', slug, '--json']);
  return (JSON.parse(shown.stdout) as { id: string }).id;
}

/**
 * Runs the binary on a pseudo-terminal (util-linux `script`), types `typed` once the prompt is shown, and
 * returns everything the terminal displayed.
 */
function typeAtPrompt(args: string[], typed: string): Promise<{ code: number; screen: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, cliBinary, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, cwd: elsewhere });
    let screen = '';
    let answered = false;
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      if (!answered && screen.includes('(not shown): ')) {
        answered = true;
        child.stdin.write(`${typed}\r`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, screen }));
  });
}

describe('svc user, project, secret and token commands', () => {
  it('adds and lists users as an administrator; their first token works', async () => {
    const created = await svcCli(['user', 'create', 'alice']);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^svc_u_/);
    expect(created.stderr).toBe(`Created user alice; the token above is shown only this once. They log in with: svc login --url ${svc.url} --token <token>.\n`);
    const listed = await svcCli(['user', 'ls']);
    expect(listed.stdout).toMatch(/^alice\tuser\tactive\t/m);
    expect(listed.stdout).toMatch(/^admin\tadministrator\tactive\t/m);

    const asAlice = await svcCli(['user', 'ls'], { env: { SVC_API_URL: env.SVC_API_URL, SVC_CLI_TOKEN: token } });
    expect(asAlice.code).toBe(1);
    expect(asAlice.stderr).toBe('svc: Only an administrator can list users. (FORBIDDEN)\n');
  });

  it('shows, renames and deletes a project, asking for --yes first', async () => {
    expect((await svcCli(['project', 'create', 'Settings Demo'])).code).toBe(0);
    const shown = await svcCli(['project', 'show', 'settings-demo']);
    expect(shown.stdout).toMatch(/^slug {8}settings-demo$/m);
    expect(shown.stdout).toMatch(/^repository {2}hosted by svc$/m);
    expect(shown.stdout).toMatch(/^created {5}\S+ by admin$/m);

    const renamed = await svcCli(['project', 'update', 'settings-demo', '--name', 'Settings']);
    expect(renamed).toMatchObject({ code: 0, stderr: 'Updated project settings-demo: name "Settings", default branch main.\n' });
    expect(JSON.parse((await svcCli(['project', 'show', 'settings-demo', '--json'])).stdout)).toMatchObject({ name: 'Settings' });
    expect((await svcCli(['project', 'update', 'settings-demo'])).code).toBe(2);

    const unconfirmed = await svcCli(['project', 'rm', 'settings-demo']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('run svc project rm settings-demo --yes to go ahead');
    const removed = await svcCli(['project', 'rm', 'settings-demo', '--yes']);
    expect(removed).toMatchObject({ code: 0, stderr: 'Deleted project settings-demo with its repository, change requests, sessions, secrets and tokens.\n' });
    expect((await svcCli(['project', 'show', 'settings-demo'])).stderr).toContain('No project with slug "settings-demo"');
  });

  it('sets a secret from standard input (never the command line), lists names only and removes it', async () => {
    await svcCli(['project', 'create', 'Secrets Demo']);
    const projectId = await projectIdOf('secrets-demo');
    const set = await svcCli(['secret', 'set', 'API_KEY', '--project', 'secrets-demo'], { input: 'sk-live-123\n' });
    expect(set).toMatchObject({ code: 0, stdout: '' });
    expect(set.stderr).toBe('Created secret API_KEY; sessions started from now on get it as an environment variable.\n');
    expect(await readSecretValue(svc.server.services, projectId, 'API_KEY')).toBe('sk-live-123');
    const replaced = await svcCli(['secret', 'set', 'API_KEY', '--project', 'secrets-demo'], { input: 'sk-live-456' });
    expect(replaced.stderr).toMatch(/^Replaced secret API_KEY/);

    const listed = await svcCli(['secret', 'ls', '--project', 'secrets-demo']);
    expect(listed.stdout).toMatch(/^API_KEY\t\d{4}-/);
    expect(listed.stdout).not.toContain('sk-live');

    const empty = await svcCli(['secret', 'set', 'OTHER', '--project', 'secrets-demo'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('The value is empty');
    // A name the API would refuse is refused before the value is read, so nobody types a secret for nothing.
    const reserved = await svcCli(['secret', 'set', 'SVC_X', '--project', 'secrets-demo'], { input: 'v' });
    expect(reserved).toMatchObject({ code: 2, stdout: '' });
    expect(reserved.stderr).toBe('svc: The prefix SVC_ is reserved for variables svc injects; rename SVC_X (for example to X).\n');
    const lowercase = await svcCli(['secret', 'set', 'api_key', '--project', 'secrets-demo'], { input: '' });
    expect(lowercase.code).toBe(2);
    expect(lowercase.stderr).toBe(
      'svc: The secret name "api_key" is invalid: use 1-128 upper-case letters, digits and underscores, not starting with a digit (for example GIT_TOKEN).\n',
    );

    // Typed at a terminal, the value is asked for with a prompt that does not show it.
    const typed = await typeAtPrompt(['secret', 'set', 'TYPED_KEY', '--project', 'secrets-demo'], 'sk-typed-789');
    expect(typed.code).toBe(0);
    expect(typed.screen).toContain('Value of TYPED_KEY (not shown): ');
    expect(typed.screen).not.toContain('sk-typed-789');
    expect(await readSecretValue(svc.server.services, projectId, 'TYPED_KEY')).toBe('sk-typed-789');
    await svcCli(['secret', 'rm', 'TYPED_KEY', '--project', 'secrets-demo']);

    expect((await svcCli(['secret', 'rm', 'API_KEY', '--project', 'secrets-demo'])).stderr).toBe('Deleted secret API_KEY.\n');
    expect((await svcCli(['secret', 'ls', '--project', 'secrets-demo'])).stdout).toBe('');
  });

  it('lists project tokens with who made them, by name, and revokes one', async () => {
    await svcCli(['project', 'create', 'Tokens Demo']);
    const minted = await svcCli(['token', 'create', '--project', 'tokens-demo', '--name', 'reader', '--capability', 'project.read']);
    const token = minted.stdout.trim();
    const listed = await svcCli(['token', 'ls', '--project', 'tokens-demo']);
    const row = listed.stdout.split('\n').find((line) => line.includes('\treader\t'))?.split('\t') ?? [];
    expect(row.slice(1, 4)).toEqual(['reader', 'project.read', 'admin']);
    const tokenId = row[0] ?? '';

    const asToken = { SVC_API_URL: env.SVC_API_URL, SVC_CLI_TOKEN: token };
    expect((await svcCli(['project', 'show', 'tokens-demo'], { env: asToken })).code).toBe(0);
    expect(await svcCli(['token', 'rm', tokenId, '--project', 'tokens-demo'])).toMatchObject({ code: 0, stderr: `Revoked token ${tokenId}; it stops working at once.\n` });
    const revoked = await svcCli(['project', 'show', 'tokens-demo'], { env: asToken });
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain('UNAUTHENTICATED');

    const mine = await svcCli(['token', 'ls', '--user', 'me', '--json']);
    expect(JSON.parse(mine.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'user' })]));
  });

  it('shows who opened and closed a change request by name, and says a closed one already was', async () => {
    const bob = await svcCli(['user', 'create', 'bob']);
    const bobToken = bob.stdout.trim();
    await svcCli(['project', 'create', 'People Demo']);
    const projectId = await projectIdOf('people-demo');
    await svc.request('PUT', `/v1/projects/${projectId}/members/bob`, { body: { role: 'member' } });
    const clone = await Clone.of(withToken(`${svc.url}/git/${projectId}.git`, svc.adminToken));
    clone.commit({ 'README.md': 'hello\n' }, 'initial');
    await clone.push('main');
    clone.checkout('topic');
    clone.commit({ 'topic.txt': 'x\n' }, 'topic');
    await clone.push('topic');
    const asBob = { SVC_API_URL: env.SVC_API_URL, SVC_CLI_TOKEN: bobToken };
    expect((await svcCli(['cr', 'open', '--project', 'people-demo', '--title', 'Topic', '--head', 'topic'], { env: asBob })).code).toBe(0);

    expect((await svcCli(['cr', 'close', '1', '--project', 'people-demo'])).stderr).toBe('Closed change request #1; svc cr reopen 1 brings it back.\n');
    const again = await svcCli(['cr', 'close', '1', '--project', 'people-demo']);
    expect(again).toMatchObject({ code: 0, stderr: 'Change request #1 was already closed (just now by admin); nothing changed.\n' });

    const shown = await svcCli(['cr', 'show', '1', '--project', 'people-demo'], { env: asBob });
    expect(shown.stdout).toContain('created_by_name\tbob\n');
    expect(shown.stdout).toContain('closed_by_name\tadmin\n');
  });

  it('refuses at create a --repo-url that is not a repository, and reads a private one with the token from standard input', async () => {
    const notARepository = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-not-a-repo-'));
    const refused = await svcCli(['project', 'create', 'Nowhere', '--repo-url', notARepository]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `svc: What you gave has 1 problem; fix it and run the command again (VALIDATION_FAILED)\n--repo-url: cannot be read: git said "'${notARepository}' does not appear to be a git repository". Give the path of an existing git repository (a bare repository, or a working copy with a .git directory) on the svc server.\n`,
    );

    await svcCli(['project', 'create', 'Private Upstream']);
    const upstreamId = await projectIdOf('private-upstream');
    const readToken = (await svcCli(['token', 'create', '--project', 'private-upstream', '--capability', 'project.read'])).stdout.trim();
    const upstreamUrl = `${svc.url}/git/${upstreamId}.git`;
    const withoutToken = await svcCli(['project', 'create', 'Mirror', '--repo-url', upstreamUrl]);
    expect(withoutToken.stderr).toContain('svc project create --git-token-stdin');
    const mirrored = await svcCli(['project', 'create', 'Mirror', '--repo-url', upstreamUrl, '--git-token-stdin'], { input: `${readToken}\n` });
    expect(mirrored.code).toBe(0);
    expect((await svcCli(['secret', 'ls', '--project', 'mirror'])).stdout).toMatch(/^GIT_TOKEN\t/);
  });
});
