/**
 * `svc cr` and `svc link` end to end against a running server and real pushes: in-process as a terminal
 * and as a pipe (commands take their dependencies), and the real binary for exit codes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/cli/api-client.js';
import { runCrClose } from '../src/cli/cr/close.js';
import { runCrDiff } from '../src/cli/cr/diff.js';
import { runCrLs } from '../src/cli/cr/ls.js';
import { runCrMerge } from '../src/cli/cr/merge.js';
import { runCrOpen } from '../src/cli/cr/open.js';
import { runCrReopen } from '../src/cli/cr/reopen.js';
import { runCrShow } from '../src/cli/cr/show.js';
import { CliError } from '../src/cli/deps.js';
import { runLink } from '../src/cli/link.js';
import { nowIso } from '../src/db/values.js';
import { adminCliEnv, captureDeps, runCli } from './support/cli-harness.js';
import { Clone, moveHostedBranch, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let svc: TestServer;
/** A directory outside any repository, so nothing is picked up from the checkout the tests run in. */
let elsewhere: string;

beforeAll(async () => {
  svc = await startTestServer();
  elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-cr-'));
});
afterAll(async () => {
  await svc.close();
  fs.rmSync(elsewhere, { recursive: true, force: true });
  removeTempDirs();
});

const ESC = '\u001b[';

async function projectToken(project: TestProject, capabilities: string[]): Promise<string> {
  const response = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'sandbox', capabilities } });
  return response.body.token as string;
}

/** The environment a session sandbox gives the agent (spec 2 "Command-line surface", contract §8). */
async function sandboxEnv(project: TestProject, branch: string, sessionId: string): Promise<NodeJS.ProcessEnv> {
  return {
    SVC_API_URL: `${svc.url}/v1`,
    SVC_CLI_TOKEN: await projectToken(project, ['project.read', 'project.write', 'project.gitops.push']),
    SVC_PROJECT_ID: project.id,
    SVC_BRANCH_NAME: branch,
    SVC_SESSION_ID: sessionId,
  };
}

async function insertSession(projectId: string): Promise<string> {
  const id = randomUUID();
  const now = nowIso();
  await svc.server.services.db
    .insertInto('sessions')
    .values({ id, project_id: projectId, status: 'running', base_ref: 'main', branch: id, agent: null, model: null, trigger_slug: null, created_by: 'u', created_at: now, updated_at: now })
    .execute();
  return id;
}

/** A user's environment: the admin token, the project given by flag or link. */
const userEnv = () => adminCliEnv(svc);

async function pushBranch(clone: Clone, branch: string, files: Record<string, string>, from = 'main'): Promise<string> {
  clone.checkout(branch, from);
  const sha = clone.commit(files, `work on ${branch}`);
  await clone.push(branch);
  return sha;
}

describe('svc cr inside a session sandbox', () => {
  it('opens a CR from the sandbox defaults, then lists and shows it as the agent would report it', async () => {
    const { project, clone } = await projectWithClone(svc);
    const sessionId = await insertSession(project.id);
    await pushBranch(clone, sessionId, { 'agent.txt': 'from the agent\n' });
    const env = await sandboxEnv(project, sessionId, sessionId);

    const opened = captureDeps({ env, cwd: elsewhere });
    await runCrOpen({ title: 'Agent change', description: 'Why it matters.' }, opened);
    expect(opened.out()).toBe('#1\n');
    expect(opened.err()).toContain(`Opened change request #1 (${sessionId} → main): Agent change`);
    const stored = (await svc.request('GET', `/v1/projects/${project.id}/change-requests/1`)).body.change_request;
    expect(stored).toMatchObject({ head_ref: sessionId, base_ref: 'main', origin_session_id: sessionId, description: 'Why it matters.' });

    const ls = captureDeps({ env, cwd: elsewhere });
    await runCrLs({}, ls);
    expect(ls.out().split('\n')[0]?.split('\t').slice(0, 4)).toEqual(['1', 'Agent change', sessionId, 'main']);
    expect(ls.out()).not.toContain(ESC);

    // The agent has no merge capability: the CLI reports the API's 403 as a failure.
    const merge = await runCrMerge('1', {}, captureDeps({ env, cwd: elsewhere })).catch((error: unknown) => error);
    expect(merge).toBeInstanceOf(ApiError);
    expect((merge as ApiError).exitCode).toBe(1);
    expect((merge as ApiError).message).toContain('project.gitops.merge');
  });

  it('takes the head branch from SVC_HEAD_REF and explains CR_HEAD_NOT_AHEAD with the push to make', async () => {
    const { project } = await projectWithClone(svc);
    const env = { ...(await sandboxEnv(project, '', '')), SVC_BRANCH_NAME: '', SVC_HEAD_REF: 'never-pushed', SVC_SESSION_ID: '' };
    const error = await runCrOpen({ title: 'Too early' }, captureDeps({ env, cwd: elsewhere })).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toContain('push your branch first: git push origin HEAD');
    expect((error as ApiError).message).toContain('(CR_HEAD_NOT_AHEAD)');
  });
});

