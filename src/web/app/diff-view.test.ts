import { describe, expect, it } from 'vitest';
import type { ChangeRequestDiff } from '../../changes/diff-change-request.js';
import { COLLAPSE_FROM_LINES, fileAnchor, renderDiff } from './diff-view.js';

const PATCH = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,3 +1,3 @@',
  ' const keep = 1;',
  '-const old = "<b>";',
  '+const neu = "<i>";',
  ' const end = 3;',
  '\\ No newline at end of file',
  'diff --git a/logo.png b/logo.png',
  'new file mode 100644',
  'index 0000000..3333333',
  'Binary files /dev/null and b/logo.png differ',
  '',
].join('\n');

function diffOf(files: ChangeRequestDiff['files'], patch = PATCH): ChangeRequestDiff {
  return { files, additions: 1, deletions: 1, patch, truncated: files.some((file) => file.note !== undefined) };
}

const A = { path: 'src/a.ts', old_path: 'src/a.ts', status: 'modified' as const, additions: 1, deletions: 1 };
const LOGO = { path: 'logo.png', old_path: 'logo.png', status: 'added' as const, additions: 0, deletions: 0 };

describe('renderDiff', () => {
  it('numbers old and new lines, escapes the code, and says when a file is binary', () => {
    const { files, tree } = renderDiff(diffOf([A, LOGO]), 'unified');
    expect(files).toContain('data-n="2"');
    expect(files).toContain('&lt;b&gt;');
    expect(files).not.toContain('<b>');
    expect(files).toContain('Binary file; its contents are not shown.');
    expect(tree).toContain(`href="#${fileAnchor('src/a.ts')}"`);
    expect(files).toContain(`id="${fileAnchor('src/a.ts')}"`);
  });

  it('pairs a removed line with the added one beside it in the split view', () => {
    const { files } = renderDiff(diffOf([A, LOGO]), 'split');
    const row = /<tr><td class="dn dd" data-n="2"><\/td><td class="side dd">(.*?)<\/td><td class="dn da" data-n="2"><\/td><td class="side da">(.*?)<\/td><\/tr>/.exec(files);
    expect(row?.[1]).toContain('old');
    expect(row?.[2]).toContain('neu');
  });

  it('shows a file svc left out with its note, and keeps the next file matched to its own patch', () => {
    const left = { ...A, path: 'big.txt', old_path: 'big.txt', note: 'Large diff not shown: over the limit.' };
    const { files } = renderDiff(diffOf([left, A, LOGO]), 'unified');
    expect(files).toContain('Large diff not shown: over the limit.');
    const ownSection = files.slice(files.indexOf(`id="${fileAnchor('src/a.ts')}"`));
    expect(ownSection.replace(/<[^>]+>/g, '')).toContain('const keep = 1;');
  });

  it('collapses generated files and files with many changed lines', () => {
    const lock = { path: 'package-lock.json', old_path: 'package-lock.json', status: 'modified' as const, additions: 1, deletions: 1 };
    const large = { ...A, additions: COLLAPSE_FROM_LINES, deletions: 1 };
    const lockPatch = PATCH.replaceAll('src/a.ts', 'package-lock.json');
    expect(renderDiff(diffOf([lock, LOGO], lockPatch), 'unified').files).toMatch(/<details><summary[^>]*>.*generated/);
    expect(renderDiff(diffOf([large, LOGO]), 'unified').files).toMatch(/<details><summary[^>]*>.*large/);
    expect(renderDiff(diffOf([A, LOGO]), 'unified').files).toContain('<details open>');
  });
});
