import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffBetween, diffBetweenWithinLimits, diffThreeDot, emptyTreeId, parseDiffTreeOutput } from './diff.js';
import { RefNotFoundError } from './errors.js';
import { createWorkspace, git, removeTempDirs } from './testing/fixtures.js';

afterAll(removeTempDirs);

describe('diffThreeDot', () => {
  it('shows what head changed since it left base, excluding later changes on base', async () => {
    const workspace = createWorkspace({ 'keep.txt': 'a\nb\nc\n', 'drop.txt': 'bye\n' });
    const root = workspace.tip('main');
    workspace.checkout('feature');
    const head = workspace.commit({ 'keep.txt': 'a\nB\nc\nd\n', 'drop.txt': null, 'new.txt': 'x\ny\n' }, 'feature');
    workspace.checkout('main');
    const base = workspace.commit({ 'base-only.txt': 'landed on main later\n', 'keep.txt': 'a\nb\nc\n\n' }, 'main moved');
    workspace.push('main', 'feature');

    const threeDot = await diffThreeDot(workspace.bare, { baseSha: base, headSha: head });
    expect(threeDot.mergeBase).toBe(root);
    expect(threeDot.files).toEqual([
      { path: 'drop.txt', old_path: 'drop.txt', status: 'deleted', additions: 0, deletions: 1 },
      { path: 'keep.txt', old_path: 'keep.txt', status: 'modified', additions: 2, deletions: 1 },
      { path: 'new.txt', old_path: 'new.txt', status: 'added', additions: 2, deletions: 0 },
    ]);
    expect(threeDot.additions).toBe(4);
    expect(threeDot.deletions).toBe(2);
    expect(threeDot.patch).toContain('diff --git a/keep.txt b/keep.txt');
    expect(threeDot.patch).toContain('+B');
    expect(threeDot.patch).not.toContain('base-only.txt');

    // The two-dot diff between the same tips also shows base's own change, reversed.
    const twoDot = await diffBetween(workspace.bare, { fromSha: base, toSha: head });
    expect(twoDot.files.map((file) => `${file.status} ${file.path}`)).toEqual([
      'deleted base-only.txt',
      'deleted drop.txt',
      'modified keep.txt',
      'added new.txt',
    ]);

    // Same answer as the git CLI.
    expect(threeDot.patch).toBe(
      `${git(['--git-dir', workspace.bare, 'diff', '--no-renames', '--no-color', `${base}...${head}`])}\n`,
    );
  });

  it('reuses a known merge base and diffs unrelated histories from the empty tree', async () => {
    const workspace = createWorkspace();
    const main = workspace.tip('main');
    workspace.orphan('foreign');
    const foreign = workspace.commit({ 'f.txt': 'one\ntwo\n' }, 'foreign root');
    workspace.push('foreign');
    const diff = await diffThreeDot(workspace.bare, { baseSha: main, headSha: foreign });
    expect(diff.mergeBase).toBeNull();
    expect(diff.files).toEqual([{ path: 'f.txt', old_path: 'f.txt', status: 'added', additions: 2, deletions: 0 }]);
    const given = await diffThreeDot(workspace.bare, { baseSha: main, headSha: foreign, mergeBase: null });
    expect(given).toEqual(diff);
  });
});

