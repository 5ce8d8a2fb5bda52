import { afterAll, describe, expect, it } from 'vitest';
import { previewMergeConcurrently } from './concurrent-merge-preview.js';
import { RefNotFoundError } from './errors.js';
import { previewMerge } from './merge.js';
import { createWorkspace, removeTempDirs } from './testing/fixtures.js';

afterAll(removeTempDirs);

/** main and four branches off it: ahead, behind (up to date), clean diverged, conflicting, and an orphan. */
function scenarios() {
  const workspace = createWorkspace({ 'shared.txt': 'one\n' });
  const root = workspace.tip('main');
  workspace.checkout('ahead');
  const ahead = workspace.commit({ 'ahead.txt': 'a\n' });
  workspace.checkout('clean', root);
  const clean = workspace.commit({ 'clean.txt': 'c\n' });
  workspace.checkout('clash', root);
  const clash = workspace.commit({ 'shared.txt': 'clash\n' });
  workspace.checkout('main');
  const main = workspace.commit({ 'shared.txt': 'main\n' });
  workspace.orphan('stranger');
  const stranger = workspace.commit({ 'alien.txt': 'x\n' });
  workspace.push('main', 'ahead', 'clean', 'clash', 'stranger');
  return { repo: workspace.bare, root, main, ahead, clean, clash, stranger };
}

describe('previewMergeConcurrently', () => {
  const cases = scenarios();
  it.each([
    ['fast-forward', cases.root, cases.ahead],
    ['up to date', cases.main, cases.root],
    ['clean three-way merge', cases.main, cases.clean],
    ['conflict', cases.main, cases.clash],
    ['unrelated histories', cases.main, cases.stranger],
  ])('answers exactly like previewMerge for a %s', async (_, baseSha, headSha) => {
    const expected = await previewMerge(cases.repo, { baseSha, headSha });
    expect(await previewMergeConcurrently(cases.repo, { baseSha, headSha })).toEqual(expected);
  });

  it('names a missing commit', async () => {
    const missing = 'f'.repeat(40);
    await expect(previewMergeConcurrently(cases.repo, { baseSha: cases.main, headSha: missing })).rejects.toBeInstanceOf(RefNotFoundError);
  });
});
