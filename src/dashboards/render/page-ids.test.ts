/**
 * Ids on a dashboard page: those the spec gives (any string, spec 1 sets no pattern) and those the page
 * mints for its own references (table filter and "show all", chart summaries, section headings, SVG
 * clip paths and gradients). Every reference must reach the element it was minted for.
 */
import { describe, expect, it } from 'vitest';
import type { Block, Section } from '../spec-schema.js';
import { renderDashboard } from './render-dashboard.js';

function render(sections: Section[], layout: 'grid' | 'report' = 'grid'): string {
  return renderDashboard({ slug: 'ids', title: 'Ids', layout, sections }, { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' }).html;
}

/** The tag name of each element with an id, by id; ids given twice are listed twice. */
function elementsById(html: string): Array<[string, string]> {
  return [...html.matchAll(/<([a-zA-Z][\w-]*)\b[^>]*? id="([^"]*)"/g)].map((match) => [match[2] ?? '', match[1] ?? '']);
}

/** [attribute, id referred to] for every reference by id in the page. */
function references(html: string): Array<[string, string]> {
  return [...html.matchAll(/(aria-describedby|aria-labelledby|for|data-table|href)="#?([^"]*)"|url\(#([^)]+)\)/g)]
    .filter((match) => match[1] !== 'href' || match[0].startsWith('href="#'))
    .map((match) => [match[1] ?? 'url', match[2] ?? match[3] ?? '']);
}

const EXPECTED_TARGET: Record<string, RegExp> = {
  'aria-describedby': /^p$/,
  'aria-labelledby': /^h2$/,
  for: /^input$/,
  'data-table': /^table$/,
  url: /^(?:clipPath|linearGradient|radialGradient|pattern|filter)$/,
  href: /^section$/,
};

function expectIdsUniqueAndReferencesRight(html: string): void {
  const elements = elementsById(html);
  const ids = elements.map(([id]) => id);
  expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  const byId = new Map(elements);
  for (const [attribute, id] of references(html)) {
    expect(byId.get(id), `${attribute}="${id}"`).toMatch(EXPECTED_TARGET[attribute] ?? /^$/);
  }
}

const rows = Array.from({ length: 260 }, (_, index) => ({ name: `row ${index}`, value: index }));
const PAGE_BLOCKS: Block[] = [
  { type: 'table', searchable: true, columns: [{ key: 'name', label: 'Name' }, { key: 'value', label: 'Value' }], rows },
  { type: 'chart', kind: 'area', categories: ['a', 'b', 'c'], series: [{ name: 's', data: [1, 3, 2] }] },
  { type: 'gauge', value: 40 },
];

describe('ids on a dashboard page', () => {
  it('keeps a searchable table reachable when a paragraph before it takes the id the table would have had', () => {
    const html = render([{ blocks: [{ type: 'paragraph', id: 'svc-table-2', text: 'Before the table.' }, ...PAGE_BLOCKS] }]);
    const tableId = /<input type="search" class="tbl-search" data-table="([^"]+)"/.exec(html)?.[1];
    expect(tableId).toBeDefined();
    expect(html).toContain(`<table class="tbl paged" id="${tableId}"`);
    expectIdsUniqueAndReferencesRight(html);
  });

  it('mints no id that a spec id already takes, whichever ids the spec chose', () => {
    const sections: Section[] = [{ title: 'First', blocks: PAGE_BLOCKS }, { title: 'Second', blocks: PAGE_BLOCKS }, { title: 'Third', blocks: [] }];
    const plain = render(sections, 'report');
    expectIdsUniqueAndReferencesRight(plain);
    // Every id the page minted, and the default section anchors, now also given by the spec.
    const taken = elementsById(plain).map(([id]) => id);
    expect(taken).toEqual(expect.arrayContaining(['section-1', 'svc-table-2', 'svc-table-all-3']));
    const squatters: Block[] = taken.map((id) => ({ type: 'paragraph', id, text: id }));
    const html = render([{ title: 'First', blocks: [...squatters, ...PAGE_BLOCKS] }, { title: 'Second', blocks: PAGE_BLOCKS }, { title: 'Third', blocks: [] }], 'report');
    // The first section's anchor is taken by a paragraph: the section and its contents entry get another.
    expectIdsUniqueAndReferencesRight(html);
    expect(html).not.toMatch(/<section class="sec" id="section-1"/);
    expect(html).toMatch(/<a href="#svc-section-\d+">First<\/a>/);
  });

  it('gives two drawings of the same chart their own clip paths', () => {
    const chart: Block = { type: 'chart', kind: 'line', categories: ['a', 'b'], series: [{ name: 's', data: [1, 2] }] };
    const html = render([{ blocks: [chart, chart] }]);
    expect(html.match(/<clipPath /g)?.length).toBeGreaterThanOrEqual(4);
    expectIdsUniqueAndReferencesRight(html);
  });
});
