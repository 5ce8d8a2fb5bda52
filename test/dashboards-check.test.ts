import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCliEnv, runCli } from './support/cli-harness.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  svc = await startTestServer();
  env = adminCliEnv(svc);
});
afterAll(async () => {
  await svc.close();
});

const GALLERY = path.resolve(import.meta.dirname, '../examples/dashboards/engineering-health.json');

const goodChart = { type: 'chart', title: 'Deploys', kind: 'bar', categories: ['Mon', 'Tue'], series: [{ name: 'deploys', data: [3, 5] }] };
/** A valid spec ECharts cannot draw: its series points at an x axis that does not exist. */
const missingAxis = { ...goodChart, title: 'Lead time', option: { series: [{ xAxisIndex: 3 }] } };

/** Valid by spec 1, but three of its blocks would not show as written. */
function flawedSpec(slug: string) {
  return {
    slug,
    title: 'Flawed',
    sections: [
      { title: 'Fine', blocks: [{ type: 'paragraph', text: 'Nothing wrong here.' }, goodChart, { type: 'gauge', title: 'Uptime', value: 99.2, unit: '%' }] },
      // A hidden section is not on the page, so its chart is not checked.
      { hidden: true, blocks: [missingAxis] },
      {
        title: 'Broken',
        blocks: [
          { ...missingAxis, hidden: true },
          missingAxis,
          { type: 'chart', title: 'Every request', kind: 'scatter', series: [{ name: 'latency', data: Array.from({ length: 20_001 }, (_, index) => index % 97) }] },
          { type: 'html', title: 'Widgets', html: Array.from({ length: 66 }, (_, index) => `<script>window.widget${index} = ${index};</script>`).join('') },
        ],
      },
    ],
  };
}

