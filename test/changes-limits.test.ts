/**
 * Limits on what a client can grow in a change request (issue 17, item 8): the length of one request-changes
 * feedback and how much feedback one CR keeps, and a diff too large to show, which is truncated (every file
 * listed, the patch of the large ones left out with a note) instead of failing with 500.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrDiff } from '../src/cli/cr/diff.js';
import { MAX_FEEDBACK_ENTRIES } from '../src/changes/input-rules.js';
import { adminCliEnv, captureDeps } from './support/cli-harness.js';
import { projectWithClone, removeTempDirs, type Clone, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
/** A server whose diff limits are small enough to reach with a few small files. */
let tight: TestServer;
const TIGHT = { SVC_DIFF_MAX_FILE_BYTES: '2048', SVC_DIFF_MAX_BYTES: '4096' };

beforeAll(async () => {
  [svc, tight] = await Promise.all([startTestServer(), startTestServer({ env: TIGHT })]);
});
afterAll(async () => {
  await Promise.all([svc.close(), tight.close()]);
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;

/** A project whose branch `feature` adds `files` on top of main, and its CR #1. */
async function crAdding(server: TestServer, files: Record<string, string | Buffer>): Promise<{ project: TestProject; clone: Clone }> {
  const { project, clone } = await projectWithClone(server);
  // The fastest zlib level: a 72 MB file is committed and pushed in a few seconds instead of many.
  clone.git(['config', 'core.compression', '1']);
  clone.checkout('feature');
  clone.commit(files, 'add files');
  await clone.push('feature');
  const created = await server.request('POST', crs(project), { body: { title: 'Big change', head_ref: 'feature' } });
  expect(created.status, created.text).toBe(201);
  return { project, clone };
}

/** `lines` numbered lines: text git diffs line by line, whose patch is about `lines` × 18 bytes. */
function numberedLines(lines: number, prefix = 'line'): string {
  return Array.from({ length: lines }, (_, index) => `${prefix} ${String(index).padStart(10, '0')}\n`).join('');
}

describe(`request-changes limits on ${testDialect}`, () => {
  it('refuses feedback over 65536 characters with 400 VALIDATION_FAILED at /feedback', async () => {
    const { project } = await crAdding(svc, { 'a.txt': 'a\n' });
    const response = await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'x'.repeat(65_537) } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.issues).toEqual([expect.objectContaining({ path: '/feedback' })]);
    expect(response.body.issues[0].message).toMatch(/65536/);
  });

  it(`keeps at most ${MAX_FEEDBACK_ENTRIES} feedback entries and 4 MiB of feedback per CR, then answers 409 saying what to do`, async () => {
    const { project } = await crAdding(svc, { 'a.txt': 'a\n' });
    const cr = (await svc.request('GET', `${crs(project)}/1`)).body.change_request;
    const at = new Date().toISOString();
    const setFeedback = (entries: Array<{ text: string; by: string; at: string }>) =>
      svc.server.services.db
        .updateTable('change_requests')
        .set({ metadata: JSON.stringify({ requested_changes: entries }) })
        .where('id', '=', cr.cr_id)
        .execute();

    // As many entries as a CR keeps (written directly: a thousand requests would only make the test slow).
    await setFeedback(Array.from({ length: MAX_FEEDBACK_ENTRIES }, (_, index) => ({ text: `nit ${index}`, by: cr.created_by, at })));
    const full = await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'One more thing.' } });
    expect(full.status).toBe(409);
    expect(full.body).toEqual({
      code: 'FEEDBACK_FULL',
      error:
        `Change request #1 already holds ${MAX_FEEDBACK_ENTRIES} requested changes, the most one CR keeps (${MAX_FEEDBACK_ENTRIES}); ` +
        'close it and open a new CR for the remaining work, or gather the feedback into fewer, longer entries.',
    });

    // Sixty-four entries of the longest feedback fill the 4 MiB a CR keeps.
    await setFeedback(Array.from({ length: 64 }, () => ({ text: 'y'.repeat(65_536), by: cr.created_by, at })));
    const heavy = await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'Short.' } });
    expect(heavy.status).toBe(409);
    expect(heavy.body.error).toBe(
      'Change request #1 already holds 4194304 characters of requested changes; with this 6-character feedback it would exceed the 4194304 one CR keeps. ' +
        'Send shorter feedback, or close it and open a new CR for the remaining work.',
    );
    const kept = (await svc.request('GET', `${crs(project)}/1`)).body.change_request.metadata.requested_changes;
    expect(kept).toHaveLength(64);

    // Below both limits, feedback is taken as before.
    await setFeedback([]);
    const taken = await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'Fine now.' } });
    expect(taken.status).toBe(200);
    expect(taken.body.change_request.metadata.requested_changes).toEqual([{ text: 'Fine now.', by: cr.created_by, at: expect.any(String) }]);
  });
});

