/**
 * What a publisher sees when a spec is wrong: the path of each issue and the sentence that explains it.
 * Field-by-field constraints are in spec-schema.test.ts; this file covers the validator's behaviour.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { MAX_ISSUES, type Issue } from '../errors.js';
import { BLOCK_KINDS, type DashboardSpec } from './spec-schema.js';
import { validateDashboardSpec } from './validate-spec.js';
import { validBlocks } from './fixtures/valid-blocks.js';
import { buildTypicalSpec } from './fixtures/specs.js';

const KIND_LIST = BLOCK_KINDS.join(', ');
const CELL = 'a string, a number, null or a cell object {value, tone, badge, spark, href, bar}';

function specWithBlocks(...blocks: unknown[]): Record<string, unknown> {
  return { slug: 'report', title: 'Report', sections: [{ blocks }] };
}

function issuesOf(document: unknown): Issue[] {
  const result = validateDashboardSpec(document);
  return result.ok ? [] : result.issues;
}

function tableWithRow(row: Record<string, unknown>): Record<string, unknown> {
  return specWithBlocks({ type: 'table', columns: [{ key: 'a', label: 'A' }], rows: [row] });
}

/** An object nested `levels` deep: {"a": {"a": … {}}}; the outer object is level 1. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
}

describe('a valid spec', () => {
  it('comes back as the same object, typed', () => {
    const spec = buildTypicalSpec();
    const result = validateDashboardSpec(spec);
    expect(result).toEqual({ ok: true, spec });
    if (result.ok) {
      expect(result.spec).toBe(spec);
      expectTypeOf(result.spec).toEqualTypeOf<DashboardSpec>();
    }
  });
});

describe('the top level', () => {
  it('requires slug and title', () => {
    expect(issuesOf({})).toEqual([
      { path: '/slug', message: 'required property "slug" is missing.' },
      { path: '/title', message: 'required property "title" is missing.' },
    ]);
  });

  it('rejects an unknown property at its own path, listing the allowed ones', () => {
    expect(issuesOf({ slug: 'a', title: 'A', colour: 'red' })).toEqual([
      {
        path: '/colour',
        message:
          'unknown property "colour" is not allowed on the dashboard spec; allowed: slug, title, subtitle, order, tone, group, groupOrder, layout, svc, meta, highlights, sections.',
      },
    ]);
  });

  it.each([
    ['null', null, 'null'],
    ['undefined', undefined, 'nothing'],
    ['a string', 'hello', '"hello"'],
    ['a number', 42, '42'],
    ['a boolean', true, 'true'],
    ['an array', [{ slug: 'a', title: 'A' }], 'an array'],
  ])('answers %s with one issue about the whole document', (_label, input, got) => {
    const issues = issuesOf(input);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('');
    expect(issues[0]?.message).toBe(
      `must be a dashboard spec {slug, title, subtitle, order, tone, group, groupOrder, layout, svc, meta, highlights, sections} (got ${got}).`,
    );
  });
});

describe('block kinds', () => {
  it('reports an unknown type once, at the type, naming it and listing the kinds', () => {
    // The other fields are not checked against any kind: one issue, not 31 alternatives.
    const issues = issuesOf(specWithBlocks(validBlocks.stat, { type: 'bogus', colour: 1, data: 'x' }));
    expect(issues).toEqual([{ path: '/sections/0/blocks/1/type', message: `"bogus" is not a block kind; use one of: ${KIND_LIST}.` }]);
  });

  it('suggests the one kind a borrowed or mistyped name means, instead of listing them all', () => {
    const suggested = (type: string) => issuesOf(specWithBlocks({ type, text: 'x' }))[0]?.message;
    expect(suggested('markdown')).toBe('"markdown" is not a block kind; did you mean "prose"?');
    expect(suggested('bars')).toBe('"bars" is not a block kind; did you mean "chart"?');
    expect(suggested('tabel')).toBe('"tabel" is not a block kind; did you mean "table"?');
    expect(suggested('Callout')).toBe('"Callout" is not a block kind; did you mean "callout"?');
  });

  it("reports a missing type at the block's /type", () => {
    expect(issuesOf(specWithBlocks({ label: 'Builds', value: 3 }))).toEqual([
      { path: '/sections/0/blocks/0/type', message: `required property "type" is missing; it names the block kind, one of: ${KIND_LIST}.` },
    ]);
  });

  it('reports a type that is not a string at the type', () => {
    expect(issuesOf(specWithBlocks({ type: ['stat'] }))).toEqual([
      { path: '/sections/0/blocks/0/type', message: `must be a string naming the block kind (got an array); use one of: ${KIND_LIST}.` },
    ]);
  });

  it('checks a known kind against that kind only', () => {
    const issues = issuesOf(specWithBlocks({ type: 'stat', label: 'Builds' }));
    expect(issues).toEqual([{ path: '/sections/0/blocks/0/value', message: 'required property "value" is missing.' }]);
  });

  it('reports a block that is not an object', () => {
    expect(issuesOf(specWithBlocks('stat'))).toEqual([{ path: '/sections/0/blocks/0', message: 'must be a block object (got "stat").' }]);
  });
});

describe('messages', () => {
  it('match the examples a publisher is promised', () => {
    const issues = issuesOf(
      specWithBlocks(
        { type: 'banner', tone: 'green' },
        { type: 'stat', label: 'x'.repeat(245), value: 1, colour: 'red', span: 30 },
        { type: 'figure', url: 'not a url', alt: 'Diagram' },
      ),
    );
    expect(issues).toEqual([
      { path: '/sections/0/blocks/0/headline', message: 'required property "headline" is missing.' },
      { path: '/sections/0/blocks/0/tone', message: 'must be one of: neutral, positive, warning, danger, info, accent (got "green").' },
      {
        path: '/sections/0/blocks/1/colour',
        message:
          'unknown property "colour" is not allowed on a stat block; allowed: id, span, rowSpan, colStart, rowStart, align, hidden, only, minHeight, title, caption, type, label, value, sublabel, delta, tone, rail, spark.',
      },
      { path: '/sections/0/blocks/1/span', message: 'must be an integer from 1 to 24 (got 30).' },
      { path: '/sections/0/blocks/1/label', message: 'must be at most 120 characters long (it has 245).' },
      { path: '/sections/0/blocks/2/url', message: 'must be a valid URI such as https://example.com/x (got "not a url").' },
    ]);
    expect(issuesOf({ slug: 'a', title: 'A', svc: { projectId: 'abc' } })).toEqual([
      { path: '/svc/projectId', message: 'must be a UUID (got "abc").' },
    ]);
  });

  it('say a number breaking both its type and its range once', () => {
    expect(issuesOf(specWithBlocks({ ...validBlocks.stat, span: 30.5 }))).toEqual([
      { path: '/sections/0/blocks/0/span', message: 'must be an integer from 1 to 24 (got 30.5).' },
    ]);
  });

  it('count characters, not UTF-16 units', () => {
    expect(issuesOf(specWithBlocks({ ...validBlocks.stat, label: '👍'.repeat(120) }))).toEqual([]);
    expect(issuesOf(specWithBlocks({ ...validBlocks.stat, label: '👍'.repeat(121) }))).toEqual([
      { path: '/sections/0/blocks/0/label', message: 'must be at most 120 characters long (it has 121).' },
    ]);
  });

  it('quote a long offending value only in part', () => {
    const [issue] = issuesOf(specWithBlocks({ ...validBlocks.stat, tone: 'g'.repeat(10_000) }));
    expect(issue?.message).toMatch(/^must be one of: .+ \(got "g{60}…"\)\.$/);
  });

  it('escape ~ and / in paths (RFC 6901)', () => {
    expect(issuesOf(tableWithRow({ 'a/b~c': [] }))).toEqual([
      { path: '/sections/0/blocks/0/rows/0/a~1b~0c', message: `must be ${CELL} (got an array).` },
    ]);
    expect(issuesOf({ slug: 'a', title: 'A', 'x/y': 1 })[0]?.path).toBe('/x~1y');
  });

  it('quote unknown property names as JSON, shortened', () => {
    const [quoted] = issuesOf({ slug: 'a', title: 'A', 'say "hi"\n': 1 });
    expect(quoted?.message).toMatch(/^unknown property "say \\"hi\\"\\n" is not allowed on the dashboard spec;/);
    const [long] = issuesOf({ slug: 'a', title: 'A', ['k'.repeat(1000)]: 1 });
    expect(long?.message).toMatch(/^unknown property "k{60}…" is not allowed/);
  });

  it('come in document order', () => {
    const issues = issuesOf(specWithBlocks({ ...validBlocks.stat, tone: 'x' }, { ...validBlocks.gauge, tone: 'x' }, { ...validBlocks.pills, solid: 'x' }));
    expect(issues.map((issue) => issue.path)).toEqual([
      '/sections/0/blocks/0/tone',
      '/sections/0/blocks/1/tone',
      '/sections/0/blocks/2/solid',
    ]);
  });
});

describe('table values (string, number, null or cell object)', () => {
  it('accept every form', () => {
    expect(issuesOf(tableWithRow({ a: 'x', b: 1.5, c: null, d: { value: null }, e: { value: 'x', tone: 'info', badge: true, spark: [1], href: 'https://x.io', bar: 1 } }))).toEqual([]);
  });

  it.each([
    ['an array', [], 'an array'],
    ['a boolean', true, 'true'],
    ['an object with other keys', { amount: 3, unit: 'ms' }, 'an object with keys "amount", "unit"'],
    ['an empty object', {}, 'an empty object'],
  ])('explain %s in one sentence', (_label, value, got) => {
    expect(issuesOf(tableWithRow({ a: value }))).toEqual([{ path: '/sections/0/blocks/0/rows/0/a', message: `must be ${CELL} (got ${got}).` }]);
  });

  it('report the problems of something close to a cell object as the cell object’s own', () => {
    expect(issuesOf(tableWithRow({ a: { value: 3, colour: 'red', bar: 1.5 } }))).toEqual([
      {
        path: '/sections/0/blocks/0/rows/0/a/colour',
        message: 'unknown property "colour" is not allowed on a cell object; allowed: value, tone, badge, spark, href, bar.',
      },
      { path: '/sections/0/blocks/0/rows/0/a/bar', message: 'must be a number from 0 to 1 (got 1.5).' },
    ]);
    expect(issuesOf(tableWithRow({ a: { tone: 'danger' } }))).toEqual([
      { path: '/sections/0/blocks/0/rows/0/a/value', message: 'required property "value" is missing.' },
    ]);
    expect(issuesOf(tableWithRow({ a: { value: [1], href: 'not a url', spark: ['1'] } }))).toEqual([
      { path: '/sections/0/blocks/0/rows/0/a/value', message: 'must be a string, a number or null (got an array).' },
      { path: '/sections/0/blocks/0/rows/0/a/spark/0', message: 'must be a number (got "1").' },
      { path: '/sections/0/blocks/0/rows/0/a/href', message: 'must be a valid URI such as https://example.com/x (got "not a url").' },
    ]);
  });

  it('apply to the footer too', () => {
    const table = { ...validBlocks.table, footer: { total: [1, 2], note: 'ok' } };
    expect(issuesOf(specWithBlocks(table))).toEqual([{ path: '/sections/0/blocks/0/footer/total', message: `must be ${CELL} (got an array).` }]);
  });

  it('explain a row that is not an object', () => {
    expect(issuesOf(specWithBlocks({ ...validBlocks.table, rows: [['a', 1]] }))).toEqual([
      { path: '/sections/0/blocks/0/rows/0', message: 'must be a table row object (got an array).' },
    ]);
  });
});

describe('chart.option', () => {
  const chartWithOption = (option: unknown) => specWithBlocks({ type: 'chart', option });

  it('takes any JSON object up to 32 levels deep', () => {
    expect(issuesOf(chartWithOption({ series: [{ type: 'bar', data: [1, null, 'x'] }], tooltip: { show: true } }))).toEqual([]);
    expect(issuesOf(chartWithOption(nested(32)))).toEqual([]);
  });

  it('rejects nesting deeper than 32 levels, counting arrays as levels', () => {
    const expected = [{ path: '/sections/0/blocks/0/option', message: 'must not nest objects and arrays more than 32 levels deep.' }];
    expect(issuesOf(chartWithOption(nested(33)))).toEqual(expected);
    expect(issuesOf(chartWithOption({ a: JSON.parse('['.repeat(32) + ']'.repeat(32)) }))).toEqual(expected);
    // 100,000 levels are 100,000 values: a piece that large reports only its first problem, and says so.
    expect(issuesOf(chartWithOption(JSON.parse(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)))).toEqual([
      { path: expected[0]?.path, message: expect.stringMatching(/^must not nest objects and arrays more than 32 levels deep\. \(This part of the document is too large/) },
    ]);
  });

  it('reports only the first problem of a huge block (listing two million errors took 8 s and 1 GB)', () => {
    const data = Array.from({ length: 2_000_000 }, () => 'not a number');
    const result = validateDashboardSpec({ slug: 'huge', title: 'Huge', sections: [{ blocks: [{ type: 'chart', series: [{ name: 's', data }] }] }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.total).toBe(1);
    expect(result.issues[0]?.path).toBe('/sections/0/blocks/0/series/0/data/0');
    expect(result.issues[0]?.message).toContain('too large to list every problem');
  });

  it('lists every problem of a huge block outside its large properties', () => {
    const source = Array.from({ length: 40_000 }, (_, index) => [`row ${index}`, index]);
    const block = { type: 'chart', kind: 'bogus', height: 5, unit: 'u'.repeat(20), option: { dataset: { source } } };
    const result = validateDashboardSpec({ slug: 'huge', title: 'Huge', sections: [{ blocks: [block] }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.path).sort()).toEqual(['/sections/0/blocks/0/height', '/sections/0/blocks/0/kind', '/sections/0/blocks/0/unit']);
    expect(result.total).toBe(3);
    expect(result.issues.every((issue) => !issue.message.includes('too large'))).toBe(true);

    // With a problem inside the large property too, the first one there is listed as well, and marked.
    const withBadSeries = { ...block, series: [{ name: 's', data: Array.from({ length: 40_000 }, () => 'not a number') }] };
    const both = validateDashboardSpec({ slug: 'huge', title: 'Huge', sections: [{ blocks: [withBadSeries] }] });
    expect(both.ok).toBe(false);
    if (both.ok) return;
    expect(both.issues.filter((issue) => !issue.message.includes('too large')).map((issue) => issue.path).sort()).toEqual([
      '/sections/0/blocks/0/height',
      '/sections/0/blocks/0/kind',
      '/sections/0/blocks/0/unit',
    ]);
  });

  it('stops at the limit on a cyclic object instead of recursing forever', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(issuesOf(chartWithOption(cyclic))).toHaveLength(1);
  });
});

describe('many violations', () => {
  it('lists the first 100 and counts them all, quickly', () => {
    const blocks = Array.from({ length: 10_000 }, () => ({ type: 'stat', label: 'Builds', value: 1, tone: 'green' }));
    const started = performance.now();
    const result = validateDashboardSpec(specWithBlocks(...blocks));
    const elapsed = performance.now() - started;
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(MAX_ISSUES);
    expect(result.total).toBeGreaterThanOrEqual(10_000);
    expect(result.issues[99]?.path).toBe('/sections/0/blocks/99/tone');
    expect(elapsed).toBeLessThan(2000);
  });

  it('stays linear with many failing sections and blocks', () => {
    // Regression: gathering errors per `$ref` call made 160,000 bad blocks take minutes.
    const sections = Array.from({ length: 1000 }, () => ({ gap: 'huge', blocks: Array.from({ length: 100 }, () => ({ type: 'stat' })) }));
    const started = performance.now();
    const result = validateDashboardSpec({ slug: 'a', title: 'A', sections });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result.ok ? 0 : result.total).toBe(1000 + 1000 * 100 * 2);
    expect(result.ok ? [] : result.issues.slice(0, 3)).toEqual([
      { path: '/sections/0/gap', message: 'must be one of: none, xs, sm, md, lg, xl (got "huge").' },
      { path: '/sections/0/blocks/0/label', message: 'required property "label" is missing.' },
      { path: '/sections/0/blocks/0/value', message: 'required property "value" is missing.' },
    ]);
  });

  it('counts merged issues once in the total', () => {
    const result = validateDashboardSpec(specWithBlocks({ ...validBlocks.stat, span: 30.5 }, { ...validBlocks.stat, span: 0.5 }));
    expect(result.ok ? 0 : result.total).toBe(2);
  });

  it('handles a huge string without quoting it', () => {
    const result = validateDashboardSpec({ slug: 'a', title: 'x'.repeat(2_000_000) });
    expect(result.ok ? [] : result.issues).toEqual([{ path: '/title', message: 'must be at most 200 characters long (it has 2000000).' }]);
  });

  it('lists every problem beside a large table, and every bad row of a large table', () => {
    const rows: Array<Record<string, unknown>> = Array.from({ length: 5000 }, (_, index) => Object.fromEntries(Array.from({ length: 20 }, (__, column) => [`c${column}`, index * column])));
    rows[17] = { ...rows[17], c3: [1, 2] };
    rows[4321] = { ...rows[4321], c9: { value: 1, tone: 'red' } };
    const table = { type: 'table', columns: [{ key: 'c0', label: 'C0' }], rows, striped: 'yes', maxHeight: 5 };
    const result = validateDashboardSpec({ slug: 'Bad Slug', title: '', tone: 'red', sections: [{ blocks: [table] }] });
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual([
      '/slug',
      '/title',
      '/tone',
      '/sections/0/blocks/0/maxHeight',
      '/sections/0/blocks/0/striped',
      '/sections/0/blocks/0/rows/17/c3',
      '/sections/0/blocks/0/rows/4321/c9/tone',
    ]);
    expect(result.ok ? [] : result.issues.filter((issue) => issue.message.includes('too large'))).toEqual([]);
  });

  it('answers for multi-megabyte strings where a pattern or the URI grammar would exhaust the stack', () => {
    const longSlug = validateDashboardSpec({ slug: `${'a-'.repeat(4_000_000)}a`, title: 'Long' });
    expect(longSlug.ok ? [] : longSlug.issues).toEqual([{ path: '/slug', message: expect.stringContaining('must be at most 80 characters long (it has 8000001)') }]);
    const longUrl = `https://example.com/${'a/'.repeat(5_000_000)}`;
    expect(issuesOf(specWithBlocks({ type: 'links', links: [{ label: 'Long', url: longUrl }] }))).toEqual([]);
    expect(issuesOf(specWithBlocks({ type: 'links', links: [{ label: 'Long', url: `${longUrl}%zz` }] }))).toEqual([
      { path: '/sections/0/blocks/0/links/0/url', message: expect.stringContaining('must be a valid URI') },
    ]);
  });

  it('explains a number literal beyond the largest double', () => {
    expect(issuesOf(JSON.parse('{"slug":"a","title":"A","order":-1e400}'))).toEqual([
      { path: '/order', message: 'must be an integer (got -1e309 or beyond, more than a number can hold).' },
    ]);
  });

  it('refuses a UUID with a urn:uuid: prefix, and NUL characters wherever they are', () => {
    const projectId = '123e4567-e89b-12d3-a456-426614174000';
    expect(issuesOf({ slug: 'a', title: 'A', svc: { projectId } })).toEqual([]);
    expect(issuesOf({ slug: 'a', title: 'A', svc: { projectId: `urn:uuid:${projectId}` } })).toEqual([
      { path: '/svc/projectId', message: `must be a UUID (got "urn:uuid:${projectId}").` },
    ]);
    const nul = 'must not contain the NUL character (U+0000, \\u0000 in JSON); remove it.';
    expect(issuesOf({ slug: 'a', title: 'Tab\u0000le', sections: [{ blocks: [{ type: 'table', columns: [{ key: 'a', label: 'A' }], rows: [{ 'a\u0000': 'x\u0000' }] }] }] })).toEqual([
      { path: '/title', message: nul },
      { path: '/sections/0/blocks/0/rows/0/a\u0000', message: `this key ${nul}` },
      { path: '/sections/0/blocks/0/rows/0/a\u0000', message: nul },
    ]);
    // The source text tells a document without the escape from one that needs searching.
    expect(validateDashboardSpec({ slug: 'a', title: 'A\u0000' }, { sourceText: '{"slug":"a","title":"A\\u0000"}' }).ok).toBe(false);
  });
});
