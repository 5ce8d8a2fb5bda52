/**
 * Pages rendered on render threads, their drawings spread over the threads: the bytes must be those of
 * the page drawn in one thread, whatever thread drew which chart and whatever was cached.
 */
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validBlocks } from '../dashboards/fixtures/valid-blocks.js';
import type { Block, DashboardSpec } from '../dashboards/spec-schema.js';
import { renderDashboardPage } from './dashboard-page.js';
import { PageRenderer } from './page-renderer.js';

/** A test that starts render threads of its own (each loads ECharts): on a loaded machine, more than the default 30 s. */
const STARTS_THREADS_MS = 90_000;

const META = { version: 3, updatedAt: '2024-05-03T09:00:00.000Z', view: 'screen' as const };
const gallery = fs.readFileSync(new URL('../../examples/dashboards/engineering-health.json', import.meta.url), 'utf8');

function spec(blocks: Block[]): string {
  const document: DashboardSpec = { slug: 'threads', title: 'Threads', sections: [{ id: 'svc-chart-def-4', blocks }] };
  return JSON.stringify(document);
}

/** One chart whose `option` ECharts turns into unsafe SVG, between two that draw. */
const withBrokenChart = spec([
  { ...validBlocks.chart, span: 24, title: 'Before' },
  { ...validBlocks.chart, title: 'Broken', option: { title: { text: 'x', textStyle: { fontFamily: 'x"><script>alert(1)</script>' } } } },
  { ...validBlocks.chart, kind: 'pie', title: 'After', option: undefined },
]);

/** The same chart twice, and a paragraph quoting what a chart marker looks like. */
const twice = spec([
  { type: 'paragraph', text: '<!--svc-chart abc 0-->' },
  { ...validBlocks.chart, span: 24 },
  { ...validBlocks.chart, span: 24 },
]);

