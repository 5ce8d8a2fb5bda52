/**
 * Change requests on a project whose repository lives on another git host (repo_url): here a second svc
 * server, reached over smart HTTP with the GIT_TOKEN project secret. svc keeps a mirror, computes on it
 * and lands merges with non-force pushes to the upstream.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { bareGit, Clone, createProject, hostedRepoPath, removeTempDirs, withToken, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let upstream: TestServer;

beforeAll(async () => {
  [svc, upstream] = await Promise.all([startTestServer(), startTestServer()]);
});
afterAll(async () => {
  await Promise.all([svc.close(), upstream.close()]);
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;

/** A repository on `host` with main and a feature branch, and a project on `mirror` mirroring it with GIT_TOKEN set. */
async function mirroredProject(host: TestServer, mirror = svc) {
  // The upstream's default branch is trunk: svc refuses pushes to a hosted default branch (contract §2),
  // while its main is an ordinary branch that people and the mirror's merges may push to.
  const remote = await createProject(host, { default_branch: 'trunk' });
  const clone = await Clone.of(withToken(remote.clone_url, host.adminToken));
  clone.commit({ 'README.md': 'upstream\n', 'shared.txt': 'one\n' }, 'initial');
  await clone.push('main');
  clone.checkout('feature');
  clone.commit({ 'feature.txt': 'feature\n' }, 'feature work');
  await clone.push('feature');
  clone.checkout('main');

  // Read at create with the token, which the project keeps as its GIT_TOKEN secret.
  const project = await createProject(mirror, { repo_url: remote.clone_url, git_token: host.adminToken });
  return { remote, project, clone, upstreamRepo: hostedRepoPath(host, remote.id) };
}

