import { afterAll, describe, expect, it } from 'vitest';
import { InvalidGitArgumentError, MergeConflictError, RefUpdateRaceError, UnrelatedHistoriesError } from './errors.js';
import { compareAndSwapRef, createMergeCommit, mergeIntoBranch, prepareMerge, previewMerge } from './merge.js';
import { createWorkspace, git, removeTempDirs, type Workspace } from './testing/fixtures.js';

afterAll(removeTempDirs);

const SERVICE = { name: 'svc', email: 'noreply@svc.example' };

/** main and feature diverge from a common commit, touching different files. */
function divergedWorkspace(): { workspace: Workspace; root: string; main: string; feature: string } {
  const workspace = createWorkspace({ 'shared.txt': 'one\ntwo\nthree\n' });
  const root = workspace.tip('main');
  workspace.checkout('feature');
  const feature = workspace.commit({ 'feature.txt': 'from feature\n', 'shared.txt': 'one\ntwo\nthree\nfour\n' }, 'feature work');
  workspace.checkout('main');
  const main = workspace.commit({ 'main.txt': 'from main\n' }, 'main work');
  workspace.push('main', 'feature');
  return { workspace, root, main, feature };
}

describe('previewMerge', () => {
  it('detects a fast-forward when head is strictly ahead', async () => {
    const workspace = createWorkspace();
    const base = workspace.tip('main');
    workspace.checkout('feature');
    const head = workspace.commit({ 'a.txt': 'a\n' });
    workspace.push('feature');
    expect(await previewMerge(workspace.bare, { baseSha: base, headSha: head })).toEqual({
      baseSha: base,
      headSha: head,
      mergeBase: base,
      isUpToDate: false,
      canFastForward: true,
      canMerge: true,
      unrelatedHistories: false,
      conflicts: [],
      treeSha: null,
    });
  });

  it('reports up to date when head is already in base, including head equal to base', async () => {
    const workspace = createWorkspace();
    const old = workspace.tip('main');
    const base = workspace.commit({ 'a.txt': 'a\n' });
    workspace.push('main');
    const behind = await previewMerge(workspace.bare, { baseSha: base, headSha: old });
    expect(behind).toMatchObject({ isUpToDate: true, canFastForward: false, canMerge: true, mergeBase: old });
    const same = await previewMerge(workspace.bare, { baseSha: base, headSha: base });
    expect(same).toMatchObject({ isUpToDate: true, canFastForward: false, canMerge: true });
  });

  it('computes a clean three-way merge tree', async () => {
    const { workspace, root, main, feature } = divergedWorkspace();
    const preview = await previewMerge(workspace.bare, { baseSha: main, headSha: feature });
    expect(preview).toMatchObject({ mergeBase: root, isUpToDate: false, canFastForward: false, canMerge: true, conflicts: [] });
    expect(preview.treeSha).toMatch(/^[0-9a-f]{40}$/);
    const files = git(['--git-dir', workspace.bare, 'ls-tree', '-r', '--name-only', preview.treeSha ?? '']).split('\n');
    expect(files.sort()).toEqual(['feature.txt', 'main.txt', 'shared.txt']);
  });

  it('lists content, add/add and modify/delete conflicts', async () => {
    const workspace = createWorkspace({ 'content.txt': 'line\n', 'doomed.txt': 'keep me\n', 'ok.txt': 'fine\n' });
    workspace.checkout('feature');
    const feature = workspace.commit(
      { 'content.txt': 'feature line\n', 'both-added.txt': 'feature version\n', 'doomed.txt': 'edited on feature\n' },
      'feature',
    );
    workspace.checkout('main');
    const main = workspace.commit(
      { 'content.txt': 'main line\n', 'both-added.txt': 'main version\n', 'doomed.txt': null, 'ok.txt': 'fine too\n' },
      'main',
    );
    workspace.push('main', 'feature');
    const preview = await previewMerge(workspace.bare, { baseSha: main, headSha: feature });
    expect(preview.canMerge).toBe(false);
    expect(preview.treeSha).toBeNull();
    expect([...preview.conflicts].sort()).toEqual(['both-added.txt', 'content.txt', 'doomed.txt']);
    await expect(
      prepareMerge(workspace.bare, { baseSha: main, headSha: feature, message: 'm', author: SERVICE }),
    ).rejects.toBeInstanceOf(MergeConflictError);
  });

  it('refuses unrelated histories: merge base null, not mergeable, no conflicts', async () => {
    const workspace = createWorkspace();
    const main = workspace.tip('main');
    workspace.orphan('foreign');
    const foreign = workspace.commit({ 'other.txt': 'x\n' }, 'foreign root');
    workspace.push('foreign');
    const preview = await previewMerge(workspace.bare, { baseSha: main, headSha: foreign });
    expect(preview).toMatchObject({
      mergeBase: null,
      unrelatedHistories: true,
      canMerge: false,
      canFastForward: false,
      isUpToDate: false,
      conflicts: [],
      treeSha: null,
    });
    await expect(
      mergeIntoBranch(workspace.bare, { branch: 'main', baseSha: main, headSha: foreign, message: 'm', author: SERVICE }),
    ).rejects.toBeInstanceOf(UnrelatedHistoriesError);
    expect(workspace.tip('main')).toBe(main);
  });

  it('takes only full object ids, so comparisons with the merge base are exact', async () => {
    const workspace = createWorkspace();
    await expect(previewMerge(workspace.bare, { baseSha: 'refs/heads/main', headSha: workspace.tip('main') })).rejects.toBeInstanceOf(
      InvalidGitArgumentError,
    );
  });
});