describe('diffBetween', () => {
  it('counts binary files as 0/0 and keeps spaces and unicode in paths', async () => {
    const workspace = createWorkspace({ 'plain.txt': 'x\n' });
    const from = workspace.tip('main');
    const to = workspace.commit(
      {
        'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0xff]),
        'docs/ün ïcode file.md': 'héllo\nwörld\n',
        'tab\there.txt': 'tabbed\n',
      },
      'assets',
    );
    workspace.push('main');
    const diff = await diffBetween(workspace.bare, { fromSha: from, toSha: to });
    expect(diff.files).toEqual([
      { path: 'docs/ün ïcode file.md', old_path: 'docs/ün ïcode file.md', status: 'added', additions: 2, deletions: 0 },
      { path: 'image.png', old_path: 'image.png', status: 'added', additions: 0, deletions: 0 },
      { path: 'tab\there.txt', old_path: 'tab\there.txt', status: 'added', additions: 1, deletions: 0 },
    ]);
    expect(diff.patch).toContain('Binary files /dev/null and b/image.png differ');
    expect(diff.patch).toContain('+++ b/docs/ün ïcode file.md');
  });

  it('shows a rename as a deletion plus an addition', async () => {
    const workspace = createWorkspace({ 'old name.txt': 'same content\nline 2\n' });
    const from = workspace.tip('main');
    workspace.git(['mv', 'old name.txt', 'new name.txt']);
    const to = workspace.commit({}, 'rename');
    workspace.push('main');
    const diff = await diffBetween(workspace.bare, { fromSha: from, toSha: to });
    expect(diff.files).toEqual([
      { path: 'new name.txt', old_path: 'new name.txt', status: 'added', additions: 2, deletions: 0 },
      { path: 'old name.txt', old_path: 'old name.txt', status: 'deleted', additions: 0, deletions: 2 },
    ]);
  });

  it('is empty for identical commits and typed for missing ones', async () => {
    const workspace = createWorkspace();
    const sha = workspace.tip('main');
    expect(await diffBetween(workspace.bare, { fromSha: sha, toSha: sha })).toEqual({
      files: [],
      additions: 0,
      deletions: 0,
      patch: '',
    });
    await expect(diffBetween(workspace.bare, { fromSha: sha, toSha: 'e'.repeat(40) })).rejects.toBeInstanceOf(RefNotFoundError);
  });

  it('treats a mode change as modified with no lines', async () => {
    const workspace = createWorkspace({ 'run.sh': 'echo hi\n' });
    const from = workspace.tip('main');
    workspace.git(['update-index', '--chmod=+x', 'run.sh']);
    workspace.git(['commit', '--quiet', '-m', 'chmod']);
    const to = workspace.git(['rev-parse', 'HEAD']);
    workspace.push('main');
    const diff = await diffBetween(workspace.bare, { fromSha: from, toSha: to });
    expect(diff.files).toEqual([{ path: 'run.sh', old_path: 'run.sh', status: 'modified', additions: 0, deletions: 0 }]);
  });
});

describe('diffBetweenWithinLimits', () => {
  it('leaves out the patch of each file over the per-file limit, telling a type change (two sections) from the files around it', async () => {
    const workspace = createWorkspace({ 'a-link': 'target\n', 'b-big.txt': 'small\n', 'c.txt': 'c\n' });
    const from = workspace.tip('main');
    // a-link becomes a symlink: git writes its deletion and its creation as two sections.
    workspace.git(['rm', '--quiet', 'a-link']);
    workspace.git(['-c', 'core.symlinks=true', 'commit', '--quiet', '-m', 'drop']);
    fs.symlinkSync('c.txt', path.join(workspace.work, 'a-link'));
    const to = workspace.commit({ 'b-big.txt': 'line\n'.repeat(2_000), 'c.txt': 'c\nd\n' }, 'grow');
    workspace.push('main');

    const whole = await diffBetween(workspace.bare, { fromSha: from, toSha: to });
    const limited = await diffBetweenWithinLimits(workspace.bare, { fromSha: from, toSha: to, limits: { maxFileBytes: 4_096, maxBytes: 1_000_000 } });
    expect(limited.files).toEqual(whole.files);
    expect(limited.files.map((file) => [file.path, file.status])).toEqual([['a-link', 'modified'], ['b-big.txt', 'modified'], ['c.txt', 'modified']]);
    expect(limited.omitted).toEqual([{ index: 1, reason: 'file-too-large', bytes: expect.any(Number) }]);
    expect(limited.omitted[0]?.bytes).toBeGreaterThan(10_000);
    expect(limited.patch).toBe(whole.patch.replace(/diff --git a\/b-big\.txt[\s\S]*?(?=diff --git a\/c\.txt)/, ''));
    expect(limited.patch.match(/^diff --git a\/a-link/gm)).toHaveLength(2);

    const stopped = await diffBetweenWithinLimits(workspace.bare, { fromSha: from, toSha: to, limits: { maxFileBytes: 4_096, maxBytes: 200 } });
    expect(stopped.omitted.map((file) => [file.index, file.reason])).toEqual([[0, 'diff-too-large'], [1, 'diff-too-large'], [2, 'diff-too-large']]);
    expect(stopped.patch).toBe('');
  });
});

describe('helpers', () => {
  it('knows the empty tree ids', () => {
    expect(emptyTreeId(40)).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    expect(emptyTreeId(64)).toBe('6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321');
  });

  it('parses empty output', () => {
    expect(parseDiffTreeOutput(Buffer.alloc(0))).toEqual({ files: [], additions: 0, deletions: 0, patch: '' });
  });
});
