/**
 * The dashboard pages in a real browser: Debian's Chromium driven by playwright-core. One browser for
 * the whole file (starting Chromium is the slow part); each test opens its own context.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLargeTableSpec } from '../src/dashboards/fixtures/specs.js';
import { HOSTILE_URLS, XSS_PAYLOADS, hostileChartOptionSpec, hostileSpec } from '../src/dashboards/render/testing/hostile-spec.js';
import { BLOCK_KINDS } from '../src/dashboards/spec-schema.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const EXAMPLES = path.resolve(import.meta.dirname, '../examples/dashboards');
const EXAMPLE_IMAGES: Record<string, string> = { '/diagrams/control-plane.svg': 'control-plane.svg', '/people/ada.png': 'avatar-ada.svg' };
const LARGE_TABLE = buildLargeTableSpec(5000, 8);

let svc: TestServer;
let browser: Browser;
let sessionCookie: { name: string; value: string } = { name: 'svc_session', value: '' };

beforeAll(async () => {
  // On a busy CI machine the gallery once had 9 of its 12 charts drawn (2026-11-29). A drawing that runs past a
  // chart's own budget (5 s) shows its error instead; these tests check what is drawn, so a chart gets the page's.
  svc = await startTestServer({ env: { SVC_RENDER_CHART_TIMEOUT_MS: '20000' } });
  for (const name of fs.readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'))) {
    const response = await svc.request('POST', '/api/dashboards', { rawBody: fs.readFileSync(path.join(EXAMPLES, name)), headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(201);
  }
  expect((await svc.request('POST', '/api/dashboards', { body: LARGE_TABLE })).status).toBe(201);
  // Every test starts signed in; the first one also signs in through the form itself.
  const signIn = await fetch(`${svc.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: svc.adminToken }).toString(),
    redirect: 'manual',
  });
  const value = /svc_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
  sessionCookie = { name: 'svc_session', value };
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

interface Watched {
  context: BrowserContext;
  page: Page;
  errors: string[];
  dialogs: string[];
}

/**
 * A signed-in page that records console errors, uncaught exceptions and dialogs. The examples' images
 * (https://images.example.com/…) come from the repository; any other outside request is refused.
 */
async function openPage(options: { width?: number; colorScheme?: 'light' | 'dark'; signedIn?: boolean; userAgent?: string } = {}): Promise<Watched> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1360, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    // A phone as Chromium's device emulation makes one: its User-Agent and its Sec-CH-UA-Mobile hint.
    ...(options.userAgent ? { userAgent: options.userAgent, isMobile: true } : {}),
  });
  await context.route(
    (url) => url.origin !== svc.url,
    async (route) => {
      const url = new URL(route.request().url());
      const file = url.hostname === 'images.example.com' ? EXAMPLE_IMAGES[url.pathname] : undefined;
      if (!file) return route.abort('blockedbyclient');
      return route.fulfill({ contentType: 'image/svg+xml', body: fs.readFileSync(path.join(EXAMPLES, 'images', file)) });
    },
  );
  if (options.signedIn !== false) await context.addCookies([{ ...sessionCookie, url: svc.url }]);
  const page = await context.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { context, page, errors, dialogs };
}

