import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLargeTableSpec } from '../src/dashboards/fixtures/specs.js';
import { validBlocks } from '../src/dashboards/fixtures/valid-blocks.js';
import { BLOCK_KINDS } from '../src/dashboards/spec-schema.js';
import { HOSTILE_URLS, XSS_PAYLOADS, hostileChartOptionSpec, hostileSpec } from '../src/dashboards/render/testing/hostile-spec.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { followingPageTheme } from '../src/dashboards/render/blocks-media.js';
import { escapeAttr } from '../src/dashboards/render/escape.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
});

interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

async function get(path: string, headers: Record<string, string> = {}, server: TestServer = svc): Promise<PageResponse> {
  const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${server.adminToken}`, ...headers }, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function publish(spec: unknown, server: TestServer = svc): Promise<void> {
  const response = await server.request('POST', '/api/dashboards', { body: spec });
  if (response.status !== 200 && response.status !== 201) throw new Error(`publish failed: ${response.status} ${response.text}`);
}

function decodeEntities(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Every start tag in the page: its name and its attributes with their (decoded) values. */
function tags(html: string): Array<{ name: string; attributes: Map<string, string>; rest: string }> {
  const found: Array<{ name: string; attributes: Map<string, string>; rest: string }> = [];
  for (const match of html.matchAll(/<([a-zA-Z][\w:-]*)((?:\s+[^\s=>"]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    const attributes = new Map<string, string>();
    const source = match[2] ?? '';
    for (const attribute of source.matchAll(/\s+([^\s=>"]+)(?:="([^"]*)")?/g)) attributes.set((attribute[1] ?? '').toLowerCase(), decodeEntities(attribute[2] ?? ''));
    found.push({ name: (match[1] ?? '').toLowerCase(), attributes, rest: source.replace(/"[^"]*"/g, '""') });
  }
  return found;
}

const UNSAFE_URL = /^\s*(?:javascript|vbscript|data:text|file):/i;

/** What no page may contain, whatever a spec says. */
function expectNoInjectedMarkup(html: string): void {
  const all = tags(html);
  // Exactly our two scripts: the hashed theme bootstrap and the external client script.
  const scripts = all.filter((tag) => tag.name === 'script');
  expect(scripts).toHaveLength(2);
  expect(scripts.filter((tag) => tag.attributes.has('src')).map((tag) => tag.attributes.get('src'))).toEqual([expect.stringMatching(/^\/assets\/app\.[0-9a-f]+\.js$/)]);
  for (const tag of all) {
    for (const name of tag.attributes.keys()) expect(name, `attribute ${name} on <${tag.name}>`).not.toMatch(/^on/);
    for (const name of ['href', 'src', 'xlink:href', 'action', 'formaction']) {
      const value = tag.attributes.get(name);
      if (value !== undefined) expect(value, `${name} on <${tag.name}>`).not.toMatch(UNSAFE_URL);
    }
    if (tag.name === 'iframe') {
      expect(tag.attributes.get('sandbox')).toBe('allow-scripts');
      // The page's own frames lead with what makes them follow the page's theme; the content is the block's.
      expect(tag.attributes.get('srcdoc')?.replace(followingPageTheme(''), '')).toBe('<p>Sandboxed content</p>');
    }
  }
  expect(all.filter((tag) => ['img', 'object', 'embed', 'base', 'textarea', 'frame', 'style', 'form'].includes(tag.name) && !(tag.name === 'form' && tag.attributes.get('action') === '/logout'))).toEqual([]);
  expect(all.filter((tag) => tag.name === 'iframe')).toHaveLength(1);
  expect(html).not.toMatch(/<script>alert|<img src=x|<svg onload|<iframe src=javascript|<b onmouseover/i);
}

/** Published once for the file: several tests read its page, in whatever order they run. */
const allKinds = { slug: 'all-kinds', title: 'All kinds', sections: [{ title: 'Everything', blocks: BLOCK_KINDS.map((kind) => validBlocks[kind]) }] };

describe(`dashboard pages on ${testDialect}`, () => {
  beforeAll(async () => {
    await publish(allKinds);
  });

  it('lists dashboards grouped by group, in groupOrder, then order, then title', async () => {
    const fresh = await startTestServer();
    try {
      const specs = [
        { slug: 'ops-b', title: 'Pager load', group: 'Operations', groupOrder: 2, order: 1, tone: 'warning', subtitle: 'Pages per week' },
        { slug: 'eng-b', title: 'Builds', group: 'Engineering', groupOrder: 1, order: 2 },
        { slug: 'eng-a', title: 'Reviews', group: 'Engineering', groupOrder: 1, order: 1, layout: 'report' },
        { slug: 'eng-c', title: 'Agents', group: 'Engineering', groupOrder: 1, order: 2 },
        { slug: 'loose', title: 'Scratchpad' },
        { slug: 'pinned', title: 'Pinned note', groupOrder: -1 },
        { slug: 'named-other', title: 'Odd jobs', group: 'Other', groupOrder: 3 },
        { slug: 'ops-a', title: 'Incidents', group: 'Operations', groupOrder: 2, order: 0 },
      ];
      for (const spec of specs) await publish(spec, fresh);
      const index = await get('/d', {}, fresh);
      expect(index.status).toBe(200);
      const text = index.text;
      // Ungrouped dashboards form one group, placed by the first of them (groupOrder -1 here).
      const order = ['Ungrouped', 'Pinned note', 'Scratchpad', 'Engineering', 'Reviews', 'Agents', 'Builds', 'Operations', 'Incidents', 'Pager load', 'Other', 'Odd jobs'];
      const positions = order.map((label) => text.indexOf(`>${label}<`));
      expect(positions.every((position) => position > 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(text).toContain('8 dashboards in this account');
      expect(text).toContain('<a class="card t-warning" href="/d/ops-b">');
      expect(text).toContain('Pages per week');
      expect(text).toContain('<span class="card-tag">Report</span>');
      expect(text).toMatch(/Updated <time datetime="\d{4}-\d\d-\d\dT[^"]+" data-relative>/);
    } finally {
      await fresh.close();
    }
  });

  it('shows an empty state before anything is published', async () => {
    const fresh = await startTestServer();
    try {
      const index = await get('/d', {}, fresh);
      expect(index.text).toContain('No dashboards yet');
      expect(index.text).toContain('svc dashboard publish');
    } finally {
      await fresh.close();
    }
  });

  it('renders every block kind of a dashboard on the server', async () => {
    const response = await get('/d/all-kinds');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const kind of BLOCK_KINDS) expect(response.text).toContain(`data-kind="${kind}"`);
    expect(response.text).toContain('<h1 class="dash-title">All kinds</h1>');
    expect(response.text).toContain('<a href="/d">Dashboards</a>');
    expect(response.text).toContain('href="/d/all-kinds?print=1"');
    expect(tags(response.text).filter((tag) => tag.name === 'script')).toHaveLength(2);
  });

  it('sends a Content-Security-Policy that allows no inline script but by hash', async () => {
    const response = await get('/d/all-kinds');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("form-action 'self'");
    const scriptSources = /script-src ([^;]+)/.exec(csp)?.[1] ?? '';
    expect(scriptSources).not.toContain('unsafe-inline');
    expect(scriptSources).not.toContain('unsafe-eval');
    for (const match of response.text.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
      const hash = createHash('sha256').update(match[1] ?? '').digest('base64');
      expect(scriptSources).toContain(`'sha256-${hash}'`);
    }
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('allows the inline scripts of html blocks by hash, for their sandboxed frame', async () => {
    const script = "document.body.textContent = 'hello'";
    await publish({ slug: 'widget', title: 'Widget', sections: [{ blocks: [{ type: 'html', html: `<p>x</p><script>${script}</script><script src="https://cdn.example.com/x.js"></script>`, height: 80 }] }] });
    const response = await get('/d/widget');
    const hash = createHash('sha256').update(script).digest('base64');
    expect(response.headers.get('content-security-policy')).toContain(`'sha256-${hash}'`);
    expect(response.text).toContain('sandbox="allow-scripts"');
    expect(response.text).not.toContain('allow-same-origin');
    expect(response.text).toContain(`srcdoc="${escapeAttr(followingPageTheme('<p>x</p><script>'))}`);
  });

  it('answers a repeat visit with 304 by ETag, and a new version with a new page', async () => {
    await publish({ slug: 'etag', title: 'First title' });
    const first = await get('/d/etag');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[\w-]+-1-sw-[0-9a-f]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('vary')).toContain('Cookie');

    const repeat = await get('/d/etag', { 'if-none-match': etag });
    expect(repeat.status).toBe(304);
    expect(repeat.text).toBe('');

    const print = await get('/d/etag?print=1', { 'if-none-match': etag });
    expect(print.status).toBe(200);
    expect(print.headers.get('etag')).not.toBe(etag);

    await publish({ slug: 'etag', title: 'Second title' });
    const second = await get('/d/etag', { 'if-none-match': etag });
    expect(second.status).toBe(200);
    expect(second.text).toContain('Second title');
    expect(second.headers.get('etag')).toMatch(/-2-sw-/);
  });

  it('draws each chart at the width of the screen asking: laptop drawings by default, phone drawings for a phone, both on request', async () => {
    const line = { type: 'chart', kind: 'line', title: 'Runs', categories: ['Mon', 'Tue'], series: [{ name: 'Runs', data: [3, 5] }] };
    await publish({ slug: 'widths', title: 'Widths', sections: [{ blocks: [line, { type: 'gauge', title: 'Load', span: 6, value: 40 }, { ...line, title: 'Runs again' }] }] });
    const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';
    const drawnAt = (html: string) => ({
      wide: (html.match(/<div class="chart-svg v-wide"><svg/g) ?? []).length,
      narrow: (html.match(/<div class="chart-svg v-narrow"><svg/g) ?? []).length,
      leftOut: [...html.matchAll(/<div class="chart-svg (v-\w+)" data-pending><\/div>/g)].map((match) => match[1]),
    });

    const laptop = await get('/d/widths');
    // The line chart is wide enough for a phone drawing; the gauge, at a quarter of the page, is not.
    expect(drawnAt(laptop.text)).toEqual({ wide: 3, narrow: 0, leftOut: ['v-narrow', 'v-narrow'] });
    expect(laptop.text).toContain('<figure class="chart chart-line has-narrow awaits-narrow">');
    expect(laptop.headers.get('vary')).toBe('Cookie, Authorization, Accept-Encoding, Sec-CH-UA-Mobile, User-Agent');

    const phone = await get('/d/widths', { 'user-agent': IPHONE });
    expect(drawnAt(phone.text)).toEqual({ wide: 1, narrow: 2, leftOut: ['v-wide', 'v-wide'] });
    expect(phone.text).toContain('<figure class="chart chart-line has-narrow awaits-wide">');
    // Chromium's own hint wins over its User-Agent, either way.
    expect(drawnAt((await get('/d/widths', { 'sec-ch-ua-mobile': '?1' })).text).narrow).toBe(2);
    expect(drawnAt((await get('/d/widths', { 'sec-ch-ua-mobile': '?0', 'user-agent': IPHONE })).text).narrow).toBe(0);

    const both = await get('/d/widths?drawings=all', { 'user-agent': IPHONE });
    expect(drawnAt(both.text)).toEqual({ wide: 3, narrow: 2, leftOut: [] });
    expect(both.text).toContain('<figure class="chart chart-line has-narrow">');
    // A drawing has the same ids on every page, so the client script can bring one over from another.
    const ids = (html: string) => [...html.matchAll(/<div class="chart-svg v-wide">(<svg[\s\S]*?<\/svg>)/g)].map((match) => [...(match[1] ?? '').matchAll(/ id="([^"]+)"/g)].map((id) => id[1]));
    expect(ids(both.text)).toEqual(ids(laptop.text));
    expect(ids(laptop.text)[2]?.length).toBeGreaterThan(0);

    // A print preview is laid out on A4 whatever the screen.
    expect(drawnAt((await get('/d/widths?print=1', { 'user-agent': IPHONE })).text)).toEqual({ wide: 3, narrow: 0, leftOut: ['v-narrow', 'v-narrow'] });

    const etags = [laptop, phone, both].map((response) => response.headers.get('etag'));
    expect(new Set(etags).size).toBe(3);
    expect((await get('/d/widths', { 'user-agent': IPHONE, 'if-none-match': etags[0] ?? '' })).status).toBe(200);
    expect((await get('/d/widths', { 'user-agent': IPHONE, 'if-none-match': etags[1] ?? '' })).status).toBe(304);
  });

  it('serves pages gzipped to clients that take gzip, and plain to the rest', async () => {
    const gzipped = await fetch(`${svc.url}/d/all-kinds`, { headers: { authorization: `Bearer ${svc.adminToken}`, 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(await gzipped.text()).toContain('All kinds');
    const plain = await get('/d/all-kinds', { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text).toContain('All kinds');
  });

  it('serves the stylesheet and script under hashed names with a long cache', async () => {
    const page = await get('/d/all-kinds');
    const css = /href="(\/assets\/app\.[0-9a-f]+\.css)"/.exec(page.text)?.[1] ?? '';
    const js = /src="(\/assets\/app\.[0-9a-f]+\.js)"/.exec(page.text)?.[1] ?? '';
    const stylesheet = await fetch(svc.url + css);
    expect(stylesheet.status).toBe(200);
    expect(stylesheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(stylesheet.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await stylesheet.text()).toContain('@media print');
    const script = await fetch(svc.url + js);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await script.text()).length).toBeLessThan(15 * 1024);
    expect((await fetch(`${svc.url}/assets/app.0000.css`)).status).toBe(404);
  });

  it('previews the print view with ?print=1', async () => {
    const response = await get('/d/all-kinds?print=1');
    expect(response.status).toBe(200);
    expect(response.text).toContain('<html lang="en" class="print-preview">');
    expect(response.text).toContain('Print preview');
    expect(response.text).toContain('data-print');
  });

  it('renders a 5,000-row table with a search box', async () => {
    const spec = buildLargeTableSpec(5000, 8);
    await publish(spec);
    const response = await get(`/d/${spec.slug}`);
    expect(response.status).toBe(200);
    expect(response.text.match(/<tr>/g)?.length).toBeGreaterThanOrEqual(5000);
    expect(response.text).toContain('placeholder="Filter 5,000 rows…"');
    expect(response.text).toContain('class="tbl numbered paged"');
    expect(response.text).toContain('Show all 5,000 rows');
  });

  it('answers unknown, malformed and deleted dashboards with a 404 page', async () => {
    for (const path of ['/d/no-such-dashboard', '/d/Not_A_Slug']) {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.text).toContain('Nothing here');
    }
    await publish({ slug: 'short-lived', title: 'Short lived' });
    expect((await get('/d/short-lived')).status).toBe(200);
    expect((await svc.request('DELETE', '/api/dashboards/short-lived')).status).toBe(204);
    expect((await get('/d/short-lived')).status).toBe(404);
  });

  it.each(XSS_PAYLOADS.map((payload, index) => [index, payload] as const))('escapes attack string %i in every string field of every block kind', async (index, payload) => {
    const slug = `hostile-${index}`;
    await publish(hostileSpec(slug, payload, HOSTILE_URLS[index % HOSTILE_URLS.length] ?? 'javascript:alert(1)'));
    for (const view of ['', '?print=1']) {
      const response = await get(`/d/${slug}${view}`);
      expect(response.status).toBe(200);
      expectNoInjectedMarkup(response.text);
      for (const kind of BLOCK_KINDS) expect(response.text).toContain(`data-kind="${kind}"`);
    }
    const index_ = await get('/d');
    expectNoInjectedMarkup(index_.text.replace('</main>', '<iframe sandbox="allow-scripts" srcdoc="&lt;p&gt;Sandboxed content&lt;/p&gt;"></iframe></main>'));
  });

  it('links each titled section to itself, beside its heading', async () => {
    await publish({
      slug: 'anchored',
      title: 'Anchored',
      sections: [
        { id: 'costs', title: 'Costs & "budgets"', blocks: [{ type: 'paragraph', text: 'x' }] },
        { title: 'Second', blocks: [{ type: 'paragraph', text: 'y' }] },
        { blocks: [{ type: 'paragraph', text: 'untitled' }] },
      ],
    });
    const page = await get('/d/anchored');
    const anchors = [...page.text.matchAll(/<\/h2><a class="sec-anchor" href="([^"]+)" aria-label="([^"]+)">#<\/a>/g)].map((match) => [match[1], match[2]]);
    expect(anchors).toEqual([
      ['#costs', 'Link to Costs &amp; &quot;budgets&quot;'],
      ['#section-2', 'Link to Second'],
    ]);
    expect(page.text).toContain('<section class="sec" id="costs"');
    expect(page.text).toContain('<section class="sec" id="section-2"');
  });

  it('isolates bidi overrides so they cannot reorder the page', async () => {
    await publish(hostileSpec('bidi-override', XSS_PAYLOADS[5], 'javascript:alert(1)'));
    const response = await get('/d/bidi-override');
    expect(response.text).toContain('<bdi>\u202Egnp.exe\u202C &lt;b onmouseover=alert(1)&gt;rtl&lt;/b&gt;</bdi>');
  });

  it('draws no chart whose option would write markup into the SVG', async () => {
    await publish(hostileChartOptionSpec('hostile-options'));
    const response = await get('/d/hostile-options');
    expect(response.status).toBe(200);
    expectNoInjectedMarkup(response.text.replace('</main>', '<iframe sandbox="allow-scripts" srcdoc="&lt;p&gt;Sandboxed content&lt;/p&gt;"></iframe></main>'));
    expect(response.text.match(/This chart could not be drawn/g)?.length).toBeGreaterThanOrEqual(2);
  });
});
