import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidGitArgumentError, RefNotFoundError } from './errors.js';
import {
  countAhead,
  initBare,
  isAncestor,
  listBranchTips,
  mergeBase,
  readFileAtRef,
  readFilesAtRef,
  resolveRef,
  setDefaultBranch,
} from './repository.js';
import { createWorkspace, git, gitFails, removeTempDirs, tempDir } from './testing/fixtures.js';

afterAll(removeTempDirs);

describe('initBare', () => {
  it('creates a bare repository with the default branch and the hosted receive policy', async () => {
    const repo = path.join(tempDir(), 'nested', 'p.git');
    await initBare(repo, { defaultBranch: 'trunk' });
    expect(git(['--git-dir', repo, 'rev-parse', '--is-bare-repository'])).toBe('true');
    expect(git(['--git-dir', repo, 'symbolic-ref', 'HEAD'])).toBe('refs/heads/trunk');
    expect(git(['--git-dir', repo, 'config', 'receive.denyNonFastForwards'])).toBe('true');
    expect(fs.statSync(path.join(repo, 'hooks', 'pre-receive')).mode & 0o111).not.toBe(0);
    // Idempotent: running it again on the same path is harmless.
    await initBare(repo, { defaultBranch: 'trunk' });
    await setDefaultBranch(repo, 'main');
    expect(git(['--git-dir', repo, 'symbolic-ref', 'HEAD'])).toBe('refs/heads/main');
  });

  it('checks objects on receive, and its hook lets a push create the default branch but never move or delete it', async () => {
    const repo = path.join(tempDir(), 'hooked.git');
    await initBare(repo, { defaultBranch: 'main' });
    expect(git(['--git-dir', repo, 'config', 'receive.fsckObjects'])).toBe('true');
    const work = createWorkspace().work;
    const first = git(['rev-parse', 'HEAD'], { cwd: work });
    // A push that does not go through svc's smart-HTTP host (e.g. straight to the disk) meets the hook.
    git(['push', '--quiet', repo, 'HEAD:refs/heads/main'], { cwd: work });
    git(['commit', '--quiet', '--allow-empty', '-m', 'unreviewed'], { cwd: work });
    expect(gitFails(['push', repo, 'HEAD:refs/heads/main'], { cwd: work }).stderr).toContain(
      'svc: refs/heads/main is the default branch of this project; it changes only by merging a change request (svc cr open)',
    );
    expect(gitFails(['push', repo, ':refs/heads/main'], { cwd: work }).stderr).toContain('svc: refs/heads/main is the default branch of this project and cannot be deleted');
    expect(git(['--git-dir', repo, 'rev-parse', 'refs/heads/main'])).toBe(first);
    git(['push', '--quiet', repo, 'HEAD:refs/heads/other'], { cwd: work });
    git(['push', '--quiet', repo, ':refs/heads/other'], { cwd: work });
  });

  it('refuses a default branch that is not a branch name', async () => {
    await expect(initBare(path.join(tempDir(), 'x.git'), { defaultBranch: '--bare' })).rejects.toBeInstanceOf(
      InvalidGitArgumentError,
    );
  });
});

describe('branch tips', () => {
  it('resolves a branch, or null when it does not exist', async () => {
    const workspace = createWorkspace();
    expect(await resolveRef(workspace.bare, 'main')).toBe(workspace.tip('main'));
    expect(await resolveRef(workspace.bare, 'missing')).toBeNull();
    await expect(resolveRef(workspace.bare, '-x')).rejects.toBeInstanceOf(InvalidGitArgumentError);
  });

  it('lists every branch with one for-each-ref, including nested and unicode names', async () => {
    const workspace = createWorkspace();
    workspace.checkout('sess/01ABC');
    workspace.commit({ 'a.txt': 'a\n' });
    workspace.checkout('ünï', 'main');
    workspace.commit({ 'b.txt': 'b\n' });
    workspace.push('sess/01ABC', 'ünï');
    // A tag must not show up as a branch.
    workspace.git(['tag', 'v1']);
    workspace.git(['push', '--quiet', 'origin', 'v1']);
    const tips = await listBranchTips(workspace.bare);
    expect(Object.fromEntries(tips)).toEqual({
      main: workspace.tip('main'),
      'sess/01ABC': workspace.tip('sess/01ABC'),
      ünï: workspace.tip('ünï'),
    });
  });
});

