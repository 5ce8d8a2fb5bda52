/**
 * Regenerates docs/screenshots/: starts svc on a temporary data directory, publishes every example in
 * examples/dashboards/, signs in through the login page and photographs the pages with Chromium.
 *
 *   npx tsx scripts/screenshots.ts            (needs /usr/bin/chromium; pdftoppm for the PDF pages)
 *
 * Images the examples point at (https://images.example.com/…) are answered from
 * examples/dashboards/images/, so the pictures do not depend on the network.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server/start.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const EXAMPLES = path.join(ROOT, 'examples', 'dashboards');
const OUT = path.join(ROOT, 'docs', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--font-render-hinting=none'];

const EXAMPLE_IMAGES: Record<string, string> = {
  '/diagrams/control-plane.svg': 'control-plane.svg',
  '/people/ada.png': 'avatar-ada.svg',
};

function log(message: string): void {
  process.stderr.write(`screenshots: ${message}\n`);
}

/** Answers the examples' image URLs from the repository and refuses every other outside request. */
async function serveExampleImages(context: BrowserContext, origin: string): Promise<void> {
  await context.route(
    (url) => url.origin !== origin,
    async (route) => {
      const url = new URL(route.request().url());
      const file = url.hostname === 'images.example.com' ? EXAMPLE_IMAGES[url.pathname] : undefined;
      if (!file) return route.abort('blockedbyclient');
      return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: fs.readFileSync(path.join(EXAMPLES, 'images', file)) });
    },
  );
}

async function signIn(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.click('summary');
  await page.fill('#login-token', token);
  await Promise.all([page.waitForURL(`${origin}/d`), page.click('form.login-token button[type=submit]')]);
}

async function shoot(page: Page, url: string, file: string, options: { fullPage: boolean; dark?: boolean }): Promise<void> {
  await page.goto(url, { waitUntil: 'load' });
  await page.evaluate((dark) => {
    document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
  }, options.dark ?? false);
  await page.evaluate(() => document.fonts.ready);
  // A chart drawn for the other screen width waits for the client script to bring the drawing for this one.
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll('[data-pending]')).every((slot) => slot.classList.contains('v-narrow') !== (getComputedStyle(slot).getPropertyValue('--chart-width').trim() === 'narrow')),
  );
  await page.screenshot({ path: path.join(OUT, file), fullPage: options.fullPage });
  log(`wrote docs/screenshots/${file}`);
}

function hasCommand(command: string): boolean {
  try {
    execFileSync('which', [command], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The report as paper: a PDF from Chromium's print, each page rasterised with pdftoppm. */
async function shootReportPages(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'load' });
  for (const old of fs.readdirSync(OUT).filter((name) => /^report-page-\d+\.png$/.test(name))) fs.rmSync(path.join(OUT, old));
  if (!hasCommand('pdftoppm')) {
    // Without poppler, photograph the on-screen print preview instead.
    log('pdftoppm not found (apt-get install poppler-utils); using the ?print=1 preview');
    await shoot(page, `${url}?print=1`, 'report-page-1.png', { fullPage: true });
    return;
  }
  const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-report-'));
  try {
    const pdfPath = path.join(directory, 'report.pdf');
    fs.writeFileSync(pdfPath, pdf);
    fs.copyFileSync(pdfPath, path.join(OUT, 'report.pdf'));
    execFileSync('pdftoppm', ['-png', '-r', '60', pdfPath, path.join(directory, 'page')]);
    const pages = fs.readdirSync(directory).filter((name) => name.endsWith('.png')).sort();
    pages.forEach((name, index) => fs.copyFileSync(path.join(directory, name), path.join(OUT, `report-page-${index + 1}.png`)));
    log(`wrote docs/screenshots/report.pdf and ${pages.length} page images`);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-screenshots-'));
  const adminToken = `svc_u_screenshots_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, adminToken, logLevel: 'error' });
  const server = await startServer(config, { baseUrlExplicit: false });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const examples = fs.readdirSync(EXAMPLES).filter((name) => name.endsWith('.json')).sort();
    for (const name of examples) {
      const response = await fetch(`${server.url}/api/dashboards`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: fs.readFileSync(path.join(EXAMPLES, name)),
      });
      if (!response.ok) throw new Error(`publishing ${name} failed: ${response.status} ${await response.text()}`);
      log(`published ${name}`);
    }

    const desktop = await browser.newContext({ viewport: { width: 1360, height: 900 }, colorScheme: 'light' });
    await serveExampleImages(desktop, server.url);
    const page = await desktop.newPage();
    await page.goto(`${server.url}/login`);
    await page.screenshot({ path: path.join(OUT, 'login.png') });
    await signIn(page, server.url, adminToken);
    await shoot(page, `${server.url}/d`, 'index.png', { fullPage: false });
    await shoot(page, `${server.url}/d/engineering-health`, 'gallery-light.png', { fullPage: true });
    await shoot(page, `${server.url}/d/engineering-health`, 'gallery-dark.png', { fullPage: true, dark: true });
    await shoot(page, `${server.url}/d/q2-platform-review`, 'report-screen.png', { fullPage: false });
    await shootReportPages(page, `${server.url}/d/q2-platform-review`);

    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, colorScheme: 'light' });
    await serveExampleImages(phone, server.url);
    const phonePage = await phone.newPage();
    await signIn(phonePage, server.url, adminToken);
    await shoot(phonePage, `${server.url}/d/engineering-health`, 'gallery-phone.png', { fullPage: true });
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