describe(`diffs too large to show on ${testDialect}`, () => {
  it('lists a 72 MB file but leaves its patch out with a note, in JSON and text/x-diff, instead of answering 500', { timeout: 120_000 }, async () => {
    const lines = 4_500_000;
    // A block of numbered lines repeated: quick to build, and still 4.5 million lines for git to diff.
    const big = numberedLines(1_000).repeat(lines / 1_000);
    expect(big.length).toBeGreaterThan(70_000_000);
    const { project, clone } = await crAdding(svc, { 'a.txt': 'first\n', 'big.txt': big, 'z.txt': 'last\n' });

    const json = await svc.request('GET', `${crs(project)}/1/diff`);
    expect(json.status, json.text.slice(0, 500)).toBe(200);
    expect(json.headers.get('x-svc-diff-truncated')).toBe('true');
    expect(json.body.truncated).toBe(true);
    expect(json.body.files).toEqual([
      { path: 'a.txt', old_path: 'a.txt', status: 'added', additions: 1, deletions: 0 },
      {
        path: 'big.txt',
        old_path: 'big.txt',
        status: 'added',
        additions: lines,
        deletions: 0,
        note: expect.stringMatching(/^Large diff not shown: this file's diff is 7\d(\.\d)? MiB, over the limit of 1 MiB per file \(SVC_DIFF_MAX_FILE_BYTES\)\.$/),
      },
      { path: 'z.txt', old_path: 'z.txt', status: 'added', additions: 1, deletions: 0 },
    ]);
    expect(json.body.additions).toBe(lines + 2);
    expect(json.body.patch).toContain('diff --git a/a.txt b/a.txt');
    expect(json.body.patch).toContain('+first\n');
    expect(json.body.patch).toContain('diff --git a/z.txt b/z.txt');
    expect(json.body.patch).toContain('+last\n');
    expect(json.body.patch).not.toContain('big.txt');
    expect(json.text.length).toBeLessThan(10_000);

    const text = await svc.request('GET', `${crs(project)}/1/diff`, { headers: { accept: 'text/x-diff' } });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/x-diff/);
    expect(text.headers.get('x-svc-diff-truncated')).toBe('true');
    expect(text.text.split('\n').slice(0, 3)).toEqual([
      '# svc: this diff is truncated: 1 of 3 changed files are not shown.',
      `#   big.txt: ${json.body.files[1].note}`,
      '# Fetch the branches and run git diff to see them.',
    ]);
    expect(text.text.endsWith(json.body.patch)).toBe(true);
    // The note is text git apply skips: the patch of the files shown still applies to base.
    clone.checkout('main');
    execFileSync('git', ['apply', '--check', '-'], { cwd: clone.work, input: text.text });
  });

  it('stops the patch at a file boundary before the total limit, listing every file, with limits from the configuration', async () => {
    // Each file's patch is about 1.1 KB: three fit in SVC_DIFF_MAX_BYTES=4096, not four; one of 2.6 KB is over SVC_DIFF_MAX_FILE_BYTES=2048.
    const files: Record<string, string> = {
      'f1.txt': numberedLines(60, 'one'),
      'f2-large.txt': numberedLines(160, 'two'),
      'f3.txt': numberedLines(60, 'three'),
      'f4.txt': numberedLines(60, 'four'),
      'f5.txt': numberedLines(60, 'five'),
      'f6.txt': numberedLines(60, 'six'),
    };
    const { project } = await crAdding(tight, files);
    const diff = await tight.request('GET', `${crs(project)}/1/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body.truncated).toBe(true);
    expect(diff.body.files.map((file: { path: string; additions: number }) => [file.path, file.additions])).toEqual(Object.entries(files).map(([path, content]) => [path, content.split('\n').length - 1]));
    const notes = Object.fromEntries(diff.body.files.map((file: { path: string; note?: string }) => [file.path, file.note ?? null]));
    expect(notes).toEqual({
      'f1.txt': null,
      'f2-large.txt': expect.stringMatching(/^Large diff not shown: this file's diff is 2\.\d KiB, over the limit of 2 KiB per file \(SVC_DIFF_MAX_FILE_BYTES\)\.$/),
      'f3.txt': null,
      'f4.txt': null,
      'f5.txt': 'Diff not shown: the diff reached its limit of 4 KiB (SVC_DIFF_MAX_BYTES) before this file.',
      'f6.txt': 'Diff not shown: the diff reached its limit of 4 KiB (SVC_DIFF_MAX_BYTES) before this file.',
    });
    expect(Buffer.byteLength(diff.body.patch)).toBeLessThanOrEqual(4096);
    expect([...diff.body.patch.matchAll(/^diff --git a\/(\S+) /gm)].map((match) => match[1])).toEqual(['f1.txt', 'f3.txt', 'f4.txt']);

    // A diff within the limits is whole, and says so.
    const small = await crAdding(tight, { 'small.txt': 'small\n' });
    const whole = await tight.request('GET', `${crs(small.project)}/1/diff`);
    expect(whole.body.truncated).toBe(false);
    expect(whole.headers.get('x-svc-diff-truncated')).toBeNull();
    expect(whole.body.files).toEqual([{ path: 'small.txt', old_path: 'small.txt', status: 'added', additions: 1, deletions: 0 }]);
  });

  it('svc cr diff prints the truncation note before the patch', async () => {
    const { project } = await crAdding(tight, { 'a.txt': 'a\n', 'huge.txt': numberedLines(500) });
    const piped = captureDeps({ env: adminCliEnv(tight) });
    await runCrDiff('1', { project: project.id }, piped);
    expect(piped.out()).toMatch(
      /^# svc: this diff is truncated: 1 of 2 changed files are not shown\.\n# {3}huge\.txt: Large diff not shown: this file's diff is \d+(\.\d)? KiB, over the limit of 2 KiB per file \(SVC_DIFF_MAX_FILE_BYTES\)\.\n# Fetch the branches and run git diff to see them\.\ndiff --git a\/a\.txt b\/a\.txt\n/,
    );
    const tty = captureDeps({ env: adminCliEnv(tight), isTTY: true });
    await runCrDiff('1', { project: project.id, color: true }, tty);
    expect(tty.out()).toContain('\u001b[33m# svc: this diff is truncated: 1 of 2 changed files are not shown.\u001b[39m');
  });
});
