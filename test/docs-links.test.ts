/**
 * The documentation that travels with the code: every block kind is documented with an example that is a
 * valid block, and every relative link of the README and docs/ leads to a file (and heading) that exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_KINDS } from '../src/dashboards/spec-schema.js';
import { validateDashboardSpec } from '../src/dashboards/validate-spec.js';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const dashboardsDoc = read('docs/dashboards.md');

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
}

const documents = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('docs/dashboards.md', () => {
  it('documents every block kind under a heading of its own', () => {
    const headings = [...dashboardsDoc.matchAll(/^### (\S+)$/gm)].map((match) => match[1]);
    expect(BLOCK_KINDS.filter((kind) => !headings.includes(kind))).toEqual([]);
  });

  it('gives an example of every block kind, and every example is a valid block', () => {
    const examples = [...dashboardsDoc.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1] ?? '') as { type?: string; slug?: string });
    const blocks = examples.filter((example) => example.type !== undefined);
    expect(new Set(blocks.map((block) => block.type))).toEqual(new Set(BLOCK_KINDS));
    for (const example of examples) {
      const document = example.slug ? example : { slug: 'example', title: 'Example', sections: [{ blocks: [example] }] };
      const result = validateDashboardSpec(document);
      expect(result.ok ? [] : result.issues, JSON.stringify(example).slice(0, 80)).toEqual([]);
    }
  });
});

describe('relative links', () => {
  it.each(documents)('in %s lead to files and headings that exist', (document) => {
    const text = read(document).replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z]+:/i.test(target)) continue;
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? path.join(root, document) : path.resolve(path.dirname(path.join(root, document)), file);
      if (!resolved.startsWith(`${root}${path.sep}`) || !fs.existsSync(resolved)) {
        broken.push(`${target} (no such file in the repository)`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsIn(fs.readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });
});