describe('dashboards in Chromium', () => {
  it('signs in through the login form and lands on the index', async () => {
    const { context, page, errors } = await openPage({ signedIn: false });
    await page.goto(`${svc.url}/d/engineering-health`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.click('.token-login summary');
    await page.fill('#login-token', svc.adminToken);
    await Promise.all([page.waitForURL(`${svc.url}/d/engineering-health`), page.click('form.login-token button[type=submit]')]);
    await expect(page.locator('h1.dash-title').textContent()).resolves.toBe('Engineering health');
    const cookie = (await context.cookies()).find((candidate) => candidate.name === 'svc_session');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Lax');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('renders the gallery with every block kind visible and no console errors', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    const visibleKinds = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('[data-kind]'))
        .filter((element) => element.checkVisibility() && element.getBoundingClientRect().height > 0)
        .map((element) => element.dataset.kind ?? ''),
    );
    expect(new Set(visibleKinds)).toEqual(new Set(BLOCK_KINDS));
    // The reasons of any chart not drawn first: they say why, where a count would not.
    expect(await page.locator('.chart-error').allTextContents()).toEqual([]);
    const charts = await page.locator('.chart-svg.v-wide svg').count();
    expect(charts).toBeGreaterThanOrEqual(12);
    const figure = page.locator('.fig-media img');
    await figure.scrollIntoViewIfNeeded();
    await expect.poll(() => figure.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([
    { screen: 'laptop', userAgent: undefined, from: 1360, to: 375, drawn: 'v-wide', brought: 'v-narrow' },
    { screen: 'phone', userAgent: 'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36', from: 375, to: 1360, drawn: 'v-narrow', brought: 'v-wide' },
  ])('gives a $screen the charts at its own width and brings the other width once the window is resized to it', async ({ userAgent, from, to, drawn, brought }) => {
    const { context, page, errors } = await openPage({ width: from, ...(userAgent ? { userAgent } : {}) });
    const fetched: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('drawings=all')) fetched.push(new URL(request.url()).search);
    });
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    /** The drawings on show at each width, and the placeholders still waiting for theirs. */
    const shown = () =>
      page.evaluate(() => {
        const visible = (selector: string) => Array.from(document.querySelectorAll(selector)).filter((element) => element.checkVisibility() && element.getBoundingClientRect().height > 20).length;
        return { wide: visible('.has-narrow .v-wide svg'), narrow: visible('.has-narrow .v-narrow svg'), pending: document.querySelectorAll('[data-pending]').length };
      });
    // The charts that have two widths: the gallery's that span more than a third of the page.
    const before = await shown();
    expect(before.pending).toBe(await page.locator('.chart.has-narrow').count());
    expect(before.pending).toBeGreaterThanOrEqual(6);
    expect(before[drawn === 'v-wide' ? 'wide' : 'narrow']).toBe(before.pending);
    expect(await page.locator(`.has-narrow .${brought} svg`).count()).toBe(0);
    expect(fetched).toEqual([]);

    await page.setViewportSize({ width: to, height: 900 });
    await expect.poll(async () => (await shown()).pending).toBe(0);
    const after = await shown();
    // Every chart that has two widths now shows the one for this window, drawn for it.
    expect(after[brought === 'v-wide' ? 'wide' : 'narrow']).toBe(before.pending);
    expect(await page.locator('.awaits-wide, .awaits-narrow').count()).toBe(0);
    expect(fetched).toEqual(['?drawings=all']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('passes axe-core on every page kind, in both themes and at phone width', async () => {
    const axeSource = fs.readFileSync(path.resolve(import.meta.dirname, '../node_modules/axe-core/axe.min.js'), 'utf8');
    const examples = fs.readdirSync(EXAMPLES).filter((file) => file.endsWith('.json')).map((file) => (JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as { slug: string }).slug);
    const visits: Array<{ route: string; colorScheme: 'light' | 'dark'; width: number; signedIn?: boolean }> = [
      // Each example once, the examples taking turns through the four theme and width pairs.
      ...examples.map((slug, index) => ({ route: `/d/${slug}`, colorScheme: index % 2 === 0 ? ('light' as const) : ('dark' as const), width: index % 4 < 2 ? 1360 : 375 })),
      { route: '/d/engineering-health', colorScheme: 'dark', width: 375 },
      { route: '/d', colorScheme: 'light', width: 1360 },
      { route: '/d/engineering-health/versions', colorScheme: 'dark', width: 375 },
      { route: '/d/engineering-health?print=1', colorScheme: 'light', width: 1360 },
      { route: '/d/engineering-health?kiosk=1', colorScheme: 'dark', width: 1360 },
      { route: '/login', colorScheme: 'light', width: 375, signedIn: false },
    ];
    const found: string[] = [];
    for (const visit of visits) {
      const { context, page } = await openPage({ width: visit.width, colorScheme: visit.colorScheme, signedIn: visit.signedIn ?? true });
      await page.goto(svc.url + visit.route, { waitUntil: 'load' });
      // Evaluated through the debugging protocol, which the page's CSP does not govern.
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
        const results = await axe.run(document);
        return results.violations.map((violation) => `${violation.id} (${violation.help}) at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
      });
      for (const violation of violations) found.push(`${visit.route} ${visit.colorScheme} ${visit.width}px: ${violation}`);
      await context.close();
    }
    expect(found).toEqual([]);
  }, 120_000);

  it('runs html blocks in a sandbox that cannot reach the page', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    const frame = page.frameLocator('iframe.html-frame');
    // The widget's inline script runs (allowed by its hash) and counts up.
    await expect.poll(async () => Number(await frame.locator('#n').textContent()), { timeout: 10_000 }).toBeGreaterThan(0);
    const reach = await page.frames()[1]?.evaluate(() => {
      let parentDocument = 'blocked';
      try {
        parentDocument = window.parent.document.title;
      } catch {
        // A sandboxed frame has an opaque origin.
      }
      let cookie = 'blocked';
      try {
        cookie = document.cookie;
      } catch {
        // Opaque origins have no cookies.
      }
      return { parentDocument, cookie };
    });
    expect(reach).toEqual({ parentDocument: 'blocked', cookie: 'blocked' });
    expect(errors).toEqual([]);
    // The page may connect to its own origin (to learn of newer versions); the frame, of an opaque
    // origin, cannot read an answer from there.
    const latest = await page.frames()[1]?.evaluate(async () => {
      try {
        const response = await fetch('/d/engineering-health/latest.json', { credentials: 'include' });
        return `read ${response.status}`;
      } catch {
        return 'blocked';
      }
    });
    expect(latest).toBe('blocked');
    expect(errors[0]).toMatch(/^Access to fetch at '.*\/d\/engineering-health\/latest\.json' from origin 'null' has been blocked by CORS policy/);
    await context.close();
  });

  it.each([
    ['the gallery', '/d/engineering-health'],
    ['the report', '/d/q2-platform-review'],
    ['the index', '/d'],
    ['the sign-in page', '/login'],
    ['the 5,000-row table', `/d/${LARGE_TABLE.slug}`],
  ])('does not overflow horizontally at 375 px: %s', async (_name, route) => {
    const { context, page, errors } = await openPage({ width: 375, signedIn: route !== '/login' });
    await page.goto(svc.url + route, { waitUntil: 'load' });
    const width = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity);
    expect(width).toBeLessThanOrEqual(375);
    // Wide charts switch to their phone drawing.
    // Wide charts switch to their phone drawing: at once when it was drawn with the page, or once the page's
    // script has fetched it when the page was drawn before any phone asked for it.
    if (route === '/d/engineering-health') await page.locator('.chart.has-narrow .v-narrow').first().waitFor({ state: 'visible', timeout: 15_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([375, 1440])('keeps unbroken strings in every field inside the page, and big numbers on one line inside their cards, at %i px', async (width) => {
    const unbroken = 'supercalifragilisticexpialidocious'.repeat(6);
    expect((await svc.request('POST', '/api/dashboards', { body: hostileSpec('unbroken', unbroken, `https://example.com/${unbroken}`) })).status).toBeLessThan(300);
    const money = ['$1,204,331.07', -1234567, 1234567890, '-12.5%'];
    const numbers = {
      slug: 'big-numbers',
      title: 'Big numbers',
      highlights: money.map((value, index) => ({ label: `Figure ${index}`, value })),
      sections: [
        {
          blocks: [
            { type: 'stats', items: money.map((value, index) => ({ label: `Region ${index}`, value })) },
            ...money.map((value) => ({ type: 'stat', span: 6, label: 'Spend', value })),
            { type: 'bignumber', span: 6, value: '$1,204,331,007.50', label: 'Annual' },
          ],
        },
      ],
    };
    expect((await svc.request('POST', '/api/dashboards', { body: numbers })).status).toBeLessThan(300);
    const { context, page, errors } = await openPage({ width });
    // The index too: the dashboard's group heads its card there, and its title is on the card.
    for (const route of ['/d', '/d/unbroken', '/d/big-numbers']) {
      await page.goto(svc.url + route, { waitUntil: 'load' });
      expect(await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity), route).toBeLessThanOrEqual(width);
    }
    const values = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('[data-fit]')).map((value) => {
        const box = value.getBoundingClientRect();
        const card = (value.closest('.hl, .stat, .blk') as HTMLElement).getBoundingClientRect();
        return { text: value.textContent, lines: Math.round(box.height / parseFloat(getComputedStyle(value).lineHeight)), inside: box.left >= card.left && box.right <= card.right };
      }),
    );
    expect(values).toHaveLength(13);
    for (const value of values) expect(value, value.text ?? '').toMatchObject({ lines: 1, inside: true });
    // Its images point outside, where this browser may not go.
    expect(errors.filter((error) => !error.startsWith('Failed to load resource'))).toEqual([]);
    await context.close();
  });

  it('shows an earlier version and the list of versions at 375 px without overflowing, the bar above the page', async () => {
    const spec = (week: number) => ({
      slug: 'weekly-platform-reliability-review',
      title: 'Weekly platform reliability review for the payments and ledger services',
      sections: [{ blocks: [{ type: 'paragraph', text: `Findings of week ${week}.` }] }],
    });
    for (const week of [1, 2]) expect((await svc.request('POST', '/api/dashboards', { body: spec(week) })).status).toBeLessThan(300);
    for (const route of ['/d/weekly-platform-reliability-review/versions/1', '/d/weekly-platform-reliability-review/versions']) {
      const { context, page, errors } = await openPage({ width: 375 });
      await page.goto(svc.url + route, { waitUntil: 'load' });
      expect(await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity), route).toBeLessThanOrEqual(375);
      expect(errors, route).toEqual([]);
      if (route.endsWith('/1')) {
        await expect(page.locator('.archive-bar').textContent()).resolves.toMatch(/^Version 1, published .+\. This dashboard has been published again since\.Current versionAll versions$/);
        await page.getByRole('link', { name: 'Current version' }).click();
        await page.waitForURL(`${svc.url}/d/weekly-platform-reliability-review`);
        await expect(page.locator('main').textContent()).resolves.toContain('Findings of week 2.');
      }
      await context.close();
    }
  });

  it('tells an open page that a newer version was published, and that the dashboard was deleted', async () => {
    const spec = (week: number) => ({ slug: 'live-notice', title: 'Live notice', sections: [{ blocks: [{ type: 'paragraph', text: `Findings of week ${week}.` }] }] });
    expect((await svc.request('POST', '/api/dashboards', { body: spec(1) })).status).toBe(201);
    const { context, page, errors } = await openPage({ width: 375 });
    await page.goto(`${svc.url}/d/live-notice`, { waitUntil: 'load' });
    const bar = page.locator('.update-bar');
    await expect(bar.isVisible()).resolves.toBe(false);
    // Nothing new yet: a check when the tab is shown again finds the same version and stays quiet.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForLoadState('networkidle');
    await expect(bar.isVisible()).resolves.toBe(false);

    expect((await svc.request('POST', '/api/dashboards', { body: spec(2) })).status).toBe(200);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await bar.waitFor({ state: 'visible' });
    await expect(bar.locator('p').textContent()).resolves.toBe('Version 2 of this dashboard was published just now.');
    expect(await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity)).toBeLessThanOrEqual(375);
    await page.getByRole('link', { name: 'Show version 2' }).click();
    await page.waitForLoadState('load');
    await expect(page.locator('main').textContent()).resolves.toContain('Findings of week 2.');

    expect((await svc.request('DELETE', '/api/dashboards/live-notice')).status).toBe(204);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await bar.waitFor({ state: 'visible' });
    await expect(bar.locator('p').textContent()).resolves.toBe('This dashboard has been deleted since this page was opened.');
    await expect(bar.locator('a').isVisible()).resolves.toBe(false);
    expect(errors.filter((error) => !error.includes('404'))).toEqual([]);
    await context.close();
  });

  it('keeps a wall display on the latest version by itself, dark when its address asks, and says when its sign-in ends', async () => {
    const spec = (week: number) => ({ slug: 'wall-board', title: 'Wall board', sections: [{ blocks: [{ type: 'paragraph', text: `Builds of week ${week}.` }] }] });
    expect((await svc.request('POST', '/api/dashboards', { body: spec(1) })).status).toBe(201);
    const { context, page, errors } = await openPage({ width: 1360 });
    await page.goto(`${svc.url}/d/wall-board?kiosk=1&theme=dark`, { waitUntil: 'load' });
    await expect(page.locator('html').getAttribute('data-theme')).resolves.toBe('dark');
    await expect(page.locator('header.topbar').count()).resolves.toBe(0);
    await expect(page.locator('main').textContent()).resolves.toContain('Builds of week 1.');

    expect((await svc.request('POST', '/api/dashboards', { body: spec(2) })).status).toBe(200);
    const reloaded = page.waitForEvent('load');
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await reloaded;
    await expect(page.locator('main').textContent()).resolves.toContain('Builds of week 2.');
    expect(page.url()).toBe(`${svc.url}/d/wall-board?kiosk=1&theme=dark`);
    await expect(page.locator('html').getAttribute('data-theme')).resolves.toBe('dark');
    await expect(page.locator('.update-bar').isVisible()).resolves.toBe(false);

    // Signed out elsewhere: the page keeps what it shows and says why it no longer changes.
    await context.clearCookies();
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    const bar = page.locator('.update-bar');
    await bar.waitFor({ state: 'visible' });
    await expect(bar.locator('p').textContent()).resolves.toBe('Your sign-in has ended, so newer versions of this dashboard cannot be shown.');
    await expect(bar.getByRole('link', { name: 'Sign in' }).getAttribute('href')).resolves.toBe('/login?next=%2Fd%2Fwall-board%3Fkiosk%3D1%26theme%3Ddark');
    await expect(page.locator('main').textContent()).resolves.toContain('Builds of week 2.');
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await context.close();
  });

  it('filters the dashboards index by title, subtitle and group name', async () => {
    const extra = [
      { slug: 'ledger-latency', title: 'Ledger latency', group: 'Treasury' },
      { slug: 'card-declines', title: 'Card declines', subtitle: 'By issuer and reason', group: 'Treasury' },
      { slug: 'runner-fleet', title: 'Runner fleet', group: 'Build infrastructure' },
      { slug: 'flaky-tests', title: 'Flaky tests', subtitle: 'Quarantined and retried', group: 'Build infrastructure' },
    ];
    for (const spec of extra) expect((await svc.request('POST', '/api/dashboards', { body: spec })).status).toBeLessThan(300);
    const { context, page, errors } = await openPage({ width: 375 });
    await page.goto(`${svc.url}/d`, { waitUntil: 'load' });
    const total = Number(await page.locator('[data-index-count]').getAttribute('data-index-count'));
    expect(total).toBeGreaterThanOrEqual(8);
    const visibleTitles = () => page.locator('.card-title:visible').allTextContents();
    const filter = page.getByRole('searchbox', { name: 'Filter dashboards' });

    await filter.fill('treasury');
    await expect(visibleTitles()).resolves.toEqual(['Card declines', 'Ledger latency']);
    await expect(page.locator('[data-index-count]').textContent()).resolves.toBe(`2 of ${total} dashboards match`);
    await expect(page.locator('.dgroup-title:visible').allTextContents()).resolves.toEqual(['Treasury2 of 2']);

    await filter.fill('build retried');
    await expect(visibleTitles()).resolves.toEqual(['Flaky tests']);
    await expect(page.locator('.dgroup-title:visible').allTextContents()).resolves.toEqual(['Build infrastructure1 of 2']);
    await filter.fill('no such dashboard');
    await expect(visibleTitles()).resolves.toEqual([]);
    await expect(page.locator('.index-none').isVisible()).resolves.toBe(true);
    await filter.fill('');
    await expect(visibleTitles().then((titles) => titles.length)).resolves.toBe(total);
    await expect(page.locator('[data-index-count]').textContent()).resolves.toBe(`${total} dashboards in this account`);
    await expect(page.locator('.index-none').isVisible()).resolves.toBe(false);
    await expect(page.locator('.dgroup[data-group="Treasury"] .dgroup-count').textContent()).resolves.toBe('2');
    expect(await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity)).toBeLessThanOrEqual(375);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('downloads a table as CSV from its button', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download Services as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('engineering-health-v1-table-2-6.csv');
    const lines = fs.readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(lines[0]).toBe('\uFEFFService,Owner,Status,Requests,p95 (ms),Errors %,p95 trend,SLO');
    expect(lines[1]).toBe('api-gateway,platform,healthy,120000,201,0.02,180 183 186 189 192 195 198 201,99.0%');
    expect(lines).toHaveLength(14);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('offers a keyboard a way past the top bar first', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    await page.keyboard.press('Tab');
    const skip = page.locator('a.skip-link');
    expect(await skip.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await skip.isVisible()).toBe(true);
    expect(await skip.textContent()).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#main$/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('toggles between light and dark, follows the system first and remembers the choice', async () => {
    const { context, page, errors } = await openPage({ colorScheme: 'dark' });
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const chartText = () => page.evaluate(() => getComputedStyle(document.querySelector('.chart-svg text[fill="#020200"]') as Element).fill);
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBeNull();
    const darkBackground = await background();
    const darkChartText = await chartText();
    await page.click('[data-theme-toggle]');
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('light');
    expect(await background()).not.toBe(darkBackground);
    // Charts are drawn once on the server and follow the theme through CSS.
    expect(await chartText()).not.toBe(darkChartText);
    expect(await page.getAttribute('[data-theme-toggle]', 'aria-label')).toBe('Switch to dark theme');
    await page.reload({ waitUntil: 'load' });
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('light');
    await page.click('[data-theme-toggle]');
    expect(await page.evaluate(() => localStorage.getItem('svc-theme'))).toBe('dark');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters the 5,000-row table as you type, showing the first 200 matches until asked for all', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/${LARGE_TABLE.slug}`, { waitUntil: 'load' });
    const allRows = page.locator('table.tbl tbody tr');
    const shownRows = page.locator('table.tbl tbody tr:visible');
    expect(await allRows.count()).toBe(5000);
    expect(await shownRows.count()).toBe(200);
    await expect(page.locator('.tbl-shown').textContent()).resolves.toBe('Showing the first 200 of 5,000 rows.');

    const matching = (term: string) =>
      page.evaluate((needle) => Array.from(document.querySelectorAll('table.tbl tbody tr')).filter((row) => (row.textContent ?? '').toLowerCase().includes(needle)).length, term);
    const few = await matching('item-4321');
    expect(few).toBeGreaterThan(0);
    const started = Date.now();
    await page.fill('input.tbl-search', 'ITEM-4321');
    await expect.poll(() => shownRows.count()).toBe(few);
    process.stderr.write(`5,000-row filter: ${Date.now() - started} ms from typing to the filtered table (including polling)\n`);
    await expect(page.locator('.tbl-count').textContent()).resolves.toBe(`${few} of 5,000 rows`);
    expect(await page.locator('.tbl-more').isVisible()).toBe(false);

    const many = await matching('item-1');
    expect(many).toBeGreaterThan(200);
    await page.fill('input.tbl-search', 'item-1');
    await expect.poll(() => shownRows.count()).toBe(200);
    await expect(page.locator('.tbl-shown').textContent()).resolves.toBe(`Showing the first 200 of ${many.toLocaleString('en-US')} matching rows.`);
    await page.click('.tbl-more label');
    await expect.poll(() => shownRows.count()).toBe(many);

    await page.fill('input.tbl-search', 'no row has this text');
    await expect.poll(() => shownRows.count()).toBe(0);
    expect(await page.locator('.tbl-empty').isVisible()).toBe(true);
    await page.press('input.tbl-search', 'Escape');
    await expect.poll(() => shownRows.count()).toBe(5000);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('prints every row of a long table, on paper and in the print preview', async () => {
    const { context, page, errors } = await openPage();
    const shownRows = page.locator('table.tbl tbody tr:visible');
    await page.goto(`${svc.url}/d/${LARGE_TABLE.slug}`, { waitUntil: 'load' });
    expect(await shownRows.count()).toBe(200);
    await page.emulateMedia({ media: 'print' });
    expect(await shownRows.count()).toBe(5000);
    expect(await page.locator('.tbl-more').isVisible()).toBe(false);

    // Filtered on screen to its first 200 matches; paper gets every match.
    await page.emulateMedia({ media: 'screen' });
    await page.fill('input.tbl-search', 'item-1');
    await expect.poll(() => shownRows.count()).toBe(200);
    const matches = await page.evaluate(() => document.querySelectorAll('table.tbl tbody tr:not([hidden])').length);
    expect(matches).toBeGreaterThan(200);
    await page.emulateMedia({ media: 'print' });
    expect(await shownRows.count()).toBe(matches);

    await page.emulateMedia({ media: 'screen' });
    await page.goto(`${svc.url}/d/${LARGE_TABLE.slug}?print=1`, { waitUntil: 'load' });
    expect(await shownRows.count()).toBe(5000);
    expect(await page.locator('.tbl-more').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters a table after a block whose id is the one the table would have been given', async () => {
    const rows = Array.from({ length: 30 }, (_, index) => ({ name: `row-${index}`, team: index % 2 === 0 ? 'even' : 'odd' }));
    const spec = {
      slug: 'browser-id-squatter',
      title: 'Id squatter',
      sections: [
        {
          title: 'Data',
          blocks: [
            { type: 'paragraph', id: 'svc-table-2', text: 'A paragraph with the id of the table below.' },
            { type: 'table', searchable: true, columns: [{ key: 'name', label: 'Name' }, { key: 'team', label: 'Team' }], rows },
          ],
        },
      ],
    };
    expect((await svc.request('POST', '/api/dashboards', { body: spec })).status).toBe(201);
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/browser-id-squatter`, { waitUntil: 'load' });
    const shownRows = page.locator('table.tbl tbody tr:visible');
    expect(await shownRows.count()).toBe(30);
    await page.fill('input.tbl-search', 'odd');
    await expect.poll(() => shownRows.count()).toBe(15);
    await expect(page.locator('.tbl-count').textContent()).resolves.toBe('15 of 30 rows');
    expect(await page.evaluate(() => document.querySelectorAll('#svc-table-2').length)).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters a numbered table by its cells, not by its row numbers', async () => {
    const rows = Array.from({ length: 130 }, (_, index) => ({ name: index % 2 === 0 ? 'alpha' : 'beta', note: 'no digits here' }));
    const spec = {
      slug: 'browser-numbered-search',
      title: 'Numbered search',
      sections: [{ blocks: [{ type: 'table', searchable: true, numbered: true, columns: [{ key: 'name', label: 'Name' }, { key: 'note', label: 'Note' }], rows }] }],
    };
    expect((await svc.request('POST', '/api/dashboards', { body: spec })).status).toBe(201);
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/browser-numbered-search`, { waitUntil: 'load' });
    const shownRows = page.locator('table.tbl tbody tr:visible');
    expect(await page.locator('table.tbl tbody tr:nth-child(112) td.rn').textContent()).toBe('112');
    await page.fill('input.tbl-search', '12');
    await expect.poll(() => shownRows.count()).toBe(0);
    expect(await page.locator('.tbl-empty').isVisible()).toBe(true);
    await page.fill('input.tbl-search', 'beta');
    await expect.poll(() => shownRows.count()).toBe(65);
    // A term does not run from one cell into the next ("beta" + "no digits").
    await page.fill('input.tbl-search', 'betano');
    await expect.poll(() => shownRows.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows comparison row tones without deltas, title tones without eyebrows, and centred titles', async () => {
    const spec = {
      slug: 'browser-visible-fields',
      title: 'Visible fields',
      sections: [
        {
          blocks: [
            { type: 'title', id: 'toned', headline: 'Toned title', tone: 'danger' },
            { type: 'title', id: 'centred', headline: 'Centred title', standfirst: 'A standfirst that is shorter than its measure.', align: 'center' },
            {
              type: 'comparison',
              left: { label: 'Before' },
              right: { label: 'After' },
              rows: [
                { label: 'Plain', left: 1, right: 2 },
                { label: 'Worse', left: 1, right: 9, tone: 'danger' },
              ],
            },
          ],
        },
      ],
    };
    expect((await svc.request('POST', '/api/dashboards', { body: spec })).status).toBe(201);
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/browser-visible-fields`, { waitUntil: 'load' });
    const danger = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--danger').trim());
    const asRgb = (colour: string) => page.evaluate((value) => {
      const probe = document.createElement('span');
      probe.style.color = value;
      document.body.append(probe);
      const rgb = getComputedStyle(probe).color;
      probe.remove();
      return rgb;
    }, colour);

    const mark = page.locator('#toned .title-mark');
    expect(await mark.isVisible()).toBe(true);
    expect(await mark.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(await asRgb(danger));

    const offsets = await page.locator('#centred .standfirst').evaluate((element) => {
      const own = element.getBoundingClientRect();
      const frame = (element.closest('.blk') as Element).getBoundingClientRect();
      return { left: own.left - frame.left, right: frame.right - own.right, width: own.width, frame: frame.width };
    });
    expect(offsets.width).toBeLessThan(offsets.frame - 100);
    expect(Math.abs(offsets.left - offsets.right)).toBeLessThan(2);

    const cellColour = (row: string) => page.locator('.comparison tbody tr', { hasText: row }).locator('td').first().evaluate((element) => getComputedStyle(element).color);
    const rowMark = (row: string) => page.locator('.comparison tbody tr', { hasText: row }).locator('th').evaluate((element) => getComputedStyle(element).boxShadow);
    expect(await cellColour('Worse')).not.toBe(await cellColour('Plain'));
    expect(await rowMark('Plain')).toBe('none');
    expect(await rowMark('Worse')).toContain(await asRgb(danger));
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sorts a table by a column', async () => {
    const { context, page } = await openPage();
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    const table = page.locator('.k-table table');
    await table.locator('thead th', { hasText: 'Requests' }).locator('button').click();
    const values = await table.locator('tbody tr td:nth-child(5)').allTextContents();
    const numbers = values.filter((value) => value !== '—').map((value) => Number(value.replace(/,/g, '')));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(await table.locator('thead th[aria-sort="ascending"]').count()).toBe(1);
    await context.close();
  });

  it('prints: screen-only blocks hidden, print-only shown, light colours', async () => {
    const { context, page } = await openPage({ colorScheme: 'dark' });
    await page.goto(`${svc.url}/d/engineering-health`, { waitUntil: 'load' });
    expect(await page.locator('[data-kind="html"]').isVisible()).toBe(true);
    expect(await page.locator('#print-notes').isVisible()).toBe(false);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('[data-kind="html"]').isVisible()).toBe(false);
    expect(await page.locator('#print-notes').isVisible()).toBe(true);
    expect(await page.locator('.topbar').isVisible()).toBe(false);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
    await context.close();
  });

  it.each([
    ['a table of 8 columns keeps its numbers and headings whole', 8],
    ['a table of 16 columns wraps its cells', 16],
  ])('prints every column of a wide table on the page: %s', async (_name, count) => {
    const columns = Array.from({ length: count }, (_, index) => ({ key: `c${index}`, label: index % 2 ? `Requests ${index}` : `Region name ${index}`, ...(index % 2 ? { align: 'right' } : {}) }));
    const rows = Array.from({ length: 6 }, (_, row) => Object.fromEntries(columns.map((column, index) => [column.key, index % 2 ? 1_234_567 + row : `eu-west-${row}-production-cluster`])));
    const slug = `print-wide-${count}`;
    expect((await svc.request('POST', '/api/dashboards', { body: { slug, title: 'Wide', sections: [{ blocks: [{ type: 'table', title: 'Wide', columns, rows }] }] } })).status).toBeLessThan(300);
    // A4 at 96 dpi with the print margins: what Chromium lays out for paper.
    const { context, page, errors } = await openPage({ width: 720 });
    await page.goto(`${svc.url}/d/${slug}`, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    const layout = await page.evaluate(() => {
      const frame = document.querySelector('.k-table') as HTMLElement;
      const cells = Array.from(document.querySelectorAll<HTMLElement>('.tbl th, .tbl td'));
      const numbers = Array.from(document.querySelectorAll<HTMLElement>('.tbl td.num'));
      return {
        outside: cells.filter((cell) => cell.getBoundingClientRect().right > frame.getBoundingClientRect().right + 1).length,
        // A number on one line: its text is no taller than one line of its font.
        brokenNumbers: numbers.filter((cell) => {
          const text = document.createRange();
          text.selectNodeContents(cell);
          return text.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(cell).fontSize);
        }).length,
      };
    });
    expect(layout.outside).toBe(0);
    if (count <= 10) expect(layout.brokenNumbers).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('prints the report to a PDF of a sensible number of A4 pages', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/q2-platform-review`, { waitUntil: 'load' });
    const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
    const pages = pdf.toString('latin1').match(/\/Type\s*\/Page(?!s)/g)?.length ?? 0;
    expect(pages).toBeGreaterThanOrEqual(5);
    expect(pages).toBeLessThanOrEqual(14);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the print preview on screen with ?print=1', async () => {
    const { context, page, errors } = await openPage();
    await page.goto(`${svc.url}/d/q2-platform-review?print=1`, { waitUntil: 'load' });
    expect(await page.locator('.preview-bar').isVisible()).toBe(true);
    expect(await page.locator('.toc').isVisible()).toBe(false);
    const pageWidth = await page.locator('main.page').evaluate((element) => element.getBoundingClientRect().width);
    expect(pageWidth).toBeGreaterThan(780);
    expect(pageWidth).toBeLessThan(810);
    // The sheet has the paper's margins (@page: 14 mm top, 12 mm sides) as padding: content is 186 mm wide.
    const sheet = await page.locator('main.page').evaluate((element) => {
      const style = getComputedStyle(element);
      return { top: parseFloat(style.paddingTop), left: parseFloat(style.paddingLeft), right: parseFloat(style.paddingRight), maxWidth: style.maxWidth };
    });
    const mm = 96 / 25.4;
    expect(sheet.top).toBeCloseTo(14 * mm, 0);
    expect(sheet.left).toBeCloseTo(12 * mm, 0);
    expect(sheet.right).toBeCloseTo(12 * mm, 0);
    expect(sheet.maxWidth).not.toBe('none');
    const contentWidth = await page.locator('article.dash').evaluate((element) => element.getBoundingClientRect().width);
    expect(contentWidth).toBeCloseTo(186 * mm, 0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each(XSS_PAYLOADS.map((payload, index) => [index, payload] as const))('runs no script from attack string %i', async (index, payload) => {
    const slug = `browser-hostile-${index}`;
    expect((await svc.request('POST', '/api/dashboards', { body: hostileSpec(slug, payload, HOSTILE_URLS[index % HOSTILE_URLS.length] ?? 'javascript:alert(1)') })).status).toBe(201);
    const { context, page, errors, dialogs } = await openPage();
    await page.goto(`${svc.url}/d/${slug}`, { waitUntil: 'load' });
    await page.hover('h1.dash-title');
    for (const link of await page.locator('main a[href]').all()) {
      const href = (await link.getAttribute('href')) ?? '';
      expect(href).not.toMatch(/^\s*(?:javascript|vbscript|data):/i);
    }
    await page.goto(`${svc.url}/d`, { waitUntil: 'load' });
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('runs no script from hostile chart options', async () => {
    expect((await svc.request('POST', '/api/dashboards', { body: hostileChartOptionSpec('browser-hostile-options') })).status).toBe(201);
    const { context, page, errors, dialogs } = await openPage();
    await page.goto(`${svc.url}/d/browser-hostile-options`, { waitUntil: 'load' });
    expect(await page.locator('.chart-error').count()).toBeGreaterThan(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
