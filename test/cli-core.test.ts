import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDashboardLs, runDashboardPublish, runDashboardRm, runDashboardShow, runDashboardVersions } from '../src/cli/dashboard.js';
import { CliError } from '../src/cli/deps.js';
import { runLogin } from '../src/cli/login.js';
import { runProjectCreate, runProjectLs } from '../src/cli/project.js';
import { runTokenCreate } from '../src/cli/token.js';
import { adminCliEnv, captureDeps, runCli } from './support/cli-harness.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let svc: TestServer;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  svc = await startTestServer();
  env = adminCliEnv(svc);
});
afterAll(async () => {
  await svc.close();
});

describe('svc CLI against a running server', () => {
  it('logs in, checking the token, and stores the credentials with mode 0600', async () => {
    const deps = captureDeps();
    await runLogin({ url: svc.url, token: svc.adminToken }, deps);
    const file = path.join(deps.env.SVC_CONFIG_DIR ?? '', 'config.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ url: `${svc.url}/v1`, token: svc.adminToken });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(deps.err()).toContain(`Logged in to ${svc.url}`);

    const later = captureDeps({ env: { SVC_CONFIG_DIR: deps.env.SVC_CONFIG_DIR } });
    await runProjectLs({}, later);

    const bad = captureDeps();
    await expect(runLogin({ url: svc.url, token: 'svc_u_wrong' }, bad)).rejects.toThrow(/not recognised.*UNAUTHENTICATED/);
    expect(fs.existsSync(path.join(bad.env.SVC_CONFIG_DIR ?? '', 'config.json'))).toBe(false);
  });

  it('tells the user to log in when there are no credentials', async () => {
    const deps = captureDeps();
    await expect(runProjectLs({}, deps)).rejects.toThrow('Not logged in: run svc login');
  });

  it('creates and lists projects as a table on a terminal and as TSV in a pipe', async () => {
    const created = captureDeps({ env });
    await runProjectCreate({ name: 'CLI Demo' }, created);
    const id = created.out().trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.err()).toBe(`Created project cli-demo; clone it with: git clone ${svc.url}/git/${id}.git (any user name; a token with project.read is the password)\n`);

    const piped = captureDeps({ env });
    await runProjectLs({}, piped);
    const row = piped.out().split('\n').find((line) => line.startsWith(id));
    expect(row?.split('\t').slice(0, 5)).toEqual([id, 'cli-demo', 'CLI Demo', 'main', 'hosted']);

    const tty = captureDeps({ env, isTTY: true });
    await runProjectLs({}, tty);
    expect(tty.out()).toMatch(/ID\s+SLUG\s+NAME\s+BRANCH\s+REPOSITORY\s+CREATED/);
    expect(tty.out()).toContain('just now');

    const json = captureDeps({ env });
    await runProjectLs({ json: true }, json);
    expect(JSON.parse(json.out())).toEqual(expect.arrayContaining([expect.objectContaining({ id, slug: 'cli-demo' })]));
  });

  it('mints a project token by slug and the token works for what it was given', async () => {
    await runProjectCreate({ name: 'Token Target' }, captureDeps({ env }));
    const deps = captureDeps({ env });
    await runTokenCreate({ project: 'token-target', name: 'agent', capability: ['dashboards.publish'] }, deps);
    const token = deps.out().trim();
    expect(token).toMatch(/^svc_p_/);
    const publish = captureDeps({ env: { SVC_API_URL: env.SVC_API_URL, SVC_EXECUTOR_TOKEN: token }, stdin: '{"slug":"from-token","title":"T"}' });
    await runDashboardPublish('-', {}, publish);
    expect(publish.out().trim()).toBe(`${svc.url}/d/from-token`);

    await expect(runTokenCreate({ project: 'token-target', name: 'x', capability: ['superuser'] }, captureDeps({ env }))).rejects.toMatchObject({ exitCode: 2 });
    await expect(runTokenCreate({ project: 'no-such-project', name: 'x', capability: ['project.read'] }, captureDeps({ env }))).rejects.toThrow('No project with slug');
  });

  it('publishes, lists, shows and removes dashboards', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dash-'));
    const file = path.join(dir, 'ops.json');
    fs.writeFileSync(file, JSON.stringify({ slug: 'ops', title: 'Operations', group: 'Eng', sections: [{ blocks: [{ type: 'stat', label: 'Uptime', value: '99.9%' }] }] }));
    const first = captureDeps({ env });
    await runDashboardPublish(file, {}, first);
    expect(first.out()).toBe(`${svc.url}/d/ops\n`);
    expect(first.err()).toBe('Created dashboard ops (version 1)\n');
    const second = captureDeps({ env });
    await runDashboardPublish(file, { json: true }, second);
    expect(JSON.parse(second.out())).toMatchObject({ slug: 'ops', version: 2, created: false });

    const ls = captureDeps({ env });
    await runDashboardLs({}, ls);
    expect(ls.out()).toContain(`ops\tOperations\tEng\t2\t`);

    const show = captureDeps({ env, isTTY: true });
    await runDashboardShow('ops', {}, show);
    expect(show.out()).toContain('title    Operations');
    expect(show.out()).toContain('content  1 section, 1 block');
    const showJson = captureDeps({ env });
    await runDashboardShow('ops', { json: true, version: 1 }, showJson);
    expect(JSON.parse(showJson.out())).toMatchObject({ version: 1, spec: { title: 'Operations' }, url: `${svc.url}/d/ops/versions/1` });

    const versions = captureDeps({ env });
    await runDashboardVersions('ops', {}, versions);
    expect(versions.out()).toMatch(new RegExp(`^2\t\\d{4}-\\d\\d-\\d\\dT[^\t]+\t${svc.url}/d/ops\n1\t[^\t]+\t${svc.url}/d/ops/versions/1\n$`));
    const versionsJson = captureDeps({ env });
    await runDashboardVersions('ops', { json: true }, versionsJson);
    expect(JSON.parse(versionsJson.out())).toEqual([
      { version: 2, created_at: expect.any(String), url: `${svc.url}/d/ops` },
      { version: 1, created_at: expect.any(String), url: `${svc.url}/d/ops/versions/1` },
    ]);
    const page = await fetch(`${svc.url}/d/ops/versions/1`, { headers: { authorization: `Bearer ${svc.adminToken}` } });
    expect(page.status).toBe(200);

    await runDashboardRm('ops', captureDeps({ env }));
    await expect(runDashboardShow('ops', {}, captureDeps({ env }))).rejects.toThrow('NOT_FOUND');
  });

  it('prints every validation issue as path: message', async () => {
    const deps = captureDeps({ env, stdin: JSON.stringify({ slug: 'Bad Slug', title: '', sections: [{ blocks: [{ type: 'gauge' }] }] }) });
    const error = await runDashboardPublish('-', {}, deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    const details = (error as CliError).details;
    expect(details).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\/slug: /), expect.stringMatching(/^\/title: /), expect.stringMatching(/^\/sections\/0\/blocks\/0\/value: required property "value"/)]),
    );
  });
});

