import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
});

async function get(path: string, headers: Record<string, string> = {}, token: string | null = svc.adminToken) {
  const response = await fetch(svc.url + path, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function publish(spec: unknown): Promise<void> {
  const response = await svc.request('POST', '/api/dashboards', { body: spec });
  if (response.status !== 200 && response.status !== 201) throw new Error(`publish failed: ${response.status} ${response.text}`);
}

/** The text of the page's <main>, tags dropped. */
function mainText(html: string): string {
  const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? '';
  return main.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
}

const weekly = (week: number) => ({ slug: 'weekly', title: 'Weekly report', sections: [{ blocks: [{ type: 'paragraph', text: `Findings of week ${week}.` }] }] });

describe(`dashboard version pages on ${testDialect}`, () => {
  beforeAll(async () => {
    for (const week of [1, 2, 3]) await publish(weekly(week));
  });

  it('lists every version, newest first, the current one linking to the dashboard', async () => {
    const history = await get('/d/weekly/versions');
    expect(history.status).toBe(200);
    expect(history.headers.get('content-type')).toContain('text/html');
    expect(mainText(history.text)).toMatch(/^Weekly report 3 versions, newest first Version 3 Current .+ Version 2 .+ Version 1 /);
    const links = [...history.text.matchAll(/<li><a href="([^"]+)">Version (\d+)<\/a>/g)].map((match) => [match[2], match[1]]);
    expect(links).toEqual([
      ['3', '/d/weekly'],
      ['2', '/d/weekly/versions/2'],
      ['1', '/d/weekly/versions/1'],
    ]);
  });

  it('shows an earlier version as it was published, under a bar that links to the current one', async () => {
    const first = await get('/d/weekly/versions/1');
    expect(first.status).toBe(200);
    expect(first.text).toContain('Findings of week 1.');
    expect(first.text).not.toContain('Findings of week 3.');
    expect(first.text).toMatch(/<div class="archive-bar" role="note"><p><strong>Version 1<\/strong>, published <time [^>]+>[^<]+<\/time>\. This dashboard has been published again since\.<\/p>/);
    expect(first.text).toContain('<a class="btn btn-primary" href="/d/weekly">Current version</a><a class="btn" href="/d/weekly/versions">All versions</a>');
    expect(first.text).toContain('<title>Weekly report (version 1)');
    expect(first.text).toContain('href="/d/weekly/versions/1?print=1"');

    const current = await get('/d/weekly');
    expect(current.text).toContain('Findings of week 3.');
    expect(current.text).not.toContain('archive-bar');
    expect(current.text).toMatch(/<footer class="dash-foot">Version 3<.*<a href="\/d\/weekly\/versions">All versions<\/a><span class="sep" aria-hidden="true">·<\/span><a href="\/d\/weekly\?kiosk=1">Wall display<\/a><\/footer>/);
  });

  it('revalidates an earlier version by its own ETag, apart from the current page and the print view', async () => {
    const first = await get('/d/weekly/versions/1');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/".+-1-saw-[0-9a-f]+"$/);
    expect((await get('/d/weekly/versions/1', { 'if-none-match': etag })).status).toBe(304);
    const printed = await get('/d/weekly/versions/1?print=1');
    expect(printed.status).toBe(200);
    expect(printed.headers.get('etag')).not.toBe(etag);
    expect(printed.text).toContain('Findings of week 1.');
    expect(printed.text).toContain('<a class="btn" href="/d/weekly/versions/1">Back to the dashboard</a>');
    expect((await get('/d/weekly', { 'if-none-match': etag })).status).toBe(200);
  });

  it('sends the current version to its one address, and answers versions that do not exist with 404', async () => {
    const current = await get('/d/weekly/versions/3');
    expect(current.status).toBe(302);
    expect(current.headers.get('location')).toBe('/d/weekly');
    expect((await get('/d/weekly/versions/3?print=1')).headers.get('location')).toBe('/d/weekly?print=1');
    for (const version of ['4', '0', '01', '-1', 'latest', '9999999999']) {
      const missing = await get(`/d/weekly/versions/${version}`);
      expect(missing.status, version).toBe(404);
      expect(missing.headers.get('content-type'), version).toContain('text/html');
    }
    expect((await get('/d/weekly/versions/4')).text).toContain('Dashboard &quot;weekly&quot; has no version &quot;4&quot;; its versions run from 1 to 3.');
    expect((await get('/d/nothing-here/versions')).status).toBe(404);
    expect((await get('/d/nothing-here/versions/1')).status).toBe(404);
  });

  it('offers no history for a dashboard published once, and asks strangers to sign in', async () => {
    await publish({ slug: 'once', title: 'Once' });
    expect((await get('/d/once')).text).not.toContain('All versions');
    expect(mainText((await get('/d/once/versions')).text)).toMatch(/^Once 1 version, newest first Version 1 Current/);
    for (const path of ['/d/weekly/versions', '/d/weekly/versions/1']) {
      const anonymous = await get(path, {}, null);
      expect(anonymous.status, path).toBe(302);
      expect(anonymous.headers.get('location'), path).toMatch(/^\/login/);
    }
  });

  it('tells an open page the latest version by /d/:slug/latest.json, never cached', async () => {
    const latest = await get('/d/weekly/latest.json');
    expect(latest.status).toBe(200);
    expect(latest.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(latest.text)).toEqual({ version: 3, updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), url: '/d/weekly' });
    const current = await get('/d/weekly');
    expect(current.text).toContain('<div class="update-bar" role="status" hidden data-watch="/d/weekly/latest.json" data-version="3">');
    expect(current.headers.get('content-security-policy')).toContain("connect-src 'self'");
    // Earlier versions and print views are not followed.
    expect((await get('/d/weekly/versions/1')).text).not.toContain('data-watch');
    expect((await get('/d/weekly?print=1')).text).not.toContain('data-watch');

    const missing = await get('/d/no-such-dashboard/latest.json');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toEqual({ error: 'No dashboard "no-such-dashboard" in this account.', code: 'NOT_FOUND' });
    const anonymous = await get('/d/weekly/latest.json', {}, null);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text).code).toBe('UNAUTHENTICATED');
  });

  it('escapes the title in the history', async () => {
    await publish({ slug: 'hostile-title', title: '<img src=x onerror=alert(1)>' });
    await publish({ slug: 'hostile-title', title: '<img src=x onerror=alert(1)>' });
    const history = await get('/d/hostile-title/versions');
    expect(history.text).not.toContain('<img src=x');
    expect(history.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect((await get('/d/hostile-title/versions/1')).text).not.toContain('<img src=x');
  });
});