describe('pages rendered on two render threads', () => {
  let renderer: PageRenderer;

  beforeAll(() => {
    renderer = new PageRenderer({ threads: 2, timeoutMs: 20_000 });
  });
  afterAll(async () => {
    await renderer.close();
  });

  it.each([
    ['the example gallery', gallery],
    ['a page with a chart that cannot be drawn', withBrokenChart],
    ['a page with the same chart twice', twice],
  ])('are byte for byte the page drawn in one thread: %s', async (_name, specText) => {
    const expected = renderDashboardPage(specText, META);
    const page = await renderer.render(specText, META, 'account');
    expect(page.body.toString('utf8')).toBe(expected.html);
    expect(gunzipSync(page.gzip).equals(page.body)).toBe(true);
    expect(page.csp).toBe(expected.csp);
    // Again, with every drawing now cached in the renderer.
    const cached = await renderer.render(specText, META, 'account');
    expect(cached.body.toString('utf8')).toBe(expected.html);
  });

  it('puts each drawing in its place, once per place, with ids of its own', async () => {
    const html = (await renderer.render(twice, META, 'account')).body.toString('utf8');
    expect(html).toContain('&lt;!--svc-chart abc 0--&gt;');
    expect(html).not.toMatch(/<!--svc-chart/);
    expect(html.match(/<div class="chart-svg v-wide"><svg/g)).toHaveLength(2);
    expect(html.match(/<div class="chart-svg v-narrow"><svg/g)).toHaveLength(2);
    const ids = [...html.matchAll(/ id="(svc-chart-def-[^"]+)"/g)].map((match) => match[1]);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    // The section took `svc-chart-def-4`: no drawing's ids start with it.
    expect(ids.filter((id) => id?.startsWith('svc-chart-def-4-'))).toEqual([]);
  });

  it('draws pages while its threads warm up, and finishes warming up', async () => {
    const warming = new PageRenderer({ threads: 2, timeoutMs: 20_000, warmupRounds: 1 });
    try {
      warming.warmUp();
      const page = await warming.render(twice, META, 'account');
      expect(page.body.toString('utf8')).toBe(renderDashboardPage(twice, META).html);
      await warming.warmedUp;
      const after = await warming.render(withBrokenChart, META, 'account');
      expect(after.body.toString('utf8')).toBe(renderDashboardPage(withBrokenChart, META).html);
    } finally {
      await warming.close();
    }
  }, STARTS_THREADS_MS);

  it('ends a thread whose drawing runs past its memory, says so in that chart, and draws the rest on a fresh thread', async () => {
    const small = new PageRenderer({ threads: 1, timeoutMs: 60_000, threadMemoryMb: 256 });
    try {
      // 2,000 bars, each labelled with 3,000 characters broken into lines: gigabytes of drawing.
      const label = { show: true, formatter: 'many words '.repeat(270), width: 30, overflow: 'break' };
      const hungry = { ...validBlocks.chart, title: 'Hungry', kind: 'bar', categories: undefined, series: [{ name: 'a', data: [1] }], option: { xAxis: { type: 'category' }, series: [{ type: 'bar', data: Array.from({ length: 2000 }, () => 1), label }] } } as Block;
      const html = (await small.render(spec([hungry, { ...validBlocks.chart, kind: 'pie', title: 'After', option: undefined }]), META, 'account')).body.toString('utf8');
      const figures = [...html.matchAll(/<figure class="chart [^"]*">([\s\S]*?)<\/figure>/g)].map((match) => match[1] ?? '');
      expect(figures[0]).toContain('This chart could not be drawn: drawing it needed more than 256 MB of memory, so it was stopped.');
      expect(figures[1]).toContain('<svg');
    } finally {
      await small.close();
    }
  }, STARTS_THREADS_MS);

  it('shows why a chart was not drawn in its place, and draws the others', async () => {
    const html = (await renderer.render(withBrokenChart, META, 'account')).body.toString('utf8');
    const figures = [...html.matchAll(/<figure class="chart [^"]*">([\s\S]*?)<\/figure>/g)].map((match) => match[1] ?? '');
    expect(figures).toHaveLength(3);
    expect(figures[0]).toContain('<svg');
    expect(figures[1]).toContain('This chart could not be drawn: its option produced unsafe SVG');
    expect(figures[1]).not.toContain('<script>');
    expect(figures[2]).toContain('<svg');
  });

  it("counts a page's drawing time from when its drawings run, not while they wait for a thread", async () => {
    const busy = new PageRenderer({ threads: 1, timeoutMs: 1_000 });
    try {
      // A force layout of 2,000 nodes runs past its chart's 1 s and is stopped: two other accounts' pages keep the
      // one thread busy about 2 s between them, twice the time the light page below has for drawing.
      const nodes = Array.from({ length: 2000 }, (_, index) => ({ name: `node ${index}` }));
      const heavy = { ...validBlocks.chart, title: 'Heavy', series: [{ name: 'graph', data: [1] }], option: { series: [{ type: 'graph', layout: 'force', force: { layoutAnimation: false }, data: nodes, links: nodes.slice(1).map((node, index) => ({ source: nodes[index]?.name, target: node.name })) }] } } as Block;
      const light = spec([{ ...validBlocks.chart, span: 24, title: 'One' }, { ...validBlocks.chart, kind: 'pie', title: 'Two', option: undefined }, { ...validBlocks.chart, kind: 'bar', title: 'Three', option: undefined }]);
      await busy.render(spec([{ type: 'paragraph', text: 'A thread loaded first' }]), META, 'warm-up');
      const heavyPages = ['first', 'second'].map((account) => busy.render(spec([heavy]), META, account));
      const waited = performance.now();
      const html = (await busy.render(light, META, 'account')).body.toString('utf8');
      expect(performance.now() - waited).toBeGreaterThan(1_000);
      const figures = [...html.matchAll(/<figure class="chart [^"]*">([\s\S]*?)<\/figure>/g)].map((match) => match[1] ?? '');
      expect(figures).toHaveLength(3);
      for (const figure of figures) expect(figure).not.toContain('could not be drawn');
      for (const page of await Promise.all(heavyPages)) expect(page.body.toString('utf8')).toContain('This chart could not be drawn: drawing it took longer than 1 s, so it was stopped.');
    } finally {
      await busy.close();
    }
  }, STARTS_THREADS_MS);
});
