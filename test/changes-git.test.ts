/**
 * Change requests against real repositories: SHA refresh following pushes, three-dot and captured diffs,
 * merge previews, fast-forward and three-way merges (checked in `git log`), conflicts, unrelated
 * histories and the manifest gate with svc.yaml and svc.toml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGit, hostedRepoPath, moveHostedBranch, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

const MERGE_AUTHOR = { name: 'svc merges', email: 'merges@noreply.example.test' };

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer({ env: { SVC_MERGE_AUTHOR_NAME: MERGE_AUTHOR.name, SVC_MERGE_AUTHOR_EMAIL: MERGE_AUTHOR.email } });
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;

async function openCr(project: TestProject, headRef: string, title = `CR for ${headRef}`) {
  const response = await svc.request('POST', crs(project), { body: { title, head_ref: headRef } });
  expect(response.status, response.text).toBe(201);
  return response.body.change_request as { number: number; cr_id: string; head_commit_sha: string; base_commit_sha: string; updated_at: string };
}

const tip = (project: TestProject, branch = 'main') => bareGit(hostedRepoPath(svc, project.id), ['rev-parse', `refs/heads/${branch}`]);

/** main with a few files, a feature branch changing some of them, and main moved on elsewhere (diverged). */
async function divergedProject() {
  const { project, clone } = await projectWithClone(svc, { 'README.md': 'hello\n', 'src/app.txt': 'one\ntwo\nthree\n', 'old.txt': 'old\n' });
  const forkPoint = clone.head();
  clone.checkout('feature');
  const featureTip = clone.commit({ 'src/app.txt': 'one\n2\nthree\nfour\n', 'new.txt': 'new\n', 'old.txt': null }, 'feature work');
  await clone.push('feature');
  clone.checkout('main');
  const mainTip = clone.commit({ 'README.md': 'hello\nworld\n', 'docs/guide.md': 'guide\n' }, 'main moves on');
  moveHostedBranch(svc, project, clone, 'main');
  return { project, clone, forkPoint, featureTip, mainTip };
}

