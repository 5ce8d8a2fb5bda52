import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitError, PushRejectedError } from './errors.js';
import { prepareMerge } from './merge.js';
import { ensureMirror, fetchMirror, invalidateMirror, pushBranch } from './mirror.js';
import { listBranchTips } from './repository.js';
import { createWorkspace, git, gitAsync, removeTempDirs, startGitHttpServer, tempDir } from './testing/fixtures.js';

afterAll(removeTempDirs);

const SERVICE = { name: 'svc', email: 'noreply@svc.example' };

function tipsOf(bare: string): Record<string, string> {
  const lines = git(['--git-dir', bare, 'for-each-ref', '--format=%(refname:strip=2) %(objectname)', 'refs/heads/']);
  return Object.fromEntries(lines.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
}

describe('mirrors of a repository on a local path', () => {
  it('clones once, then fetches new, moved and deleted branches', async () => {
    const upstream = createWorkspace();
    upstream.checkout('sess-1');
    upstream.commit({ 'a.txt': 'a\n' });
    upstream.checkout('old');
    upstream.push('sess-1', 'old');
    upstream.git(['tag', 'v1']);
    upstream.git(['push', '--quiet', 'origin', 'v1']);
    const mirror = path.join(tempDir(), 'mirrors', 'p.git');

    expect(await ensureMirror(upstream.bare, mirror)).toEqual({ created: true });
    expect(Object.fromEntries(await listBranchTips(mirror))).toEqual(tipsOf(upstream.bare));
    expect(git(['--git-dir', mirror, 'tag', '--list'])).toBe('');
    expect(fs.readdirSync(path.dirname(mirror))).toEqual(['p.git']);
    expect(await ensureMirror(upstream.bare, mirror)).toEqual({ created: false });

    upstream.checkout('main');
    upstream.commit({ 'b.txt': 'b\n' });
    upstream.checkout('sess-2');
    upstream.commit({ 'c.txt': 'c\n' });
    upstream.push('main', 'sess-2');
    upstream.git(['push', '--quiet', 'origin', '--delete', 'old']);

    expect(await fetchMirror(mirror)).toEqual({ fetched: true });
    expect(Object.fromEntries(await listBranchTips(mirror))).toEqual(tipsOf(upstream.bare));
  });

  it('accepts file:// URLs and leaves nothing behind when the clone fails', async () => {
    const upstream = createWorkspace();
    const mirror = path.join(tempDir(), 'm.git');
    await ensureMirror(`file://${upstream.bare}`, mirror);
    expect(Object.fromEntries(await listBranchTips(mirror))).toEqual(tipsOf(upstream.bare));

    const parent = tempDir();
    await expect(ensureMirror(path.join(parent, 'does-not-exist.git'), path.join(parent, 'x.git'))).rejects.toBeInstanceOf(GitError);
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  it('skips a fresh mirror unless forced, and shares a fetch under way', async () => {
    const upstream = createWorkspace();
    const mirror = path.join(tempDir(), 'm.git');
    await ensureMirror(upstream.bare, mirror);
    // A clone that just happened is as fresh as a fetch.
    expect(await fetchMirror(mirror, { maxAgeMs: 60_000 })).toEqual({ fetched: false });
    invalidateMirror(mirror);
    expect(await fetchMirror(mirror, { maxAgeMs: 60_000 })).toEqual({ fetched: true });
    expect(await fetchMirror(mirror, { maxAgeMs: 60_000 })).toEqual({ fetched: false });

    const moved = upstream.commit({ 'late.txt': 'late\n' });
    upstream.push('main');
    expect(await fetchMirror(mirror, { maxAgeMs: 60_000, force: true })).toEqual({ fetched: true });
    expect((await listBranchTips(mirror)).get('main')).toBe(moved);

    invalidateMirror(mirror);
    const together = await Promise.all([fetchMirror(mirror), fetchMirror(mirror), fetchMirror(mirror, { force: true })]);
    expect(together.every((result) => result.fetched)).toBe(true);
  });

  it('pushes a merge computed on the mirror, without force', async () => {
    const upstream = createWorkspace({ 'shared.txt': 'x\n' });
    upstream.checkout('feature');
    const feature = upstream.commit({ 'feature.txt': 'f\n' }, 'feature');
    upstream.checkout('main');
    const main = upstream.commit({ 'main.txt': 'm\n' }, 'main');
    upstream.push('main', 'feature');
    const mirror = path.join(tempDir(), 'm.git');
    await ensureMirror(upstream.bare, mirror);

    const merge = await prepareMerge(mirror, { baseSha: main, headSha: feature, message: 'Merge CR #2: f', author: SERVICE });
    await pushBranch(mirror, upstream.bare, { sha: merge.commitSha, ref: 'refs/heads/main' });
    expect(upstream.tip('main')).toBe(merge.commitSha);
    expect(git(['--git-dir', upstream.bare, 'log', '-1', '--format=%P %an', 'main'])).toBe(`${main} ${feature} svc`);
  });

  it('maps a push refused because the remote moved to PushRejectedError, leaving the remote as it was', async () => {
    const upstream = createWorkspace();
    upstream.checkout('feature');
    const feature = upstream.commit({ 'f.txt': 'f\n' });
    upstream.checkout('main');
    const main = upstream.commit({ 'm.txt': 'm\n' });
    upstream.push('main', 'feature');
    const mirror = path.join(tempDir(), 'm.git');
    await ensureMirror(upstream.bare, mirror);
    const merge = await prepareMerge(mirror, { baseSha: main, headSha: feature, message: 'merge', author: SERVICE });

    const moved = upstream.commit({ 'late.txt': 'late\n' }, 'pushed meanwhile');
    upstream.push('main');
    await fetchMirror(mirror);
    const failure = await pushBranch(mirror, upstream.bare, { sha: merge.commitSha, ref: 'refs/heads/main' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PushRejectedError);
    expect((failure as PushRejectedError).reason).toMatch(/non-fast-forward|fetch first/);
    expect(upstream.tip('main')).toBe(moved);
  });
});

describe('mirrors over HTTPS-style token authentication', () => {
  it('send the token as Basic credentials from the environment, never in argv or config', async () => {
    const token = 'svc_p_secret-token-123';
    const upstream = path.join(tempDir(), 'up.git');
    // An upstream is any git host, not an svc-hosted repository (whose default branch refuses pushes).
    git(['init', '--quiet', '--bare', '--initial-branch=main', upstream]);
    const seed = createWorkspace({ 'seed.txt': 'seed\n' });
    seed.checkout('feature');
    const feature = seed.commit({ 'feature.txt': 'f\n' }, 'feature');
    seed.git(['push', '--quiet', upstream, 'refs/heads/main:refs/heads/main', 'refs/heads/feature:refs/heads/feature']);
    const main = seed.tip('main');
    const server = await startGitHttpServer({ repositories: { up: upstream }, token });
    const url = `${server.url}/up.git`;
    try {
      const mirror = path.join(tempDir(), 'm.git');
      // Without the token the server answers 401 and git fails at once instead of prompting.
      await expect(ensureMirror(url, mirror, { timeoutMs: 20_000 })).rejects.toBeInstanceOf(GitError);
      expect(fs.existsSync(mirror)).toBe(false);

      await ensureMirror(url, mirror, { token });
      expect(Object.fromEntries(await listBranchTips(mirror))).toEqual({ main, feature });
      const authorizations = server.requests.map((request) => request.headers.authorization).filter(Boolean);
      expect(authorizations.length).toBeGreaterThan(0);
      expect(new Set(authorizations)).toEqual(
        new Set([`Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`]),
      );
      expect(fs.readFileSync(path.join(mirror, 'config'), 'utf8')).not.toContain(token);
      expect(fs.readFileSync(path.join(mirror, 'config'), 'utf8')).not.toContain('extraHeader');

      // A new commit arrives through a normal user push; the mirror follows.
      const work = path.join(tempDir(), 'w');
      await gitAsync(['clone', '--quiet', `${server.url.replace('http://', `http://anyone:${token}@`)}/up.git`, work]);
      fs.writeFileSync(path.join(work, 'late.txt'), 'late\n');
      git(['-C', work, 'add', '.']);
      git(['-C', work, 'commit', '--quiet', '-m', 'late']);
      await gitAsync(['-C', work, 'push', '--quiet', 'origin', 'main']);
      await fetchMirror(mirror, { token, username: 'svc' });
      const movedMain = git(['-C', work, 'rev-parse', 'HEAD']);
      expect((await listBranchTips(mirror)).get('main')).toBe(movedMain);

      // Merge on the mirror and push it back through the server's receive-pack.
      const merge = await prepareMerge(mirror, { baseSha: movedMain, headSha: feature, message: 'Merge CR #3', author: SERVICE });
      await pushBranch(mirror, url, { sha: merge.commitSha, ref: 'refs/heads/main', token });
      expect(git(['--git-dir', upstream, 'rev-parse', 'refs/heads/main'])).toBe(merge.commitSha);

      // The hosted side refuses a non-fast-forward: pushing the pre-merge tip back is rejected, not forced.
      const stale = await pushBranch(mirror, url, { sha: movedMain, ref: 'refs/heads/main', token }).catch((error: unknown) => error);
      expect(stale).toBeInstanceOf(PushRejectedError);
      expect(git(['--git-dir', upstream, 'rev-parse', 'refs/heads/main'])).toBe(merge.commitSha);

      const failure = await fetchMirror(mirror, { token: 'wrong' }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(GitError);
      expect((failure as GitError).args.join(' ')).not.toContain('wrong');
    } finally {
      await server.close();
    }
  });
});