describe(`POST /api/dashboards/check on ${testDialect}`, () => {
  it('lists, by JSON pointer and in page order, each block the page would not show as written, and stores nothing', async () => {
    const checked = await svc.request('POST', '/api/dashboards/check', { body: flawedSpec('flawed') });
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({
      slug: 'flawed',
      charts: 3,
      problems: [
        { path: '/sections/2/blocks/1', message: 'This chart could not be drawn at laptop and phone widths: xAxis "3" not found.' },
        { path: '/sections/2/blocks/2', message: 'This chart is not drawn: it would plot 20,001 values, and a chart plots at most 20,000.' },
        {
          path: '/sections/2/blocks/3',
          message: '2 inline scripts of this html block will not run: a page runs at most 64 different inline scripts across its html blocks. Merge scripts into fewer <script> elements.',
        },
      ],
      total: 3,
    });
    expect((await svc.request('GET', '/api/dashboards/flawed')).status).toBe(404);
    expect((await svc.request('GET', '/api/dashboards')).body.dashboards.map((d: { slug: string }) => d.slug)).not.toContain('flawed');
  });

  it('reports a chart drawn only at laptop width by that width, and finds problems in a report too', async () => {
    const narrowBlock = { ...missingAxis, span: 6 };
    const grid = await svc.request('POST', '/api/dashboards/check', { body: { slug: 'narrow', title: 'Narrow', sections: [{ columns: 24, blocks: [narrowBlock] }] } });
    expect(grid.body.problems).toEqual([{ path: '/sections/0/blocks/0', message: 'This chart could not be drawn at laptop width: xAxis "3" not found.' }]);
    const report = await svc.request('POST', '/api/dashboards/check', { body: { slug: 'memo', title: 'Memo', layout: 'report', sections: [{ blocks: [{ type: 'paragraph', text: 'x' }, missingAxis] }] } });
    expect(report.body.problems).toEqual([{ path: '/sections/0/blocks/1', message: 'This chart could not be drawn at laptop and phone widths: xAxis "3" not found.' }]);
  });

  it('names each URL a page leaves out, down to the field, and lists at most 100 problems of many', async () => {
    const refused = {
      slug: 'links',
      title: 'Links',
      sections: [
        {
          blocks: [
            { type: 'links', links: [{ label: 'Docs', url: 'https://docs.example.com' }, { label: 'Share', url: 'ftp://files.example.com/report.pdf' }] },
            { type: 'people', people: [{ name: 'Ada Lovelace', avatarUrl: 'javascript:alert(1)' }] },
            { type: 'figure', url: 'file:///etc/passwd', alt: 'A diagram' },
            { type: 'prose', markdown: 'See [the runbook](javascript:alert(1)) and [the wiki](https://wiki.example.com).' },
            {
              type: 'table',
              columns: [{ key: 'service/name', label: 'Service' }],
              rows: [{ 'service/name': { value: 'api', href: 'https://api.example.com' } }, { 'service/name': { value: 'db', href: 'data:text/html,hi' } }],
              footer: { 'service/name': { value: 'all', href: 'vbscript:x' } },
            },
          ],
        },
      ],
    };
    const checked = await svc.request('POST', '/api/dashboards/check', { body: refused });
    expect(checked.status).toBe(200);
    const url = (what: string, value: string) => `${what}: ${JSON.stringify(value)} is not an http:, https:, mailto: or relative URL, the only kinds a page links to.`;
    expect(checked.body).toEqual({
      slug: 'links',
      charts: 0,
      problems: [
        { path: '/sections/0/blocks/0/links/1/url', message: url('This link is shown as plain text', 'ftp://files.example.com/report.pdf') },
        { path: '/sections/0/blocks/1/people/0/avatarUrl', message: url('This avatar is not shown (the initials are)', 'javascript:alert(1)') },
        { path: '/sections/0/blocks/2/url', message: url('This image is not shown (its alt text is)', 'file:///etc/passwd') },
        { path: '/sections/0/blocks/3/markdown', message: url('A link or image in this markdown is shown as plain text', 'javascript:alert(1)') },
        { path: '/sections/0/blocks/4/rows/1/service~1name/href', message: url('This cell is not a link', 'data:text/html,hi') },
        { path: '/sections/0/blocks/4/footer/service~1name/href', message: url('This cell is not a link', 'vbscript:x') },
      ],
      total: 6,
    });

    const many = {
      slug: 'many',
      title: 'Many',
      sections: [{ blocks: [{ type: 'table', columns: [{ key: 'host', label: 'Host' }], rows: Array.from({ length: 150 }, (_, index) => ({ host: { value: `h${index}`, href: `ssh://h${index}` } })) }] }],
    };
    const capped = await svc.request('POST', '/api/dashboards/check', { body: many });
    expect(capped.body.total).toBe(150);
    expect(capped.body.problems).toHaveLength(100);
    expect(capped.body.problems[99].path).toBe('/sections/0/blocks/0/rows/99/host/href');
  });

  it('passes every example, every chart drawn', async () => {
    const examples = fs.readdirSync(path.dirname(GALLERY)).filter((name) => name.endsWith('.json'));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const name of examples) {
      const text = fs.readFileSync(path.join(path.dirname(GALLERY), name), 'utf8');
      const checked = await svc.request('POST', '/api/dashboards/check', { rawBody: text, headers: { 'content-type': 'application/json' } });
      expect(checked.status, name).toBe(200);
      expect(checked.body, name).toEqual({ slug: JSON.parse(text).slug, charts: expect.any(Number), problems: [], total: 0 });
    }
    const gallery = await svc.request('POST', '/api/dashboards/check', { rawBody: fs.readFileSync(GALLERY, 'utf8'), headers: { 'content-type': 'application/json' } });
    expect(gallery.body.charts).toBe(12);
  });

  it('refuses an invalid spec as publishing does, and a body that is not JSON', async () => {
    const invalid = await svc.request('POST', '/api/dashboards/check', { body: { slug: 'bad', title: 'Bad', tone: 'green' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('DASHBOARD_INVALID');
    expect(invalid.body.issues).toEqual([{ path: '/tone', message: 'must be one of: neutral, positive, warning, danger, info, accent (got "green").' }]);
    expect(invalid.body.error).toContain('Fix every entry in issues and check again.');
    const garbled = await svc.request('POST', '/api/dashboards/check', { rawBody: '{"slug": ', headers: { 'content-type': 'application/json' } });
    expect(garbled.status).toBe(400);
    expect(garbled.body.code).toBe('BAD_REQUEST');
  });

  it('needs dashboards.publish, like publishing', async () => {
    const project = (await svc.request('POST', '/v1/projects', { body: { name: 'Check Scope' } })).body.project;
    const mint = async (capabilities: string[]) => (await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 't', capabilities } })).body.token as string;
    const body = { slug: 'scoped', title: 'Scoped', sections: [{ blocks: [goodChart] }] };
    expect((await svc.request('POST', '/api/dashboards/check', { token: await mint(['dashboards.publish']), body })).body).toEqual({ slug: 'scoped', charts: 1, problems: [], total: 0 });
    const reader = await svc.request('POST', '/api/dashboards/check', { token: await mint(['project.read']), body });
    expect(reader.status).toBe(403);
    expect(reader.body.error).toContain('dashboards.publish');
    expect((await svc.request('POST', '/api/dashboards/check', { token: null, body })).status).toBe(401);
  });
});