describe('ancestry', () => {
  it('finds merge bases, ancestors and how far head is ahead', async () => {
    const workspace = createWorkspace();
    const root = workspace.tip('main');
    workspace.checkout('feature');
    workspace.commit({ 'f1.txt': '1\n' });
    const feature = workspace.commit({ 'f2.txt': '2\n' });
    workspace.checkout('main');
    const main = workspace.commit({ 'm.txt': 'm\n' });
    workspace.push('main', 'feature');

    expect(await mergeBase(workspace.bare, main, feature)).toBe(root);
    expect(await isAncestor(workspace.bare, root, feature)).toBe(true);
    expect(await isAncestor(workspace.bare, main, feature)).toBe(false);
    expect(await isAncestor(workspace.bare, feature, feature)).toBe(true);
    expect(await countAhead(workspace.bare, main, feature)).toBe(2);
    expect(await countAhead(workspace.bare, feature, main)).toBe(1);
    expect(await countAhead(workspace.bare, 'refs/heads/main', 'refs/heads/main')).toBe(0);
  });

  it('answers null for the merge base of unrelated histories', async () => {
    const workspace = createWorkspace();
    workspace.orphan('other');
    const other = workspace.commit({ 'o.txt': 'o\n' }, 'unrelated root');
    workspace.push('other');
    expect(await mergeBase(workspace.bare, workspace.tip('main'), other)).toBeNull();
    expect(await isAncestor(workspace.bare, workspace.tip('main'), other)).toBe(false);
  });

  it('says which revision does not exist', async () => {
    const workspace = createWorkspace();
    const missing = 'f'.repeat(40);
    const failure = await mergeBase(workspace.bare, workspace.tip('main'), missing).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RefNotFoundError);
    expect((failure as RefNotFoundError).missing).toEqual([missing]);
    await expect(countAhead(workspace.bare, 'refs/heads/main', 'refs/heads/gone')).rejects.toBeInstanceOf(RefNotFoundError);
  });
});

describe('readFileAtRef', () => {
  it('reads text at a commit, and null for missing files and directories', async () => {
    const workspace = createWorkspace({
      'svc.yaml': 'name: demo\n',
      'dir/na me é.txt': 'spaced ✓\n',
    });
    const sha = workspace.tip('main');
    expect(await readFileAtRef(workspace.bare, sha, 'svc.yaml')).toBe('name: demo\n');
    expect(await readFileAtRef(workspace.bare, 'refs/heads/main', 'dir/na me é.txt')).toBe('spaced ✓\n');
    expect(await readFileAtRef(workspace.bare, sha, 'svc.toml')).toBeNull();
    expect(await readFileAtRef(workspace.bare, sha, 'dir')).toBeNull();
    const both = await readFilesAtRef(workspace.bare, sha, ['svc.yaml', 'svc.toml', 'dir/na me é.txt']);
    expect([...both.keys()]).toEqual(['svc.yaml', 'dir/na me é.txt']);
  });

  it('reads binary content exactly and refuses a revision that does not exist', async () => {
    const bytes = Buffer.from([0, 1, 2, 10, 255, 10, 0]);
    const workspace = createWorkspace({ 'b.bin': bytes });
    const files = await readFilesAtRef(workspace.bare, workspace.tip('main'), ['b.bin']);
    expect(files.get('b.bin')).toEqual(bytes);
    await expect(readFileAtRef(workspace.bare, 'a'.repeat(40), 'svc.yaml')).rejects.toBeInstanceOf(RefNotFoundError);
    await expect(readFileAtRef(workspace.bare, 'main', 'svc.yaml')).rejects.toBeInstanceOf(InvalidGitArgumentError);
  });
});