describe(`table downloads on ${testDialect}`, () => {
  const spec = (note: string) => ({
    slug: 'latency-table',
    title: 'Latency',
    sections: [
      {
        blocks: [
          { type: 'paragraph', text: 'Services by latency.' },
          {
            type: 'table',
            title: 'Services',
            columns: [
              { key: 'name', label: 'Service' },
              { key: 'p99', label: 'p99 (ms)', numeric: true },
              { key: 'note', label: 'Note, "quoted"' },
            ],
            rows: [
              { name: { value: 'api', href: 'https://api.example.com', tone: 'positive' }, p99: 120.5, note },
              { name: 'billing', p99: null, note: 'line one\nline two' },
              { name: '=HYPERLINK("https://evil.example","click")', p99: -3, note: '-5 is a string' },
              { name: 'Zürich ✓' },
            ],
            footer: { name: 'Total', p99: 117.5 },
          },
        ],
      },
    ],
  });

  it('offers each table as CSV of the version on the page: raw values, quoted, formulas defused, no footer', async () => {
    await publish(spec('first'));
    const page = await get('/d/latency-table');
    expect(page.text).toContain(
      '<a class="btn tbl-csv" href="/d/latency-table/versions/1/sections/0/blocks/1.csv" download aria-label="Download Services as CSV">',
    );
    const csv = await get('/d/latency-table/versions/1/sections/0/blocks/1.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="latency-table-v1-table-0-1.csv"');
    expect(csv.text).toBe(
      [
        'Service,p99 (ms),"Note, ""quoted"""',
        'api,120.5,first',
        'billing,,"line one\nline two"',
        `"'=HYPERLINK(""https://evil.example"",""click"")",-3,'-5 is a string`,
        'Zürich ✓,,',
        '',
      ].join('\r\n'),
    );

    // A byte order mark first, so Excel reads UTF-8 (fetch's text() drops it).
    const bytes = Buffer.from(await (await fetch(`${svc.url}/d/latency-table/versions/1/sections/0/blocks/1.csv`, { headers: { authorization: `Bearer ${svc.adminToken}` } })).arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 'S'.charCodeAt(0)]);

    // Republished: the first version's table is still the first version's.
    await publish(spec('second'));
    expect((await get('/d/latency-table/versions/1/sections/0/blocks/1.csv')).text).toContain('api,120.5,first');
    expect((await get('/d/latency-table/versions/2/sections/0/blocks/1.csv')).text).toContain('api,120.5,second');
    expect((await get('/d/latency-table')).text).toContain('href="/d/latency-table/versions/2/sections/0/blocks/1.csv"');
  });

  it('answers a block that is not a table, or a version that does not exist, with a 404 that says how to ask', async () => {
    await publish({ ...spec('only'), slug: 'latency-missing' });
    const paragraph = await get('/d/latency-missing/versions/1/sections/0/blocks/0.csv');
    expect(paragraph.status).toBe(404);
    expect(paragraph.text).toContain(
      'Version 1 of dashboard &quot;latency-missing&quot; has no table, chart or heatmap at /sections/0/blocks/0; their data downloads as …/sections/&lt;n&gt;/blocks/&lt;n&gt;.csv.',
    );
    for (const route of ['/d/latency-missing/versions/9/sections/0/blocks/1.csv', '/d/latency-missing/versions/1/sections/5/blocks/1.csv', '/d/latency-missing/versions/1/sections/0/blocks/1.json', '/d/latency-missing/versions/x/sections/0/blocks/1.csv']) {
      expect((await get(route)).status, route).toBe(404);
    }
    const anonymous = await get('/d/latency-missing/versions/1/sections/0/blocks/1.csv', {}, null);
    expect(anonymous.status).toBe(302);
  });
});