describe('svc cr for a person, with svc link', () => {
  it('links a checkout, opens from the checked-out branch, and accepts 3, #3 and the cr_id', async () => {
    const { project, clone } = await projectWithClone(svc);
    await pushBranch(clone, 'topic', { 'topic.txt': 'topic\n' });

    const outside = await runCrLs({}, captureDeps({ env: userEnv(), cwd: elsewhere })).catch((error: unknown) => error);
    expect(outside).toBeInstanceOf(CliError);
    expect((outside as CliError).exitCode).toBe(2);
    expect((outside as CliError).message).toContain('svc link <project>');

    const link = captureDeps({ env: userEnv(), cwd: clone.work });
    await runLink(project.slug, link);
    expect(link.out()).toBe(`${project.id}\n`);
    expect(link.err()).toContain(`Linked this repository to project ${project.slug}`);
    const notRepo = await runLink(project.id, captureDeps({ env: userEnv(), cwd: elsewhere })).catch((error: unknown) => error);
    expect((notRepo as CliError).message).toContain('is not inside a git repository');

    const nested = path.join(clone.work, 'sub', 'dir');
    fs.mkdirSync(nested, { recursive: true });
    const opened = captureDeps({ env: userEnv(), cwd: nested });
    await runCrOpen({ title: 'Topic work' }, opened);
    expect(opened.out()).toBe('#1\n');

    const created = (await svc.request('GET', `/v1/projects/${project.id}/change-requests/1`)).body.change_request;
    expect(created.head_ref).toBe('topic');
    for (const ref of ['1', '#1', created.cr_id]) {
      const shown = captureDeps({ env: userEnv(), cwd: clone.work });
      await runCrShow(ref, { json: true }, shown);
      expect(JSON.parse(shown.out()).change_request.cr_id, ref).toBe(created.cr_id);
    }
    const bad = await runCrShow('one', {}, captureDeps({ env: userEnv(), cwd: clone.work })).catch((error: unknown) => error);
    expect((bad as CliError).exitCode).toBe(2);
    const missing = await runCrShow('#42', {}, captureDeps({ env: userEnv(), cwd: clone.work })).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).details).toEqual(['svc cr ls --status all lists the change requests of this project.']);
  });

  it('lists as a coloured table on a terminal, as tab-separated rows in a pipe, and as JSON', async () => {
    const { project, clone } = await projectWithClone(svc);
    await pushBranch(clone, 'first', { 'first.txt': '1\n' });
    await pushBranch(clone, 'second', { 'second.txt': '2\n' });
    const flags = { project: project.id };
    await runCrOpen({ ...flags, title: 'First', head: 'first' }, captureDeps({ env: userEnv(), cwd: elsewhere }));
    await runCrOpen({ ...flags, title: 'Second', head: 'second' }, captureDeps({ env: userEnv(), cwd: elsewhere }));
    await runCrClose('1', flags, captureDeps({ env: userEnv(), cwd: elsewhere }));

    const tty = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrLs({ ...flags, status: 'all' }, tty);
    const lines = tty.out().split('\n');
    expect(lines[0]).toMatch(/#\s+TITLE\s+HEAD\s+BASE\s+UPDATED\s+STATUS/);
    expect(lines[1]).toMatch(/#2\s+Second\s+second\s+main\s+just now\s+\u001b\[32mopen/);
    expect(lines[2]).toMatch(/#1\s+First\s+first\s+main\s+just now\s+\u001b\[31mclosed/);

    const noColour = captureDeps({ env: { ...userEnv(), NO_COLOR: '1' }, cwd: elsewhere, isTTY: true });
    await runCrLs({ ...flags, status: 'all' }, noColour);
    expect(noColour.out()).not.toContain(ESC);

    const piped = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrLs(flags, piped);
    expect(piped.out()).toMatch(/^2\tSecond\tsecond\tmain\t\d{4}-\d\d-\d\dT[^\t]+\topen\n$/);

    const json = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrLs({ ...flags, status: 'closed', json: true }, json);
    expect(JSON.parse(json.out())).toEqual([expect.objectContaining({ number: 1, status: 'closed', title: 'First' })]);

    const empty = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrLs({ ...flags, status: 'merged' }, empty);
    expect(empty.out()).toBe('');
    expect(empty.err()).toContain('No merged change requests');

    const reopened = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrReopen('#1', flags, reopened);
    expect(reopened.err()).toContain('Reopened change request #1 (first → main)');
  });

  it('shows metadata with the merge preview, and the conflicts with what to do about them', async () => {
    const { project, clone } = await projectWithClone(svc, { 'shared.txt': 'base\n' });
    const root = clone.head();
    await pushBranch(clone, 'clean', { 'clean.txt': 'c\n' });
    await pushBranch(clone, 'clash', { 'shared.txt': 'clash\n' }, root);
    clone.checkout('main');
    clone.commit({ 'shared.txt': 'main moved\n' });
    moveHostedBranch(svc, project, clone, 'main');
    const flags = { project: project.slug };
    await runCrOpen({ ...flags, title: 'Clean one', head: 'clean', description: 'Line one\nLine two' }, captureDeps({ env: userEnv(), cwd: elsewhere }));
    await runCrOpen({ ...flags, title: 'Clashing one', head: 'clash' }, captureDeps({ env: userEnv(), cwd: elsewhere }));
    await svc.request('POST', `/v1/projects/${project.id}/change-requests/1/request-changes`, { body: { feedback: 'Add a test.' } });

    const clean = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrShow('1', flags, clean);
    expect(clean.out()).toContain('#1 Clean one');
    expect(clean.out()).toContain('clean → main');
    expect(clean.out()).toContain('  Line two');
    expect(clean.out()).toContain('✓ Can merge: no conflicts');
    expect(clean.out()).toContain('Requested changes');
    expect(clean.out()).toContain('- Add a test.');

    const clash = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrShow('2', flags, clash);
    expect(clash.out()).toContain('✗ Conflicts in 1 file: merge main into clash, resolve, commit and push, then run svc cr show 2 again.');
    expect(clash.out()).toContain('shared.txt');

    const piped = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrShow('2', flags, piped);
    expect(piped.out()).toContain('status\topen\n');
    expect(piped.out()).toContain('can_merge\tfalse\n');
    expect(piped.out()).toContain('conflicts\tshared.txt\n');
    expect(piped.out()).not.toContain(ESC);

    const json = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrShow('2', { ...flags, json: true }, json);
    expect(JSON.parse(json.out()).merge_preview).toMatchObject({ can_merge: false, conflicts: ['shared.txt'] });

    const merge = await runCrMerge('2', flags, captureDeps({ env: userEnv(), cwd: elsewhere })).catch((error: unknown) => error);
    expect(merge).toBeInstanceOf(ApiError);
    expect((merge as ApiError).message).toContain('resolve the conflicts before merging');
    expect((merge as ApiError).message).toContain('(MERGE_CONFLICT)');
    expect((merge as ApiError).details).toEqual(['conflict: shared.txt']);
  });

  it('shows the CR with why there is no merge preview when its branch was deleted, as the merge would answer', async () => {
    const { project, clone } = await projectWithClone(svc);
    await pushBranch(clone, 'short-lived', { 'a.txt': 'a\n' });
    const flags = { project: project.slug };
    await runCrOpen({ ...flags, title: 'Short lived', head: 'short-lived' }, captureDeps({ env: userEnv(), cwd: elsewhere }));
    await clone.gitAsync(['push', '--quiet', 'origin', ':refs/heads/short-lived']);
    const why = 'The branch short-lived of change request #1 does not exist; push it again (git push origin HEAD).';

    const preview = await svc.request('GET', `/v1/projects/${project.id}/change-requests/1/merge-preview`);
    expect(preview.status).toBe(409);
    expect(preview.body).toEqual({ code: 'BRANCH_MISSING', error: why });

    const terminal = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrShow('1', flags, terminal);
    expect(terminal.out()).toContain('#1 Short lived');
    expect(terminal.out()).toContain(`✗ No merge preview: ${why} (BRANCH_MISSING)`);
    expect(terminal.out()).not.toContain('Can merge');

    const piped = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrShow('1', flags, piped);
    expect(piped.out()).toContain('status\topen\n');
    expect(piped.out()).toContain(`merge_preview_error\t${why} (BRANCH_MISSING)\n`);

    const json = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrShow('1', { ...flags, json: true }, json);
    expect(JSON.parse(json.out())).toMatchObject({ change_request: { number: 1, status: 'open' }, merge_preview: null, merge_preview_error: { error: why, code: 'BRANCH_MISSING' } });
  });

  it('prints the diff coloured only on a terminal without --no-color, then merges and closes', async () => {
    const { project, clone } = await projectWithClone(svc, { 'app.txt': 'one\n' });
    await pushBranch(clone, 'edit', { 'app.txt': 'two\n' });
    const flags = { project: project.id };
    await runCrOpen({ ...flags, title: 'Edit', head: 'edit' }, captureDeps({ env: userEnv(), cwd: elsewhere }));

    const piped = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrDiff('1', flags, piped);
    expect(piped.out()).toContain('-one\n+two\n');
    expect(piped.out()).not.toContain(ESC);
    const tty = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrDiff('#1', { ...flags, color: true }, tty);
    expect(tty.out()).toContain(`${ESC}31m-one${ESC}39m`);
    expect(tty.out()).toContain(`${ESC}32m+two${ESC}39m`);
    const plain = captureDeps({ env: userEnv(), cwd: elsewhere, isTTY: true });
    await runCrDiff('1', { ...flags, color: false }, plain);
    expect(plain.out()).toBe(piped.out());

    const merged = captureDeps({ env: userEnv(), cwd: elsewhere });
    await runCrMerge('1', { ...flags, message: 'unused for a fast-forward' }, merged);
    const sha = merged.out().trim();
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(merged.err()).toContain(`Merged change request #1 into main (fast-forward to ${sha.slice(0, 10)})`);
    expect(merged.err()).toContain('A fast-forward makes no merge commit, so --message was not used; main now points at the commits of');
    const closing = await runCrClose('1', flags, captureDeps({ env: userEnv(), cwd: elsewhere })).catch((error: unknown) => error);
    expect((closing as ApiError).message).toContain('already merged');
  });
});

describe('the svc binary', () => {
  it('exits 0 on success, 1 with the API error on stderr, 2 on usage errors', { timeout: 90_000 }, async () => {
    const { project, clone } = await projectWithClone(svc);
    await pushBranch(clone, 'bin', { 'bin.txt': 'b\n' });
    const env = { ...userEnv(), SVC_PROJECT_ID: project.id };

    const open = await runCli(['cr', 'open', '--title', 'From the binary', '--head', 'bin'], { env, cwd: elsewhere });
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toBe('#1\n');
    const ls = await runCli(['cr', 'ls', '--json'], { env, cwd: elsewhere });
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([expect.objectContaining({ number: 1, head_ref: 'bin' })]);
    const missing = await runCli(['cr', 'show', '7'], { env, cwd: elsewhere });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(NOT_FOUND)');

    // Each spawn starts a whole node process; a few cover the usage paths (commander's and svc's own).
    const badRef = await runCli(['cr', 'show', 'abc'], { env, cwd: elsewhere });
    expect(badRef.code).toBe(2);
    expect(badRef.stderr).toContain('is not a change request');
    const noTitle = await runCli(['cr', 'open'], { env, cwd: elsewhere });
    expect(noTitle.code).toBe(2);
    expect(noTitle.stderr).toContain("required option '--title <title>'");
    const noBranch = await runCli(['cr', 'open', '--title', 'No branch'], { env, cwd: elsewhere });
    expect(noBranch.code).toBe(2);
    expect(noBranch.stderr).toContain('Which branch? Pass --head <branch>');
  });
});
