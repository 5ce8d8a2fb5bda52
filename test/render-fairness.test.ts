/**
 * One heavy chart must not stall everyone's pages: a chart's drawing is stopped at its own time limit
 * (SVC_RENDER_CHART_TIMEOUT_MS), in a page and in a check alike; the work of a client that has gone is
 * dropped or stopped; and the render threads take accounts' jobs in turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validBlocks } from '../src/dashboards/fixtures/valid-blocks.js';
import { otherAccount, type AccountClient } from './support/other-account.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

/**
 * A chart whose small `option` asks ECharts for a force layout of `nodes` nodes, which costs the square
 * of their number: 2,000 take 11 s on a 2-core machine. `tag` makes the drawing differ from any other.
 */
function heavyChart(title: string, nodes: number, tag: string): Record<string, unknown> {
  const data = Array.from({ length: nodes }, (_, index) => ({ name: `${tag} ${index}` }));
  const links = data.slice(1).map((node, index) => ({ source: data[index]?.name, target: node.name }));
  return { type: 'chart', title, series: [{ name: title, data: [1] }], option: { series: [{ type: 'graph', layout: 'force', force: { layoutAnimation: false }, data, links }] } };
}

function heavySpec(slug: string, nodes: number): Record<string, unknown> {
  return { slug, title: 'Heavy', sections: [{ blocks: [{ ...validBlocks.chart, title: 'Light chart' }, heavyChart('Heavy chart', nodes, slug), { type: 'paragraph', text: 'Text after' }] }] };
}

function trivialSpec(slug: string): Record<string, unknown> {
  return { slug, title: 'Trivial', sections: [{ blocks: [{ type: 'paragraph', text: 'Hello' }, { ...validBlocks.chart, title: 'Small chart' }] }] };
}

