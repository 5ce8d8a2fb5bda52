import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveBranchTips } from './branch-tips.js';
import { InvalidGitArgumentError } from './errors.js';
import { createWorkspace, git, removeTempDirs } from './testing/fixtures.js';

afterAll(removeTempDirs);

function repository() {
  const workspace = createWorkspace();
  const main = workspace.tip('main');
  workspace.checkout('feature/one');
  const feature = workspace.commit({ 'f.txt': 'f\n' });
  workspace.push('feature/one');
  return { repo: workspace.bare, main, feature };
}

describe('resolveBranchTips', () => {
  it('reads loose branches, including names with slashes', async () => {
    const { repo, main, feature } = repository();
    expect(await resolveBranchTips(repo, ['main', 'feature/one'])).toEqual(new Map([['main', main], ['feature/one', feature]]));
  });

  it('reads packed branches through git, and leaves out branches that do not exist', async () => {
    const { repo, main, feature } = repository();
    git(['--git-dir', repo, 'pack-refs', '--all']);
    expect(fs.existsSync(path.join(repo, 'refs/heads/main'))).toBe(false);
    expect(await resolveBranchTips(repo, ['main', 'feature/one'])).toEqual(new Map([['main', main], ['feature/one', feature]]));
    expect(await resolveBranchTips(repo, ['main', 'gone'])).toEqual(new Map([['main', main]]));
  });

  it('prefers a loose ref over a stale packed one, as git does', async () => {
    const { repo, main, feature } = repository();
    git(['--git-dir', repo, 'pack-refs', '--all']);
    git(['--git-dir', repo, 'update-ref', 'refs/heads/main', feature, main]);
    expect((await resolveBranchTips(repo, ['main'])).get('main')).toBe(feature);
  });

  it('refuses names that are not branch names before running anything', async () => {
    const { repo } = repository();
    await expect(resolveBranchTips(repo, ['--output=x'])).rejects.toBeInstanceOf(InvalidGitArgumentError);
    await expect(resolveBranchTips(repo, ['../../config'])).rejects.toBeInstanceOf(InvalidGitArgumentError);
  });
});
