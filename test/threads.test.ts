import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLargeTableSpec } from '../src/dashboards/fixtures/specs.js';
import { validBlocks } from '../src/dashboards/fixtures/valid-blocks.js';
import { otherAccount, type AccountClient } from './support/other-account.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

type Client = AccountClient;

async function get(server: Client, path: string): Promise<PageResponse> {
  const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${server.adminToken}` } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function publish(server: Client, spec: unknown): Promise<number> {
  const response = await server.request('POST', '/api/dashboards', { body: spec });
  if (response.status !== 200 && response.status !== 201) throw new Error(`publish failed: ${response.status} ${response.text}`);
  return response.body.version as number;
}

/** A dashboard with one chart of its own: its series are named after `title`, so no other test's drawing is reused for it. */
function chartDashboard(slug: string, title: string): unknown {
  const series = (validBlocks.chart.series ?? []).map((entry) => ({ ...entry, name: `${title} ${entry.name}` }));
  return { slug, title, sections: [{ blocks: [{ ...validBlocks.chart, title: `${title} chart`, series }, { type: 'paragraph', text: `${title} text` }] }] };
}

/**
 * A chart block whose small `option` (100 KB) asks ECharts for seconds of drawing: a force layout of
 * 2,000 nodes, which costs the square of their number (11 s on a 2-core machine).
 */
function heavyChart(title: string): Record<string, unknown> {
  const data = Array.from({ length: 2000 }, (_, index) => ({ name: `${title} ${index}` }));
  const links = data.slice(1).map((node, index) => ({ source: data[index]?.name, target: node.name }));
  return { type: 'chart', span: 8, title, series: [{ name: title, data: [1] }], option: { series: [{ type: 'graph', layout: 'force', force: { layoutAnimation: false }, data, links }] } };
}

/** A light chart, then two heavy ones, then a paragraph. */
function heavyDashboard(slug: string): unknown {
  return {
    slug,
    title: 'Heavy charts',
    sections: [{ blocks: [{ ...validBlocks.chart, title: 'Light chart' }, heavyChart('First heavy'), heavyChart('Second heavy'), { type: 'paragraph', text: 'Text after the charts' }] }],
  };
}

/** Four of the largest tables the spec allows (5,000 × 16 each): far more than 100 ms of layout. */
function longTablesDashboard(slug: string): unknown {
  const table = buildLargeTableSpec(5000, 16).sections?.[0]?.blocks?.[0];
  return { slug, title: 'Long tables', sections: [{ blocks: [table, table, table, table] }] };
}

/** The text of each chart error box on a page. */
function chartErrors(html: string): string[] {
  return [...html.matchAll(/<div class="chart-error [^"]*"[^>]*><p>([^<]*)<\/p>/g)].map((match) => match[1] ?? '');
}

/** A valid spec of about 40 KB: checked on a thread (bodies under 4 KB are checked inline). */
function largeValidSpec(slug: string): Record<string, unknown> {
  const rows = Array.from({ length: 400 }, (_, index) => ({ name: `service-${index}`, p99: index * 3, note: 'é ✓ 漢字' }));
  return { slug, title: 'Large valid', sections: [{ blocks: [{ type: 'table', columns: [{ key: 'name', label: 'Name' }, { key: 'p99', label: 'p99' }, { key: 'note', label: 'Note' }], rows }] }] };
}

function checksPublishedBodies(label: string, env: Record<string, string>) {
  describe(`published dashboards checked ${label} on ${testDialect}`, () => {
    let svc: TestServer;

    beforeAll(async () => {
      svc = await startTestServer({ env });
    });
    afterAll(async () => {
      await svc.close();
    });

    it('stores a large valid body byte for byte', async () => {
      const text = JSON.stringify(largeValidSpec('large-valid'), null, 1);
      expect(Buffer.byteLength(text)).toBeGreaterThan(8 * 1024);
      const created = await svc.request('POST', '/api/dashboards', { rawBody: text, headers: { 'content-type': 'application/json' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ slug: 'large-valid', version: 1, created: true });
      const read = await svc.request('GET', '/api/dashboards/large-valid');
      expect(read.status).toBe(200);
      expect(read.text).toContain(`"spec":${text}`);
    });

    it('refuses large bodies that are not UTF-8, not JSON, or poisoned, with the same answers as small ones', async () => {
      const padding = 'x'.repeat(6000);
      const notUtf8 = Buffer.concat([Buffer.from(`{"slug":"bad","title":"${padding}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      const cases: Array<{ body: string | Buffer; message: RegExp }> = [
        { body: notUtf8, message: /^The request body is not valid UTF-8; encode the JSON document as UTF-8\.$/ },
        { body: `{"slug":"bad","title":"${padding}"`, message: /^The request body is not valid JSON: .+\.$/ },
      ];
      for (const { body, message } of cases) {
        const response = await svc.request('POST', '/api/dashboards', { rawBody: body, headers: { 'content-type': 'application/json' } });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('BAD_REQUEST');
        expect(response.body.error).toMatch(message);
      }
      const poisoned = await svc.request('POST', '/api/dashboards', {
        rawBody: `{"slug":"bad","title":"${padding}","__proto__":{"polluted":true}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(poisoned.status).toBe(422);
      expect(poisoned.body).toMatchObject({ code: 'DASHBOARD_INVALID', issues: [{ path: '/__proto__', message: expect.stringContaining('"__proto__" is not accepted') }] });
      expect((await svc.request('GET', '/api/dashboards/bad')).status).toBe(404);
    });

    it('lists every violation of a large invalid spec and keeps the stored version', async () => {
      await svc.request('POST', '/api/dashboards', { body: largeValidSpec('kept') });
      const spec = largeValidSpec('kept');
      const sections = spec.sections as Array<{ blocks: Array<Record<string, unknown>> }>;
      sections[0]?.blocks.push({ type: 'gauge', value: 'high' }, { type: 'no-such-kind' });
      const response = await svc.request('POST', '/api/dashboards', { body: spec });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('DASHBOARD_INVALID');
      expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(expect.arrayContaining(['/sections/0/blocks/1/value', '/sections/0/blocks/2/type']));
      const read = await svc.request('GET', '/api/dashboards/kept');
      expect(read.body.version).toBe(1);
    });
  });
}

checksPublishedBodies('on a worker thread', { SVC_THREADS: '1' });
checksPublishedBodies('in the request thread', { SVC_THREADS: '0' });

describe(`dashboard pages drawn on render threads on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    svc = await startTestServer({ env: { SVC_THREADS: '1', SVC_RENDER_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('draws a page on a render thread once, then serves the same bytes from the cache', async () => {
    await publish(svc, chartDashboard('threaded', 'Threaded'));
    const first = await get(svc, '/d/threaded');
    expect(first.status).toBe(200);
    expect(first.headers.get('server-timing')).toMatch(/^page;desc="drawn";dur=\d+(?:\.\d)?, charts;desc="[12] drawn, 0 reused"$/);
    expect(first.text).toContain('Threaded chart');
    expect(first.text).toContain('<svg');
    const second = await get(svc, '/d/threaded');
    expect(second.headers.get('server-timing')).toBe('page;desc="cached"');
    expect(second.text).toBe(first.text);
  });

  it('reuses drawings within an account only: a retitled chart is not drawn again, the same chart in another account is', async () => {
    const chartsOf = (page: PageResponse) => /charts;desc="(\d+) drawn, (\d+) reused"/.exec(page.headers.get('server-timing') ?? '')?.slice(1).map(Number);
    const dashboard = (slug: string, title: string) => ({ slug, title, sections: [{ blocks: [{ ...validBlocks.chart, title, series: [{ name: 'Reused', data: [7, 3, 9, 1] }] }] }] });
    await publish(svc, dashboard('reused', 'Reused'));
    const [drawn = 0, reused] = chartsOf(await get(svc, '/d/reused')) ?? [];
    expect(drawn).toBeGreaterThan(0);
    expect(reused).toBe(0);
    await publish(svc, dashboard('reused-retitled', 'Retitled'));
    const retitled = await get(svc, '/d/reused-retitled');
    expect(retitled.text).toContain('Retitled');
    expect(chartsOf(retitled)).toEqual([0, drawn]);

    const other = await otherAccount(svc, 'reuse-other');
    await publish(other, dashboard('reused', 'Reused'));
    expect(chartsOf(await get(other, '/d/reused'))).toEqual([drawn, 0]);
  });

  it('pre-renders the version that stays after a burst of publishes, so its first visitor gets a drawn page', async () => {
    const events: Array<{ slug: string; version: number }> = [];
    const drawn = new Promise<void>((resolve) => {
      const stop = svc.server.services.events.on('dashboard.prerendered', (event) => {
        if (event.slug !== 'burst') return;
        events.push({ slug: event.slug, version: event.version });
        stop();
        resolve();
      });
    });
    let version = 0;
    for (let index = 1; index <= 5; index += 1) version = await publish(svc, chartDashboard('burst', `Burst ${index}`));
    await drawn;
    expect(events).toEqual([{ slug: 'burst', version }]);
    const page = await get(svc, '/d/burst');
    expect(page.headers.get('server-timing')).toBe('page;desc="cached"');
    expect(page.text).toContain('Burst 5 chart');
    expect(page.text).not.toContain('Burst 4 chart');
  });

  it('stops a chart drawing that runs past SVC_RENDER_TIMEOUT_MS and shows the rest of the page, while every other request is answered', async () => {
    // A render thread that has drawn before, whichever test ran first: the page's time goes to the heavy charts.
    await publish(svc, chartDashboard('before-heavy', 'Before heavy'));
    expect((await get(svc, '/d/before-heavy')).status).toBe(200);
    await publish(svc, heavyDashboard('heavy'));
    const heavy = get(svc, '/d/heavy');
    // While the render thread is busy, the server still answers the API at once.
    const listing = await svc.request('GET', '/api/dashboards');
    expect(listing.status).toBe(200);
    const page = await heavy;
    expect(page.status).toBe(200);
    expect(page.text).toContain('Light chart');
    expect(page.text).toContain('<svg');
    expect(page.text).toContain('Text after the charts');
    // The first heavy drawing is stopped at the limit, which uses up the page's time: the second is not started.
    expect(chartErrors(page.text)).toEqual([
      'This chart could not be drawn: drawing it took longer than 1.5 s, so it was stopped. Its `option` probably asks ECharts for far too much (millions of ticks, points or labels); simplify it and publish again.',
      "This chart could not be drawn: the page had used its 1.5 s for drawing on other charts before this one&#39;s turn.",
    ]);
    // The version is not drawn again: the next visitor gets the same page at once.
    const again = await get(svc, '/d/heavy');
    expect(again.headers.get('server-timing')).toBe('page;desc="cached"');
    expect(again.text).toBe(page.text);
    // A fresh thread takes the next page.
    await publish(svc, chartDashboard('after-heavy', 'After heavy'));
    const after = await get(svc, '/d/after-heavy');
    expect(after.status).toBe(200);
    expect(after.text).toContain('After heavy chart');
    expect(chartErrors(after.text)).toEqual([]);
  });
});

describe(`dashboard pages whose layout runs out of time on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    // 1 s, where the long tables take about 3 s here: a replacement thread is cold, and laying out even a text-only page
    // on one took longer than 0.1 s on a busy machine.
    svc = await startTestServer({ env: { SVC_THREADS: '2', SVC_RENDER_TIMEOUT_MS: '1000' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers 503 with a page saying why, and refuses the same version at once afterwards', async () => {
    await publish(svc, longTablesDashboard('long-table'));
    const page = await get(svc, '/d/long-table');
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('This page could not be drawn in time');
    expect(page.text).toContain('Drawing this dashboard took longer than 1 s, so it was stopped.');
    const again = await get(svc, '/d/long-table');
    expect(again.status).toBe(503);
    expect(again.text).toMatch(/Drawing version 1 of this dashboard took longer than 1 s \d+ s ago and was stopped; it is tried again 10 min from now at the earliest\./);
    // The threads are replaced: a small page is laid out and finished. Text only, as a replacement thread is
    // cold and a first chart on it can take long when the machine is busy.
    await publish(svc, { slug: 'small', title: 'Small', sections: [{ blocks: [{ type: 'paragraph', text: 'Small text' }] }] });
    const small = await get(svc, '/d/small');
    expect(small.status).toBe(200);
    expect(small.text).toContain('Small text');
  });
});

describe(`dashboard pages drawn by render threads that warm up on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    svc = await startTestServer({ env: { SVC_THREADS: '2', SVC_RENDER_WARMUP_ROUNDS: '1' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers the first visitor of a dashboard published while the threads warm up', async () => {
    await publish(svc, chartDashboard('warming', 'Warming'));
    const page = await get(svc, '/d/warming');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Warming chart');
    expect(page.text).toContain('<svg');
    expect(chartErrors(page.text)).toEqual([]);
  });
});

describe(`dashboard pages drawn in the request thread (SVC_THREADS=0) on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    svc = await startTestServer({ env: { SVC_THREADS: '0' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('renders the same page without threads and does not pre-render', async () => {
    // Drawn in the request thread, a pre-render would hold up every request: there is no pre-renderer.
    expect(svc.server.app.webPages.prerenderer).toBeNull();
    await publish(svc, chartDashboard('inline', 'Inline'));
    const page = await get(svc, '/d/inline');
    expect(page.status).toBe(200);
    expect(page.headers.get('server-timing')).toMatch(/^page;desc="drawn"/);
    expect(page.text).toContain('Inline chart');
  });
});

describe('render thread settings', () => {
  it('refuses SVC_THREADS and SVC_RENDER_TIMEOUT_MS values that are not whole numbers in range', async () => {
    const { loadConfig } = await import('../src/config.js');
    expect(() => loadConfig({ SVC_THREADS: 'two' })).toThrow('SVC_THREADS must be a whole number from 0 to 64 (got "two")');
    expect(() => loadConfig({ SVC_RENDER_TIMEOUT_MS: '5' })).toThrow('SVC_RENDER_TIMEOUT_MS must be a whole number from 100 to 600000 (got "5")');
    expect(() => loadConfig({ SVC_RENDER_WARMUP_ROUNDS: '-1' })).toThrow('SVC_RENDER_WARMUP_ROUNDS must be a whole number from 0 to 50 (got "-1")');
    expect(loadConfig({ SVC_THREADS: '3', SVC_RENDER_TIMEOUT_MS: '900', SVC_RENDER_WARMUP_ROUNDS: '0' })).toMatchObject({ threads: 3, renderTimeoutMs: 900, renderWarmupRounds: 0 });
    expect(loadConfig({}).renderWarmupRounds).toBe(6);
    // Render threads run at low priority: one per core unless SVC_THREADS or SVC_RENDER_THREADS says otherwise.
    const { availableParallelism } = await import('node:os');
    expect(loadConfig({}).renderThreads).toBe(Math.min(4, availableParallelism()));
    expect(loadConfig({ SVC_THREADS: '0' })).toMatchObject({ threads: 0, renderThreads: 0 });
    expect(loadConfig({ SVC_THREADS: '1', SVC_RENDER_THREADS: '3' })).toMatchObject({ threads: 1, renderThreads: 3 });
    expect(() => loadConfig({ SVC_RENDER_THREADS: 'all' })).toThrow('SVC_RENDER_THREADS must be a whole number from 0 to 64 (got "all")');
    // A chart's own limit: a few seconds by default, whatever a page may take.
    expect(loadConfig({})).toMatchObject({ renderTimeoutMs: 20_000, renderChartTimeoutMs: 5_000 });
    expect(loadConfig({ SVC_RENDER_CHART_TIMEOUT_MS: '1500' }).renderChartTimeoutMs).toBe(1500);
    expect(() => loadConfig({ SVC_RENDER_CHART_TIMEOUT_MS: '2s' })).toThrow('SVC_RENDER_CHART_TIMEOUT_MS must be a whole number from 100 to 600000 (got "2s")');
  });
});