describe(`chart and heatmap downloads on ${testDialect}`, () => {
  const spec = {
    slug: 'deploy-charts',
    title: 'Deploys',
    sections: [
      {
        blocks: [
          {
            type: 'chart',
            kind: 'bar',
            title: 'Deploys per week',
            unit: 'deploys',
            categories: ['W1', '=W2'],
            series: [
              { name: 'api', data: [3, null, 7] },
              { name: '+billing', data: [1.5, 2] },
            ],
          },
          { type: 'heatmap', title: 'Runs by hour', unit: 'runs', xLabels: ['00', '01'], yLabels: ['Mon', 'Tue'], values: [[1, 2], [null]] },
          { type: 'gauge', title: 'Coverage', value: 78 },
          { type: 'chart', kind: 'line', title: 'Requests', series: [{ name: 'rps', data: Array.from({ length: 3000 }, (_, index) => index % 7) }] },
          { type: 'chart', title: 'Hand-drawn', option: { xAxis: { type: 'category', data: ['a', 'b'] }, yAxis: {}, series: [{ type: 'line', data: [1, 2] }] } },
        ],
      },
    ],
  };

  beforeAll(async () => {
    await publish(spec);
  });

  it("offers a chart's data as CSV: a line per category, a column per series, raw numbers", async () => {
    const page = await get('/d/deploy-charts');
    expect(page.text).toMatch(
      /<details class="chart-data"><summary>Data<\/summary><div class="chart-data-scroll"><table class="tbl compact">.*?<\/table><\/div><a class="chart-csv" href="\/d\/deploy-charts\/versions\/1\/sections\/0\/blocks\/0\.csv" download aria-label="Download the data of Deploys per week \(bar chart\) as CSV">Download CSV<\/a><\/details>/,
    );
    const csv = await get('/d/deploy-charts/versions/1/sections/0/blocks/0.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="deploy-charts-v1-chart-0-0.csv"');
    // A third category the categories do not name is numbered, as on the chart; formulas are opened as text.
    expect(csv.text).toBe([",api (deploys),'+billing (deploys)", 'W1,3,1.5', "'=W2,,2", '3,7,', ''].join('\r\n'));
  });

  it('offers a heatmap as CSV, and a chart too big for a data table by its link alone', async () => {
    const heatmap = await get('/d/deploy-charts/versions/1/sections/0/blocks/1.csv');
    expect(heatmap.headers.get('content-disposition')).toBe('attachment; filename="deploy-charts-v1-heatmap-0-1.csv"');
    expect(heatmap.text).toBe(['(runs),00,01', 'Mon,1,2', 'Tue,,', ''].join('\r\n'));

    const page = await get('/d/deploy-charts');
    expect(page.text).toContain(
      '<p class="chart-data"><a class="chart-csv" href="/d/deploy-charts/versions/1/sections/0/blocks/3.csv" download aria-label="Download the data of Requests (line chart) as CSV">Download CSV</a></p>',
    );
    const big = await get('/d/deploy-charts/versions/1/sections/0/blocks/3.csv');
    const lines = big.text.split('\r\n');
    expect(lines.length).toBe(3002);
    expect(lines.slice(0, 3)).toEqual([',rps', '1,0', '2,1']);
    expect(lines[3000]).toBe('3000,3');

    // A gauge is one number, and a chart drawn from its own `option` has no data of its own: no download.
    expect(page.text).toContain('aria-label="Hand-drawn (bar chart)"');
    for (const block of [2, 4]) {
      expect(page.text).not.toContain(`blocks/${block}.csv`);
      expect((await get(`/d/deploy-charts/versions/1/sections/0/blocks/${block}.csv`)).status).toBe(404);
    }
  });
});

