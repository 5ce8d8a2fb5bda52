/**
 * Rough edges of the dashboard pages a person saw (issue 20, item 6), each checked where it shows: in
 * Chromium, on one page holding a table with bars, highlighted code, a percent axis fixed near 100 %, a
 * bar chart with an average line, an html block and a wide table.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const SPEC = {
  slug: 'page-fixes',
  title: 'Page fixes',
  sections: [
    {
      blocks: [
        {
          type: 'table',
          id: 'services',
          span: 12,
          columns: [
            { key: 'service', label: 'Service' },
            { key: 'errors', label: 'Errors %', align: 'right', numeric: true },
          ],
          rows: [
            { service: 'api', errors: { value: 0.4, bar: 0.04, tone: 'positive' } },
            { service: 'scheduler', errors: { value: 12.75, bar: 0.6, tone: 'warning' } },
            { service: 'billing', errors: { value: 100, bar: 1, tone: 'danger' } },
          ],
        },
        { type: 'code', id: 'retry', span: 12, code: 'retry:\n  attempts: 3\n  on: [network]\n', language: 'yaml', lineNumbers: true, highlight: [2] },
        {
          type: 'chart',
          id: 'availability',
          kind: 'line',
          span: 12,
          unit: '%',
          categories: ['Jan', 'Feb', 'Mar', 'Apr'],
          series: [{ name: 'Availability', data: [99.91, 99.97, 99.99, 99.95] }],
          option: { yAxis: { min: 99.85, max: 100 } },
        },
        {
          type: 'chart',
          id: 'deploys',
          kind: 'bar',
          span: 12,
          categories: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
          series: [{ name: 'Deploys', data: [12, 18, 9, 22, 30] }],
          option: { series: [{ markLine: { symbol: 'none', label: { formatter: 'avg {c}', position: 'insideEndTop' }, data: [{ type: 'average' }], precision: 0 } }] },
        },
        { type: 'html', id: 'widget', span: 12, height: 80, html: '<!doctype html><p>Plain text in a frame</p>' },
        {
          type: 'table',
          id: 'wide',
          span: 12,
          columns: Array.from({ length: 8 }, (_, index) => ({ key: `c${index}`, label: `Column ${index}` })),
          rows: [Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`c${index}`, `considerable-words-${index}`]))],
        },
      ],
    },
  ],
};

let svc: TestServer;
let browser: Browser;
let cookie = '';

beforeAll(async () => {
  svc = await startTestServer();
  const published = await svc.request('POST', '/api/dashboards', { body: SPEC });
  expect(published.status, published.text).toBe(201);
  const signIn = await fetch(`${svc.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: svc.adminToken }).toString(),
    redirect: 'manual',
  });
  cookie = /svc_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  // The page's first drawing (its charts on cold render threads) happens here, not in the first test's 30 s: on a
  // loaded machine it took most of them.
  const first = await fetch(`${svc.url}/d/page-fixes`, { headers: { cookie: `svc_session=${cookie}` } });
  expect(first.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

async function open(options: { width?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
  await context.addCookies([{ name: 'svc_session', value: cookie, url: svc.url }]);
  const page = await context.newPage();
  await page.goto(`${svc.url}/d/page-fixes`);
  return page;
}

describe('the dashboard page in a browser', () => {
  it('starts every bar of a table column at the same place, whatever the width of its number', async () => {
    const page = await open();
    const lefts = await page.locator('#services .cell-bar-track').evaluateAll((tracks) => tracks.map((track) => Math.round(track.getBoundingClientRect().left)));
    expect(lefts).toHaveLength(3);
    expect(new Set(lefts).size).toBe(1);
    // Inside the column: the bar starts within the cell's padding.
    const cellLeft = await page.locator('#services tbody tr:first-child td').last().evaluate((cell) => cell.getBoundingClientRect().left);
    expect(lefts[0]! - cellLeft).toBeGreaterThanOrEqual(0);
    expect(lefts[0]! - cellLeft).toBeLessThanOrEqual(16);
    await page.context().close();
  });

  it('marks highlighted code lines with a plain band: no rounded border, text where the other lines have it', async () => {
    const page = await open();
    const marked = page.locator('#retry .line.line-marked');
    await expect.poll(() => marked.count()).toBe(1);
    const style = await marked.evaluate((line) => {
      const computed = getComputedStyle(line);
      return { radius: computed.borderTopLeftRadius, border: computed.borderTopWidth, paddingTop: computed.paddingTop };
    });
    expect(style).toEqual({ radius: '0px', border: '0px', paddingTop: '0px' });
    const textLefts = await page.locator('#retry .line .lc').evaluateAll((cells) => cells.map((cell) => Math.round(cell.getBoundingClientRect().left)));
    expect(new Set(textLefts).size).toBe(1);
    await page.context().close();
  });

  it('steps a percent axis fixed near 100 % evenly from end to end, its labels apart', async () => {
    const page = await open();
    const labels = await page.locator('#availability svg text').evaluateAll((texts) =>
      texts.filter((text) => /%$/.test(text.textContent ?? '')).map((text) => ({ text: text.textContent, y: text.getBoundingClientRect().top, height: text.getBoundingClientRect().height })),
    );
    expect(labels.map((label) => label.text).sort()).toEqual(['100%', '99.85%', '99.9%', '99.95%']);
    const ys = labels.map((label) => label.y).sort((a, b) => a - b);
    const gaps = ys.slice(1).map((y, index) => y - ys[index]!);
    for (const gap of gaps) expect(Math.abs(gap - gaps[0]!)).toBeLessThan(1.5);
    expect(gaps[0]!).toBeGreaterThan(labels[0]!.height);
    await page.context().close();
  });

  it("puts an average line's label past the plot's right edge, off the bars", async () => {
    const page = await open();
    const placement = await page.locator('#deploys svg').first().evaluate((svg) => {
      const label = Array.from(svg.querySelectorAll('text')).find((text) => (text.textContent ?? '').startsWith('avg'));
      // The horizontal grid lines span the plot: their right end is the plot's right edge.
      const gridRight = Math.max(...Array.from(svg.querySelectorAll('path')).map((path) => path.getBoundingClientRect()).filter((box) => box.height < 1 && box.width > 100).map((box) => box.right));
      const box = label?.getBoundingClientRect();
      return { found: Boolean(label), labelLeft: box?.left ?? 0, labelRight: box?.right ?? 0, gridRight, svgRight: svg.getBoundingClientRect().right };
    });
    expect(placement.found).toBe(true);
    expect(placement.labelLeft).toBeGreaterThanOrEqual(placement.gridRight - 1);
    expect(placement.labelRight).toBeLessThanOrEqual(placement.svgRight + 1);
    await page.context().close();
  });

  it('draws an html block in the dark theme dark, not as a white box', async () => {
    const page = await open({ colorScheme: 'dark' });
    const frameElement = page.locator('#widget iframe.html-frame');
    await expect.poll(() => frameElement.evaluate((frame) => getComputedStyle(frame).backgroundColor)).toBe('rgba(0, 0, 0, 0)');
    const frame = (await frameElement.elementHandle())!;
    const inside = await (await frame.contentFrame())!.evaluate(() => ({
      dark: matchMedia('(prefers-color-scheme: dark)').matches,
      background: getComputedStyle(document.documentElement).backgroundColor,
      text: getComputedStyle(document.body).color,
      standards: document.compatMode,
    }));
    expect(inside).toEqual({ dark: true, background: 'rgba(0, 0, 0, 0)', text: 'rgb(255, 255, 255)', standards: 'CSS1Compat' });
    await page.context().close();
  });

  it('fades the edge of a wide table at phone width where there is more to scroll to', async () => {
    const page = await open({ width: 375 });
    const scroller = page.locator('#wide .tbl-scroll');
    await expect.poll(() => scroller.getAttribute('class')).toContain('more-right');
    expect(await scroller.evaluate((element) => getComputedStyle(element).maskImage)).toContain('linear-gradient');
    await scroller.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
    await expect.poll(() => scroller.getAttribute('class')).not.toContain('more-right');
    expect(await scroller.getAttribute('class')).toContain('more-left');
    await page.context().close();
  });
});