/** The text of each chart error box on a page. */
function chartErrors(html: string): string[] {
  return [...html.matchAll(/<div class="chart-error [^"]*"[^>]*><p>([^<]*)<\/p>/g)].map((match) => match[1] ?? '');
}

type Activity = { waiting: number; running: number; drawings: number };

function activity(svc: TestServer): Activity {
  return svc.server.app.pageRenderer.activity;
}

/** Waits until the render threads are in the state `wanted` describes (checked every 20 ms, for at most `limitMs`). */
async function until(svc: TestServer, wanted: (now: Activity) => boolean, what: string, limitMs = 60_000): Promise<void> {
  const started = performance.now();
  while (!wanted(activity(svc))) {
    if (performance.now() - started > limitMs) throw new Error(`the render threads never reached: ${what} (now ${JSON.stringify(activity(svc))})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A check sent with fetch, so the test can leave before it is answered; settles to its status, or 'aborted'. */
function startCheck(client: AccountClient, spec: unknown, signal: AbortSignal): Promise<number | 'aborted'> {
  return fetch(`${client.url}/api/dashboards/check`, {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${client.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  }).then(
    async (response) => {
      await response.text();
      return response.status;
    },
    () => 'aborted' as const,
  );
}

async function publish(client: AccountClient, spec: unknown): Promise<void> {
  const response = await client.request('POST', '/api/dashboards', { body: spec });
  if (response.status !== 200 && response.status !== 201) throw new Error(`publish failed: ${response.status} ${response.text}`);
}

async function page(client: AccountClient, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(client.url + path, { headers: { authorization: `Bearer ${client.adminToken}` } });
  return { status: response.status, text: await response.text() };
}

describe(`a chart's own time limit on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    // A page may take a minute, a chart 1.5 s: the heavy chart (11 s and more) fails alone.
    svc = await startTestServer({ env: { SVC_THREADS: '1', SVC_RENDER_TIMEOUT_MS: '60000', SVC_RENDER_CHART_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('stops a chart past SVC_RENDER_CHART_TIMEOUT_MS and draws the rest of the page; a check reports it at its pointer', async () => {
    const stopped =
      'drawing it took longer than 1.5 s, so it was stopped. Its `option` probably asks ECharts for far too much (millions of ticks, points or labels); simplify it and publish again';
    await publish(svc, heavySpec('chart-limit', 2000));
    const shown = await page(svc, '/d/chart-limit');
    expect(shown.status).toBe(200);
    expect(chartErrors(shown.text)).toEqual([`This chart could not be drawn: ${stopped}.`]);
    expect(shown.text).toContain('Light chart');
    expect(shown.text).toContain('<svg');
    expect(shown.text).toContain('Text after');

    const checked = await svc.request('POST', '/api/dashboards/check', { body: heavySpec('chart-limit-check', 2000) });
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({
      slug: 'chart-limit-check',
      charts: 2,
      problems: [{ path: '/sections/0/blocks/1', message: `This chart could not be drawn at laptop and phone widths: ${stopped}.` }],
      total: 1,
    });
  }, 120_000);
});

describe(`work for a client that has gone on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    // No time limit to speak of: only the client leaving can free the thread.
    svc = await startTestServer({ env: { SVC_THREADS: '1', SVC_RENDER_TIMEOUT_MS: '600000', SVC_RENDER_CHART_TIMEOUT_MS: '600000' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('drops the queued jobs and stops the running drawing of checks and pages whose clients left', async () => {
    const left = new AbortController();
    // 4,000 nodes: most of a minute each, at each of two widths.
    const checks = [1, 2, 3].map((index) => startCheck(svc, heavySpec(`gone-${index}`, 4000), left.signal));
    await until(svc, (now) => now.drawings === 3 && now.running === 1 && now.waiting === 2, 'one heavy drawing running and two waiting');
    await publish(svc, trivialSpec('gone-page'));
    const visit = fetch(`${svc.url}/d/gone-page?print=1`, { signal: left.signal, headers: { authorization: `Bearer ${svc.adminToken}` } }).catch(() => 'aborted');
    await until(svc, (now) => now.waiting === 3, "the page's layout waiting too");

    left.abort();
    expect(await Promise.all([...checks, visit])).toEqual(['aborted', 'aborted', 'aborted', 'aborted']);
    await until(svc, (now) => now.drawings === 0 && now.running === 0 && now.waiting === 0, 'nothing left to do', 30_000);
    const other = await otherAccount(svc, 'gone-other');
    await publish(other, trivialSpec('after-gone'));
    const shown = await page(other, '/d/after-gone');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Small chart');
  }, 120_000);
});

describe(`render threads shared fairly between accounts on ${testDialect}`, () => {
  let svc: TestServer;

  beforeAll(async () => {
    svc = await startTestServer({ env: { SVC_THREADS: '1', SVC_RENDER_CHART_TIMEOUT_MS: '1000' } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it("serves a fresh page of another account, and of the same account, while six heavy checks wait, before any of them is answered", async () => {
    const heavy = new AbortController();
    const answered: number[] = [];
    const checks = [1, 2, 3, 4, 5, 6].map((index) =>
      startCheck(svc, heavySpec(`fair-${index}`, 2000), heavy.signal).then((status) => {
        if (status !== 'aborted') answered.push(index);
        return status;
      }),
    );
    await until(svc, (now) => now.drawings === 6 && now.running === 1 && now.waiting === 5, 'one heavy drawing running and five waiting');

    const other = await otherAccount(svc, 'fair-other');
    await publish(other, trivialSpec('fresh'));
    await publish(svc, trivialSpec('fresh-own'));
    const shown = await Promise.all([page(other, '/d/fresh'), page(svc, '/d/fresh-own')]);
    expect(shown.map((answer) => answer.status)).toEqual([200, 200]);
    for (const answer of shown) expect(answer.text).toContain('Small chart');
    // Their light jobs went before the heavy drawings queued earlier: no check has had both its drawings.
    expect(answered).toEqual([]);

    heavy.abort();
    await Promise.all(checks);
    await until(svc, (now) => now.drawings === 0 && now.running === 0 && now.waiting === 0, 'nothing left to do', 30_000);
  }, 120_000);
});