describe(`the wall display on ${testDialect}`, () => {
  const board = (week: number) => ({ slug: 'wallboard', title: 'Build wallboard', sections: [{ blocks: [{ type: 'paragraph', text: `Builds of week ${week}.` }] }] });

  beforeAll(async () => {
    await publish(board(1));
  });

  it('shows the current version without the top bar, following new versions, under its own ETag', async () => {
    const screen = await get('/d/wallboard');
    expect(screen.text).toContain('<header class="topbar">');
    expect(screen.text).toMatch(/<footer class="dash-foot">Version 1<.*<a href="\/d\/wallboard\?kiosk=1">Wall display<\/a><\/footer>/);
    expect(screen.text).not.toContain('data-follow');

    const wall = await get('/d/wallboard?kiosk=1');
    expect(wall.status).toBe(200);
    expect(mainText(wall.text)).toContain('Builds of week 1.');
    expect(wall.text).not.toContain('<header class="topbar">');
    expect(wall.text).not.toContain('?print=1');
    expect(wall.text).toContain('<div class="update-bar" role="status" hidden data-watch="/d/wallboard/latest.json" data-version="1" data-follow>');
    expect(wall.text).toMatch(/<footer class="dash-foot">Version 1<.*<a href="\/d\/wallboard">Leave wall display<\/a><\/footer>/);
    const etag = wall.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/".+-1-kw-[0-9a-f]+"$/);
    expect(etag).not.toBe(screen.headers.get('etag'));
    expect((await get('/d/wallboard?kiosk=1', { 'if-none-match': etag })).status).toBe(304);
    expect((await get('/d/wallboard', { 'if-none-match': etag })).status).toBe(200);

    await publish(board(2));
    const next = await get('/d/wallboard?kiosk=1', { 'if-none-match': etag });
    expect(next.status).toBe(200);
    expect(mainText(next.text)).toContain('Builds of week 2.');
    expect(next.text).toMatch(/<footer class="dash-foot">Version 2<.*<a href="\/d\/wallboard\/versions">All versions<\/a>.*<a href="\/d\/wallboard">Leave wall display<\/a><\/footer>/);
  });

  it('prints rather than follows when both are asked, and has no wall display for an earlier version', async () => {
    // Two versions of its own: the first is an earlier version, the second the current one.
    for (const week of [1, 2]) await publish({ ...board(week), slug: 'wallboard-print' });
    const printed = await get('/d/wallboard-print?kiosk=1&print=1');
    expect(printed.text).toContain('<div class="preview-bar" role="region" aria-label="Print preview">');
    expect(printed.text).not.toContain('data-follow');
    expect(printed.headers.get('etag')).toMatch(/-pw-[0-9a-f]+"$/);

    const archived = await get('/d/wallboard-print/versions/1?kiosk=1');
    expect(archived.status).toBe(200);
    expect(archived.text).toContain('<header class="topbar">');
    expect(archived.text).toContain('class="archive-bar"');
    expect(archived.text).not.toContain('data-follow');
    expect(archived.text).not.toContain('Wall display');
    expect(archived.headers.get('etag')).toMatch(/-1-saw-[0-9a-f]+"$/);

    for (const flag of ['0', 'yes', '']) {
      const plain = await get(`/d/wallboard-print?kiosk=${flag}`);
      expect(plain.text, flag).toContain('<header class="topbar">');
    }
  });

  it('tries again every minute when a wall display lands on an error page, until the dashboard is back', async () => {
    const gone = await get('/d/wallboard-next?kiosk=1');
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('<meta http-equiv="refresh" content="60">');
    expect(gone.text).toContain('<p class="error-retry">This wall display tries again every minute.</p>');
    const plain = await get('/d/wallboard-next');
    expect(plain.status).toBe(404);
    expect(plain.text).not.toContain('http-equiv="refresh"');

    await publish({ ...board(1), slug: 'wallboard-next' });
    const back = await get('/d/wallboard-next?kiosk=1');
    expect(back.status).toBe(200);
    expect(back.text).not.toContain('http-equiv="refresh"');
  });

  it('asks a visitor who is not signed in to sign in, coming back to the wall display', async () => {
    const anonymous = await get('/d/wallboard?kiosk=1', {}, null);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/login?next=%2Fd%2Fwallboard%3Fkiosk%3D1');
  });
});