describe(`CR git semantics on ${testDialect}`, () => {
  it('follows the live head and base after opening (no freeze), on reads and listings', async () => {
    const { project, clone } = await projectWithClone(svc);
    clone.checkout('feature');
    clone.commit({ 'a.txt': '1\n' });
    await clone.push('feature');
    const opened = await openCr(project, 'feature');

    const next = clone.commit({ 'a.txt': '2\n' }, 'second commit');
    await clone.push('feature');
    const read = await svc.request('GET', `${crs(project)}/1`);
    expect(read.body.change_request.head_commit_sha).toBe(next);
    expect(read.body.change_request.updated_at > opened.updated_at).toBe(true);

    clone.checkout('main');
    const mainTip = clone.commit({ 'b.txt': 'b\n' });
    moveHostedBranch(svc, project, clone, 'main');
    const listed = await svc.request('GET', crs(project));
    expect(listed.body.change_requests[0]).toMatchObject({ head_commit_sha: next, base_commit_sha: mainTip });
    // The refresh was stored, not only shown.
    const row = await svc.server.services.db.selectFrom('change_requests').selectAll().where('id', '=', opened.cr_id).executeTakeFirstOrThrow();
    expect([row.head_commit_sha, row.base_commit_sha]).toEqual([next, mainTip]);

    // The diff follows too.
    const diff = await svc.request('GET', `${crs(project)}/1/diff`);
    expect(diff.body.patch).toContain('+2');
  });

  it('serves the stored SHAs when a branch disappears, and still diffs them', async () => {
    const { project, clone } = await projectWithClone(svc);
    clone.checkout('short-lived');
    const headSha = clone.commit({ 'x.txt': 'x\n' });
    await clone.push('short-lived');
    await openCr(project, 'short-lived');
    await clone.gitAsync(['push', '--quiet', 'origin', ':refs/heads/short-lived']);

    const read = await svc.request('GET', `${crs(project)}/1`);
    expect(read.status).toBe(200);
    expect(read.body.change_request.head_commit_sha).toBe(headSha);
    const diff = await svc.request('GET', `${crs(project)}/1/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body.files.map((file: { path: string }) => file.path)).toEqual(['x.txt']);
    const merge = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merge.status).toBe(409);
    expect(merge.body.error).toContain('push it again');
  });

  it('diffs open CRs three-dot: base changes made after the fork are excluded', async () => {
    const { project } = await divergedProject();
    await openCr(project, 'feature');
    const diff = await svc.request('GET', `${crs(project)}/1/diff`);
    expect(diff.status).toBe(200);
    expect(Object.keys(diff.body).sort()).toEqual(['additions', 'deletions', 'files', 'patch', 'truncated']);
    expect(diff.body.truncated).toBe(false);
    expect(diff.body.files).toEqual([
      { path: 'new.txt', old_path: 'new.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'old.txt', old_path: 'old.txt', status: 'deleted', additions: 0, deletions: 1 },
      { path: 'src/app.txt', old_path: 'src/app.txt', status: 'modified', additions: 2, deletions: 1 },
    ]);
    expect(diff.body.additions).toBe(3);
    expect(diff.body.deletions).toBe(2);
    expect(diff.body.patch).toContain('diff --git a/src/app.txt b/src/app.txt');
    expect(diff.body.patch).not.toContain('README.md');
    expect(diff.body.patch).not.toContain('guide');

    const text = await svc.request('GET', `${crs(project)}/1/diff`, { headers: { accept: 'text/x-diff' } });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/x-diff/);
    expect(text.text).toBe(diff.body.patch);
    const negotiated: Array<[string, RegExp]> = [
      ['text/x-diff;q=0.5, application/json', /^application\/json/],
      ['application/json, text/x-diff', /^application\/json/],
      ['application/json;q=0.2, text/x-diff', /^text\/x-diff/],
      ['text/*', /^text\/x-diff/],
      ['*/*', /^application\/json/],
    ];
    for (const [accept, type] of negotiated) {
      const answer = await svc.request('GET', `${crs(project)}/1/diff`, { headers: { accept } });
      expect(answer.headers.get('content-type'), accept).toMatch(type);
    }
  });

  it('keeps the diff of a merged CR on its captured SHAs when the branches move on', async () => {
    const { project, clone } = await divergedProject();
    await openCr(project, 'feature');
    const before = await svc.request('GET', `${crs(project)}/1/diff`);
    expect((await svc.request('POST', `${crs(project)}/1/merge`)).status).toBe(200);

    clone.checkout('feature');
    await clone.fetch();
    clone.commit({ 'after-merge.txt': 'late\n' }, 'pushed after the merge');
    await clone.push('feature');
    const after = await svc.request('GET', `${crs(project)}/1/diff`);
    expect(after.body).toEqual(before.body);
  });

  it('previews a fast-forward, a clean three-way merge, a conflict and unrelated histories', async () => {
    const { project, clone, featureTip, mainTip, forkPoint } = await divergedProject();
    clone.checkout('ahead', mainTip);
    const aheadTip = clone.commit({ 'ahead.txt': 'ahead\n' });
    await clone.push('ahead');
    await openCr(project, 'feature');
    await openCr(project, 'ahead');

    const threeWay = await svc.request('GET', `${crs(project)}/1/merge-preview`);
    expect(threeWay.body).toEqual({
      base_sha: mainTip,
      head_sha: featureTip,
      merge_base: forkPoint,
      is_up_to_date: false,
      can_merge: true,
      can_fast_forward: false,
      conflicts: [],
    });
    const fastForward = await svc.request('GET', `${crs(project)}/2/merge-preview`);
    expect(fastForward.body).toEqual({
      base_sha: mainTip,
      head_sha: aheadTip,
      merge_base: mainTip,
      is_up_to_date: false,
      can_merge: true,
      can_fast_forward: true,
      conflicts: [],
    });

    clone.checkout('clash', forkPoint);
    clone.commit({ 'README.md': 'goodbye\n', 'docs/guide.md': 'other guide\n' }, 'clashing edits');
    await clone.push('clash');
    await openCr(project, 'clash');
    const conflicted = await svc.request('GET', `${crs(project)}/3/merge-preview`);
    expect(conflicted.body).toMatchObject({ can_merge: false, can_fast_forward: false, is_up_to_date: false, merge_base: forkPoint });
    expect([...conflicted.body.conflicts].sort()).toEqual(['README.md', 'docs/guide.md']);

    clone.orphan('stranger');
    clone.commit({ 'alien.txt': 'from elsewhere\n' }, 'unrelated root');
    await clone.push('stranger');
    await openCr(project, 'stranger');
    const unrelated = await svc.request('GET', `${crs(project)}/4/merge-preview`);
    expect(unrelated.body).toMatchObject({ merge_base: null, can_merge: false, can_fast_forward: false, is_up_to_date: false, conflicts: [] });
    // The diff of unrelated histories shows everything head would bring.
    const diff = await svc.request('GET', `${crs(project)}/4/diff`);
    expect(diff.body.files.map((file: { path: string; status: string }) => [file.path, file.status])).toEqual([['alien.txt', 'added']]);
    const merge = await svc.request('POST', `${crs(project)}/4/merge`);
    expect(merge.status).toBe(409);
    expect(merge.body.error).toContain('unrelated histories');
    expect(tip(project)).toBe(mainTip);
  });

  it('fast-forwards when head is strictly ahead: no merge commit, all SHAs equal the head tip', async () => {
    const { project, clone } = await projectWithClone(svc);
    const baseBefore = clone.head();
    clone.checkout('ff');
    clone.commit({ 'one.txt': '1\n' });
    const headSha = clone.commit({ 'two.txt': '2\n' });
    await clone.push('ff');
    await openCr(project, 'ff');
    const merged = await svc.request('POST', `${crs(project)}/1/merge`, { body: { message: 'ignored for a fast-forward' } });
    expect(merged.status).toBe(200);
    expect(Object.keys(merged.body).sort()).toEqual(['change_request', 'fast_forward', 'merge_commit_sha']);
    expect(merged.body).toMatchObject({ merge_commit_sha: headSha, fast_forward: true });
    expect(merged.body.change_request).toMatchObject({
      status: 'merged',
      merge_commit_sha: headSha,
      head_commit_sha: headSha,
      base_commit_sha: baseBefore,
      merged_by: expect.any(String),
      merged_at: expect.any(String),
    });
    expect(tip(project)).toBe(headSha);
    // Branches are not deleted by a merge.
    expect(tip(project, 'ff')).toBe(headSha);
  });

  it('makes a three-way merge commit by the service identity with the default or the given message', async () => {
    const { project, featureTip, mainTip } = await divergedProject();
    await openCr(project, 'feature', 'Rework the app');
    const merged = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merged.status).toBe(200);
    const mergeSha = merged.body.merge_commit_sha;
    expect(merged.body.fast_forward).toBe(false);
    expect(merged.body.change_request).toMatchObject({ merge_commit_sha: mergeSha, head_commit_sha: featureTip, base_commit_sha: mainTip });

    const repo = hostedRepoPath(svc, project.id);
    expect(tip(project)).toBe(mergeSha);
    const [parents, author, committer, subject] = bareGit(repo, ['log', '-1', '--format=%P%n%an <%ae>%n%cn <%ce>%n%s', mergeSha]).split('\n');
    expect(parents).toBe(`${mainTip} ${featureTip}`);
    expect(author).toBe(`${MERGE_AUTHOR.name} <${MERGE_AUTHOR.email}>`);
    expect(committer).toBe(`${MERGE_AUTHOR.name} <${MERGE_AUTHOR.email}>`);
    expect(subject).toBe('Merge CR #1: Rework the app');
    // The merged tree holds both sides' changes.
    expect(bareGit(repo, ['show', `${mergeSha}:README.md`])).toBe('hello\nworld');
    expect(bareGit(repo, ['show', `${mergeSha}:new.txt`])).toBe('new');

    const second = await divergedProject();
    await openCr(second.project, 'feature');
    const custom = await svc.request('POST', `${crs(second.project)}/1/merge`, { body: { message: 'Ship it\n\nWith a body.' } });
    expect(custom.status).toBe(200);
    expect(bareGit(hostedRepoPath(svc, second.project.id), ['log', '-1', '--format=%B', custom.body.merge_commit_sha]).trim()).toBe('Ship it\n\nWith a body.');
    expect((await svc.request('POST', `${crs(second.project)}/1/merge`, { body: { message: 7 } })).status).toBe(400);
  });

  it('answers 409 MERGE_CONFLICT with the paths, leaving base and the CR as they were', async () => {
    const { project, clone, forkPoint, mainTip } = await divergedProject();
    clone.checkout('clash', forkPoint);
    clone.commit({ 'README.md': 'goodbye\n' }, 'clash');
    await clone.push('clash');
    await openCr(project, 'clash');
    const merge = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merge.status).toBe(409);
    expect(merge.body).toMatchObject({ code: 'MERGE_CONFLICT', conflicts: ['README.md'] });
    expect(merge.body.error).toContain('resolve the conflicts before merging');
    expect(tip(project)).toBe(mainTip);
    expect((await svc.request('GET', `${crs(project)}/1`)).body.change_request.status).toBe('open');
    expect(await svc.server.services.db.selectFrom('merge_intents').selectAll().execute()).toEqual([]);

    // The recovery of spec 2: merge base into the branch, resolve, push; then the CR merges.
    await clone.fetch();
    clone.git(['merge', '--quiet', '--no-edit', '-X', 'ours', 'origin/main']);
    await clone.push('clash');
    expect((await svc.request('GET', `${crs(project)}/1/merge-preview`)).body).toMatchObject({ can_merge: true, conflicts: [] });
    expect((await svc.request('POST', `${crs(project)}/1/merge`)).status).toBe(200);
  });

  it('records a CR whose head already reached base as merged without moving base', async () => {
    const { project, clone } = await projectWithClone(svc);
    clone.checkout('landed');
    const headSha = clone.commit({ 'l.txt': 'l\n' });
    await clone.push('landed');
    await openCr(project, 'landed');
    clone.checkout('main');
    clone.git(['merge', '--quiet', '--ff-only', 'landed']);
    const mainTip = clone.commit({ 'm.txt': 'm\n' });
    moveHostedBranch(svc, project, clone, 'main');
    expect((await svc.request('GET', `${crs(project)}/1/merge-preview`)).body).toMatchObject({ is_up_to_date: true, can_merge: true });
    const merged = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merged.status).toBe(200);
    expect(merged.body.change_request).toMatchObject({ status: 'merged', merge_commit_sha: headSha, base_commit_sha: mainTip });
    expect(tip(project)).toBe(mainTip);
  });
});

describe(`manifest gate on ${testDialect}`, () => {
  const invalidYaml = 'triggers:\n  - slug: nightly\n    type: cron\n    cron: "every night"\n    prompt: p\n';
  const validYaml = 'triggers:\n  - { slug: hook, type: webhook, secret_env: HOOK_SECRET, prompt: p }\n';
  const invalidToml = '[[triggers]]\nslug = "hook"\ntype = "webhook"\nprompt = "p"\n';
  const validToml = '[[triggers]]\nslug = "hook"\ntype = "webhook"\nsecret_env = "HOOK_SECRET"\nprompt = "p"\n';

  async function crWithManifest(files: Record<string, string>) {
    const { project, clone } = await projectWithClone(svc);
    const mainTip = clone.head();
    clone.checkout('manifest-change');
    clone.commit(files, 'edit the manifest');
    await clone.push('manifest-change');
    await openCr(project, 'manifest-change');
    return { project, clone, mainTip };
  }

  it.each([
    ['svc.yaml', invalidYaml, '/triggers/0/cron'],
    ['svc.toml', invalidToml, '/triggers/0/secret_env'],
  ])('refuses an invalid %s on head with 422 MANIFEST_INVALID naming the entry and field; base unchanged', async (filename, text, path) => {
    const { project, mainTip } = await crWithManifest({ [filename]: text });
    const merge = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merge.status).toBe(422);
    expect(merge.body.code).toBe('MANIFEST_INVALID');
    expect(merge.body.issues).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
    expect(merge.body.error).toContain(filename);
    expect(tip(project)).toBe(mainTip);
    expect((await svc.request('GET', `${crs(project)}/1`)).body.change_request.status).toBe('open');
  });

  it.each([
    ['svc.yaml', validYaml],
    ['svc.toml', validToml],
  ])('merges a branch with a valid %s', async (filename, text) => {
    const { project } = await crWithManifest({ [filename]: text });
    const merge = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merge.status).toBe(200);
    expect(tip(project)).toBe(merge.body.merge_commit_sha);
  });

  it('gates on the head branch even when base holds a valid manifest, and fixing it unblocks the merge', async () => {
    const { project, clone } = await projectWithClone(svc, { 'svc.yaml': validYaml });
    clone.checkout('break-it');
    clone.commit({ 'svc.yaml': invalidYaml }, 'break the manifest');
    await clone.push('break-it');
    await openCr(project, 'break-it');
    expect((await svc.request('POST', `${crs(project)}/1/merge`)).status).toBe(422);
    clone.commit({ 'svc.yaml': validYaml.replace('hook', 'hook2') }, 'fix it');
    await clone.push('break-it');
    expect((await svc.request('POST', `${crs(project)}/1/merge`)).status).toBe(200);
  });
});