describe('merge commit and compare-and-swap', () => {
  it('writes a merge commit with both parents, the service identity, the message and the merged tree', async () => {
    const { workspace, main, feature } = divergedWorkspace();
    const preview = await previewMerge(workspace.bare, { baseSha: main, headSha: feature });
    const date = new Date('2024-05-06T07:08:09Z');
    const commit = await createMergeCommit(workspace.bare, {
      treeSha: preview.treeSha ?? '',
      parents: [main, feature],
      message: 'Merge CR #7: Add feature',
      author: SERVICE,
      date,
    });
    const bare = ['--git-dir', workspace.bare];
    expect(git([...bare, 'log', '-1', '--format=%P', commit])).toBe(`${main} ${feature}`);
    expect(git([...bare, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%at|%s', commit])).toBe(
      `svc <noreply@svc.example>|svc <noreply@svc.example>|${date.getTime() / 1000}|Merge CR #7: Add feature`,
    );
    expect(git([...bare, 'rev-parse', `${commit}^{tree}`])).toBe(preview.treeSha);
    expect(git([...bare, 'show', `${commit}:shared.txt`])).toBe('one\ntwo\nthree\nfour');
    expect(git([...bare, 'show', `${commit}:main.txt`])).toBe('from main');

    // Nothing moved yet; the CAS lands it.
    expect(workspace.tip('main')).toBe(main);
    await compareAndSwapRef(workspace.bare, { ref: 'refs/heads/main', newSha: commit, expectedOldSha: main });
    expect(workspace.tip('main')).toBe(commit);
  });

  it('refuses identities git would rewrite', async () => {
    const { workspace, main, feature } = divergedWorkspace();
    const preview = await previewMerge(workspace.bare, { baseSha: main, headSha: feature });
    await expect(
      createMergeCommit(workspace.bare, {
        treeSha: preview.treeSha ?? '',
        parents: [main, feature],
        message: 'x',
        author: { name: 'Evil <x@y>', email: 'e@x' },
      }),
    ).rejects.toBeInstanceOf(InvalidGitArgumentError);
  });

  it('loses the race when the ref moved: typed error, ref left where the other writer put it', async () => {
    const { workspace, main, feature } = divergedWorkspace();
    const merge = await prepareMerge(workspace.bare, { baseSha: main, headSha: feature, message: 'merge', author: SERVICE });
    // Someone pushes to main between the preview and the landing.
    workspace.checkout('main');
    const moved = workspace.commit({ 'late.txt': 'late\n' }, 'late push');
    workspace.push('main');

    const failure = await compareAndSwapRef(workspace.bare, {
      ref: 'refs/heads/main',
      newSha: merge.commitSha,
      expectedOldSha: main,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RefUpdateRaceError);
    expect(failure).toMatchObject({ ref: 'refs/heads/main', expectedOldSha: main, actualSha: moved });
    expect(workspace.tip('main')).toBe(moved);
  });

  it('creates a ref only when it does not exist yet', async () => {
    const workspace = createWorkspace();
    const sha = workspace.tip('main');
    await compareAndSwapRef(workspace.bare, { ref: 'refs/heads/new', newSha: sha, expectedOldSha: null });
    expect(workspace.tip('new')).toBe(sha);
    await expect(
      compareAndSwapRef(workspace.bare, { ref: 'refs/heads/new', newSha: sha, expectedOldSha: null }),
    ).rejects.toBeInstanceOf(RefUpdateRaceError);
  });
});

describe('mergeIntoBranch', () => {
  it('fast-forwards base to head', async () => {
    const workspace = createWorkspace();
    const base = workspace.tip('main');
    workspace.checkout('feature');
    const head = workspace.commit({ 'a.txt': 'a\n' });
    workspace.push('feature');
    const result = await mergeIntoBranch(workspace.bare, { branch: 'main', baseSha: base, headSha: head, message: 'm', author: SERVICE });
    expect(result).toMatchObject({ kind: 'fast-forward', commitSha: head });
    expect(workspace.tip('main')).toBe(head);
  });

  it('lands a three-way merge that a clone sees with git log', async () => {
    const { workspace, main, feature } = divergedWorkspace();
    const result = await mergeIntoBranch(workspace.bare, {
      branch: 'main',
      baseSha: main,
      headSha: feature,
      message: 'Merge CR #1: feature',
      author: SERVICE,
    });
    expect(result.kind).toBe('merge-commit');
    workspace.git(['pull', '--quiet', '--ff-only', 'origin', 'main']);
    expect(workspace.git(['log', '--format=%s', '--first-parent', 'main'])).toBe('Merge CR #1: feature\nmain work\ninitial');
    expect(workspace.git(['log', '--format=%s', 'main']).split('\n').sort()).toEqual(
      ['Merge CR #1: feature', 'feature work', 'initial', 'main work'].sort(),
    );
  });

  it('reuses a preview of the same commits and does nothing when up to date', async () => {
    const { workspace, main, feature } = divergedWorkspace();
    const preview = await previewMerge(workspace.bare, { baseSha: main, headSha: feature });
    const merged = await mergeIntoBranch(workspace.bare, {
      branch: 'main',
      baseSha: main,
      headSha: feature,
      message: 'merge',
      author: SERVICE,
      preview,
    });
    expect(merged.preview).toBe(preview);
    const again = await mergeIntoBranch(workspace.bare, {
      branch: 'main',
      baseSha: merged.commitSha,
      headSha: feature,
      message: 'merge',
      author: SERVICE,
    });
    expect(again).toMatchObject({ kind: 'up-to-date', commitSha: merged.commitSha });
    expect(workspace.tip('main')).toBe(merged.commitSha);
  });
});