describe('svc dashboard publish reading files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-publish-bytes-'));

  it('refuses a file that is not UTF-8, naming it and the byte offset, and sends nothing', async () => {
    const file = path.join(dir, 'latin1.json');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{"slug":"latin","title":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]));
    const result = await runCli(['dashboard', 'publish', file], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`svc: ${file} is not valid UTF-8 at byte offset 28 (0xe9); save it as UTF-8 and publish again.\n`);
    expect((await svc.request('GET', '/api/dashboards/latin')).status).toBe(404);

    const truncated = path.join(dir, 'truncated.json');
    fs.writeFileSync(truncated, Buffer.concat([Buffer.from('{"slug":"cut","title":"\u20ac'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]));
    const cut = await runCli(['dashboard', 'publish', truncated], { env });
    expect(cut.code).toBe(1);
    expect(cut.stderr).toBe(`svc: ${truncated} is not valid UTF-8 at byte offset 26 (0xe2); save it as UTF-8 and publish again.\n`);
  });

  it('ignores a leading UTF-8 byte order mark', async () => {
    const file = path.join(dir, 'bom.json');
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"slug":"with-bom","title":"Café"}')]));
    const result = await runCli(['dashboard', 'publish', file], { env });
    expect(result.stderr).toBe('Created dashboard with-bom (version 1)\n');
    expect(result.code).toBe(0);
    const stored = await svc.request('GET', '/api/dashboards/with-bom');
    expect(stored.body.spec).toEqual({ slug: 'with-bom', title: 'Café' });
  });
});

describe('the svc binary', () => {
  it('exits 0 with a listing, 1 with the API error on stderr, 2 on a usage error', async () => {
    const ok = await runCli(['dashboard', 'ls', '--json'], { env });
    expect(ok.code).toBe(0);
    expect(Array.isArray(JSON.parse(ok.stdout))).toBe(true);
    // `svc dashboard ls | head -1`: the reader leaves before the listing is written.
    expect((await svc.request('POST', '/api/dashboards', { body: { slug: 'read-by-head', title: 'Read by head' } })).status).toBeLessThan(300);
    const readerGone = await runCli(['dashboard', 'ls'], { env, closeStdout: true });
    expect(readerGone).toEqual({ code: 0, stdout: '', stderr: '' });

    const invalid = await runCli(['dashboard', 'publish', '-'], { env, input: '{"slug":"x","title":"X","tone":"green"}' });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('(DASHBOARD_INVALID)');
    expect(invalid.stderr).toContain('/tone: must be one of: neutral, positive, warning, danger, info, accent (got "green").');

    const noSlug = await runCli(['dashboard', 'publish', '-'], { env, input: '{"title":"X"}' });
    expect(noSlug.code).toBe(1);
    expect(noSlug.stderr.split('\n')).toContain('/slug: required property "slug" is missing.');

    const missingFile = await runCli(['dashboard', 'publish', '/nonexistent.json'], { env });
    expect(missingFile.code).toBe(1);
    expect(missingFile.stderr).toBe('svc: No such file: /nonexistent.json\n');

    const usage = await runCli(['dashboard', 'frobnicate'], { env });
    expect(usage.code).toBe(2);
    const noArgs = await runCli(['dashboard', 'show'], { env });
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toContain("missing required argument 'slug'");

    const noCapability = ['token', 'create', '--project', 'p', '--capability', 'project.read'];
    for (const days of ['abc', '0', '2.5', '4000']) {
      const badDays = await runCli([...noCapability, '--expires-in-days', days], { env });
      expect(badDays.code, days).toBe(2);
      expect(badDays.stderr, days).toContain('--expires-in-days must be an integer from 1 to 3650.');
    }
    const badVersion = await runCli(['dashboard', 'show', 'ops', '--version', 'latest'], { env });
    expect(badVersion.code).toBe(2);
    expect(badVersion.stderr).toContain('--version must be an integer from 1 to 999999999.');
    const badIfMatch = await runCli(['dashboard', 'publish', '-', '--if-match', 'v2'], { env, input: '{"slug":"x","title":"X"}' });
    expect(badIfMatch.code).toBe(2);
    expect(badIfMatch.stderr).toContain('--if-match must be an integer from 1 to 999999999.');

    const down = await runCli(['project', 'ls'], { env: { SVC_API_URL: 'http://127.0.0.1:9/v1', SVC_CLI_TOKEN: 'x' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('Cannot reach svc at http://127.0.0.1:9');
  });
});