describe(`CRs on a mirrored repository on ${testDialect}`, () => {
  it('opens, previews, diffs and merges against the upstream, landing the merge by a non-force push', async () => {
    const { project, clone, upstreamRepo } = await mirroredProject(upstream);
    expect(project.repo_url).toContain('/git/');
    const created = await svc.request('POST', crs(project), { body: { title: 'Mirror feature', head_ref: 'feature' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.change_request.head_commit_sha).toBe(bareGit(upstreamRepo, ['rev-parse', 'refs/heads/feature']));

    // main moves upstream, so the merge is three-way.
    const upstreamMain = clone.commit({ 'upstream-only.txt': 'u\n' }, 'upstream moves on');
    await clone.push('main');
    const preview = await svc.request('GET', `${crs(project)}/1/merge-preview`);
    expect(preview.status).toBe(200);
    const diff = await svc.request('GET', `${crs(project)}/1/diff`);
    expect(diff.body.files.map((file: { path: string }) => file.path)).toEqual(['feature.txt']);

    const merged = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.fast_forward).toBe(false);
    const mergeSha = merged.body.merge_commit_sha as string;
    expect(bareGit(upstreamRepo, ['rev-parse', 'refs/heads/main'])).toBe(mergeSha);
    expect(bareGit(upstreamRepo, ['log', '-1', '--format=%P', mergeSha])).toBe(`${upstreamMain} ${merged.body.change_request.head_commit_sha}`);
    // Never a force: the upstream's reflog shows main only ever moving forward.
    const reflog = bareGit(upstreamRepo, ['reflog', '--format=%H', 'refs/heads/main']).split('\n');
    for (let index = 0; index + 1 < reflog.length; index += 1) {
      bareGit(upstreamRepo, ['merge-base', '--is-ancestor', reflog[index + 1] ?? '', reflog[index] ?? '']);
    }
  });

  it('force-refetches before answering CR_HEAD_NOT_AHEAD, so a branch pushed a moment ago opens', async () => {
    const { project, clone } = await mirroredProject(upstream);
    expect((await svc.request('POST', crs(project), { body: { title: 'first', head_ref: 'feature' } })).status).toBe(201);
    clone.checkout('just-pushed', 'main');
    clone.commit({ 'late.txt': 'late\n' });
    await clone.push('just-pushed');
    const created = await svc.request('POST', crs(project), { body: { title: 'late', head_ref: 'just-pushed' } });
    expect(created.status, created.text).toBe(201);
    const never = await svc.request('POST', crs(project), { body: { title: 'never', head_ref: 'not-pushed' } });
    expect(never.status).toBe(422);
    expect(never.body.code).toBe('CR_HEAD_NOT_AHEAD');
  });

  it('recomputes when the upstream base moved after the mirror last fetched (the push is refused, never forced)', async () => {
    const { project, clone, upstreamRepo } = await mirroredProject(upstream);
    clone.checkout('second', 'main');
    clone.commit({ 'second.txt': 's\n' });
    await clone.push('second');
    await svc.request('POST', crs(project), { body: { title: 'one', head_ref: 'feature' } });
    await svc.request('POST', crs(project), { body: { title: 'two', head_ref: 'second' } });
    expect((await svc.request('POST', `${crs(project)}/1/merge`)).status).toBe(200);

    // Someone pushes to the upstream main directly; the mirror has not fetched since its merge.
    await clone.fetch();
    clone.checkout('main');
    clone.git(['reset', '--quiet', '--hard', 'origin/main']);
    const direct = clone.commit({ 'direct.txt': 'd\n' }, 'direct push');
    await clone.push('main');

    const merged = await svc.request('POST', `${crs(project)}/2/merge`);
    expect(merged.status, merged.text).toBe(200);
    const main = bareGit(upstreamRepo, ['rev-parse', 'refs/heads/main']);
    expect(main).toBe(merged.body.merge_commit_sha);
    bareGit(upstreamRepo, ['merge-base', '--is-ancestor', direct, main]);
    expect(merged.body.change_request.base_commit_sha).toBe(direct);
  });

  it('records the merge when the upstream took the push but the connection broke before it answered', async () => {
    const { project, clone, upstreamRepo } = await mirroredProject(upstream);
    const upstreamMain = clone.commit({ 'upstream-only.txt': 'u\n' }, 'upstream moves on');
    await clone.push('main');
    await svc.request('POST', crs(project), { body: { title: 'Cut off', head_ref: 'feature' } });
    // After the upstream has moved main, its receive-pack dies before reporting back: the push fails.
    fs.writeFileSync(path.join(upstreamRepo, 'hooks', 'post-receive'), '#!/bin/sh\nkill -9 $PPID\n', { mode: 0o755 });
    try {
      const merged = await svc.request('POST', `${crs(project)}/1/merge`);
      expect(merged.status, merged.text).toBe(200);
      const mergeSha = merged.body.merge_commit_sha as string;
      expect(bareGit(upstreamRepo, ['rev-parse', 'refs/heads/main'])).toBe(mergeSha);
      expect(bareGit(upstreamRepo, ['log', '-1', '--format=%P', mergeSha])).toBe(`${upstreamMain} ${merged.body.change_request.head_commit_sha}`);
      expect(merged.body).toMatchObject({ fast_forward: false, change_request: { status: 'merged', merge_commit_sha: mergeSha, base_commit_sha: upstreamMain } });
    } finally {
      fs.rmSync(path.join(upstreamRepo, 'hooks', 'post-receive'));
    }
    expect(await svc.server.services.db.selectFrom('merge_intents').selectAll().execute()).toEqual([]);
  });

  it('serves stored SHAs silently when the upstream is gone, and refuses writes with 502 UPSTREAM_UNAVAILABLE', async () => {
    // A mirror that is never fresh, so reads really try the upstream.
    const [doomed, svc] = await Promise.all([startTestServer(), startTestServer({ env: { SVC_MIRROR_MAX_AGE_MS: '0' } })]);
    onTestFinished(() => svc.close());
    const { project, clone } = await mirroredProject(doomed, svc);
    const created = await svc.request('POST', crs(project), { body: { title: 'stranded', head_ref: 'feature' } });
    expect(created.status).toBe(201);
    clone.checkout('other', 'main');
    clone.commit({ 'o.txt': 'o\n' });
    await clone.push('other');
    await doomed.close();

    const listed = await svc.request('GET', crs(project));
    expect(listed.status).toBe(200);
    expect(listed.body.change_requests[0].head_commit_sha).toBe(created.body.change_request.head_commit_sha);
    const read = await svc.request('GET', `${crs(project)}/1`);
    expect(read.status).toBe(200);
    expect(read.body.change_request).toEqual({ ...created.body.change_request });
    // Reads that need git fall back to the mirror's copy of the stored commits.
    expect((await svc.request('GET', `${crs(project)}/1/diff`)).status).toBe(200);
    expect((await svc.request('GET', `${crs(project)}/1/merge-preview`)).status).toBe(200);

    const merge = await svc.request('POST', `${crs(project)}/1/merge`);
    expect(merge.status).toBe(502);
    expect(merge.body.code).toBe('UPSTREAM_UNAVAILABLE');
    const create = await svc.request('POST', crs(project), { body: { title: 'x', head_ref: 'other' } });
    expect(create.status).toBe(502);
    expect((await svc.request('GET', `${crs(project)}/1`)).body.change_request.status).toBe('open');
  });
});
