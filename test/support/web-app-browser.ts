/**
 * Shared by the app's browser tests: one Chromium per test file, signed-in contexts that record console
 * errors and answer confirmation dialogs, and an axe-core check of the open page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestServer } from './test-server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE_SOURCE = fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** The session cookie of a browser signed in with `token` through the sign-in form's endpoint. */
export async function signInCookie(svc: TestServer, token: string): Promise<string> {
  const response = await fetch(`${svc.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
  const value = /svc_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (!value) throw new Error(`sign-in failed: ${response.status}`);
  return value;
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  errors: string[];
  dialogs: string[];
}

export interface OpenOptions {
  /** The session cookie's value; none for a visitor. */
  cookie?: string;
  /** Sent as Authorization: Bearer on every request instead of a cookie. */
  bearer?: string;
  width?: number;
  colorScheme?: 'light' | 'dark';
}

/** A page that records console errors and uncaught exceptions, and accepts every confirmation. */
export async function openPage(browser: Browser, svc: TestServer, options: OpenOptions): Promise<Watched> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1360, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    ...(options.bearer ? { extraHTTPHeaders: { authorization: `Bearer ${options.bearer}` } } : {}),
  });
  await context.route((url) => url.origin !== svc.url, (route) => route.abort('blockedbyclient'));
  if (options.cookie) await context.addCookies([{ name: 'svc_session', value: options.cookie, url: svc.url }]);
  const page = await context.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (message) => {
    // A refused form answers 4xx, which Chromium logs as a failed resource; that is the point of those tests.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  return { context, page, errors, dialogs };
}

/** axe-core's violations on the open page, one line each ('' when clean). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const results = await axe.run(document);
    return results.violations.map((violation) => `${violation.id} (${violation.help}) at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
}

/** Visits each route in both themes, at a laptop's and a phone's width, and collects axe's findings. */
export async function axeAcross(browser: Browser, svc: TestServer, cookie: string, routes: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [index, route] of routes.entries()) {
    for (const [scheme, colorScheme] of (['light', 'dark'] as const).entries()) {
      // Each route in both themes; the widths take turns, so each theme is also seen at both widths.
      const width = (index + scheme) % 2 === 0 ? 1360 : 375;
      const { context, page } = await openPage(browser, svc, { cookie, colorScheme, width });
      await page.goto(`${svc.url}${route}`, { waitUntil: 'load' });
      for (const violation of await axeViolations(page)) found.push(`${route} ${colorScheme} ${width}px: ${violation}`);
      // At a phone's width nothing may push the page sideways (wide code scrolls inside its own box).
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      if (pageWidth > width) found.push(`${route} ${colorScheme} ${width}px: the page is ${pageWidth}px wide`);
      await context.close();
    }
  }
  return found;
}

/** Chromium for a test file, and the admin's signed-in session cookie on `svc`. */
export async function signedInBrowser(svc: TestServer): Promise<{ browser: Browser; cookie: string }> {
  return { cookie: await signInCookie(svc, svc.adminToken), browser: await launchChromium() };
}

/** A browser test file's teardown: Chromium first (its pages talk to the server), then the server. */
export async function closeBrowserAndServer(browser: Browser | undefined, svc: TestServer | undefined): Promise<void> {
  await browser?.close();
  await svc?.close();
}