describe('svc dashboard check and publish --check', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-check-'));

  it('exits 1 listing each problem with its block, and publish --check then publishes nothing', async () => {
    const file = path.join(dir, 'flawed.json');
    fs.writeFileSync(file, JSON.stringify(flawedSpec('flawed-cli')));
    const checked = await runCli(['dashboard', 'check', file], { env });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toBe('');
    expect(checked.stderr.split('\n')).toEqual([
      'svc: flawed-cli: 3 problems found (nothing was published); fix them and run the command again.',
      '  /sections/2/blocks/1 (chart "Lead time"): This chart could not be drawn at laptop and phone widths: xAxis "3" not found.',
      '  /sections/2/blocks/2 (chart "Every request"): This chart is not drawn: it would plot 20,001 values, and a chart plots at most 20,000.',
      '  /sections/2/blocks/3 (html "Widgets"): 2 inline scripts of this html block will not run: a page runs at most 64 different inline scripts across its html blocks. Merge scripts into fewer <script> elements.',
      '',
    ]);

    const refused = await runCli(['dashboard', 'publish', '--check', file], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('svc: flawed-cli: 3 problems found, so it was not published; fix them and run the command again.');
    expect((await svc.request('GET', '/api/dashboards/flawed-cli')).status).toBe(404);

    const json = await runCli(['dashboard', 'check', '--json', file], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ slug: 'flawed-cli', charts: 3, problems: [{ path: '/sections/2/blocks/1' }, { path: '/sections/2/blocks/2' }, { path: '/sections/2/blocks/3' }] });
  });

  it('publishes a spec with problems without --check, and warns of each', async () => {
    const file = path.join(dir, 'warned.json');
    fs.writeFileSync(file, JSON.stringify(flawedSpec('warned')));
    const published = await runCli(['dashboard', 'publish', file], { env });
    expect(published.code).toBe(0);
    expect(published.stdout).toBe(`${svc.url}/d/warned\n`);
    expect(published.stderr.split('\n')).toEqual([
      'Created dashboard warned (version 1)',
      `warning: the page of warned shows 3 problems (svc dashboard check ${file} lists them again):`,
      '  /sections/2/blocks/1 (chart "Lead time"): This chart could not be drawn at laptop and phone widths: xAxis "3" not found.',
      '  /sections/2/blocks/2 (chart "Every request"): This chart is not drawn: it would plot 20,001 values, and a chart plots at most 20,000.',
      '  /sections/2/blocks/3 (html "Widgets"): 2 inline scripts of this html block will not run: a page runs at most 64 different inline scripts across its html blocks. Merge scripts into fewer <script> elements.',
      '',
    ]);
    expect((await svc.request('GET', '/api/dashboards/warned')).body.version).toBe(1);
    // A sound spec publishes with no warning.
    const sound = await runCli(['dashboard', 'publish', '--json', '-'], { env, input: JSON.stringify({ slug: 'quiet', title: 'Quiet', sections: [{ blocks: [goodChart] }] }) });
    expect(sound.code).toBe(0);
    expect(JSON.parse(sound.stdout)).toMatchObject({ slug: 'quiet', version: 1 });
    expect(sound.stderr).toBe('');
  });

  it('says how many problems it left out', async () => {
    const file = path.join(dir, 'many.json');
    const rows = Array.from({ length: 120 }, (_, index) => ({ host: { value: `h${index}`, href: `ssh://h${index}` } }));
    fs.writeFileSync(file, JSON.stringify({ slug: 'many-cli', title: 'Many', sections: [{ blocks: [{ type: 'table', title: 'Hosts', columns: [{ key: 'host', label: 'Host' }], rows }] }] }));
    const checked = await runCli(['dashboard', 'check', file], { env });
    expect(checked.code).toBe(1);
    const lines = checked.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('svc: many-cli: 120 problems found (nothing was published); fix them and run the command again.');
    expect(lines[1]).toBe(
      '  /sections/0/blocks/0/rows/0/host/href (table "Hosts"): This cell is not a link: "ssh://h0" is not an http:, https:, mailto: or relative URL, the only kinds a page links to.',
    );
    expect(lines).toHaveLength(102);
    expect(lines[101]).toBe('  … and 20 more');
  });

  it('passes a sound spec and publish --check publishes it', async () => {
    const checked = await runCli(['dashboard', 'check', GALLERY], { env });
    expect(checked).toEqual({ code: 0, stdout: '', stderr: 'engineering-health: valid, 12 charts drawn, no problems.\n' });
    const published = await runCli(['dashboard', 'publish', '--check', '-'], { env, input: JSON.stringify({ slug: 'sound', title: 'Sound', sections: [{ blocks: [goodChart] }] }) });
    expect(published.code).toBe(0);
    expect(published.stdout).toBe(`${svc.url}/d/sound\n`);
    expect((await svc.request('GET', '/api/dashboards/sound')).body.version).toBe(1);
  });

  it('reports an invalid spec with its issues, and a file that is not JSON before sending it', async () => {
    const invalid = await runCli(['dashboard', 'check', '-'], { env, input: '{"slug":"x","title":"X","tone":"green"}' });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('(DASHBOARD_INVALID)');
    expect(invalid.stderr).toContain('/tone: must be one of: neutral, positive, warning, danger, info, accent (got "green").');
    const notJson = await runCli(['dashboard', 'check', '-'], { env, input: '{"slug":' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^svc: standard input is not valid JSON: /);
  });
});
