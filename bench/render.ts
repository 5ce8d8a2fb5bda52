/**
 * Dashboard pages: first render of the example gallery and of a 5,000-row × 8-column table, the cached
 * page (over HTTP to a separate server process, and in-process through Fastify's inject), and the
 * gzipped weight of the gallery page with its stylesheet and script.
 *
 * The gallery is drawn as a laptop's browser gets it, its charts at the laptop width; the same page
 * for a phone, and with both widths (what the client script fetches when a window is narrowed), are
 * reported beside it.
 *
 * Each render figure sits beside a floor measured in the same run: parsing the same spec and escaping
 * every string in it into a minimal template, which any server-rendered page must at least do.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '../src/config.js';
import { buildLargeTableSpec } from '../src/dashboards/fixtures/specs.js';
import * as echarts from 'echarts/dist/echarts.esm';
import { chartCache } from '../src/dashboards/render/chart-cache.js';
import { jobOption } from '../src/dashboards/render/chart-drawing.js';
import type { ChartWidths } from '../src/dashboards/render/chart-slots.js';
import { escapeHtml, formatNumber } from '../src/dashboards/render/escape.js';
import type { DashboardSpec } from '../src/dashboards/spec-schema.js';
import { startServer } from '../src/server/start.js';
import { scriptAsset, stylesheetAsset } from '../src/web/assets.js';
import { planDashboardPage, renderDashboardPage } from '../src/web/dashboard-page.js';
import { PageRenderer } from '../src/web/page-renderer.js';
import { loadServer } from './http-load.js';
import { round, startBenchServer, timeMedian } from './support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** bench runs from dist/bench; the examples stay in the repository. */
const GALLERY_PATH = [path.resolve(here, '../../examples/dashboards/engineering-health.json'), path.resolve(here, '../examples/dashboards/engineering-health.json')].find((candidate) =>
  fs.existsSync(candidate),
);
/**
 * A laptop's page: its charts drawn at the laptop width only, as svc serves a browser that is not a
 * phone's (the phone width is brought by the client script if the window is narrowed; see ChartWidths).
 */
const META = { version: 1, updatedAt: '2024-05-03T09:00:00.000Z', view: 'screen' as const, chartWidths: 'wide' as ChartWidths };

/** The least a server-rendered page does: parse the spec and escape each string and number into markup. */
function renderFloor(specText: string): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') parts.push('<p>', escapeHtml(value), '</p>');
    else if (typeof value === 'number') parts.push('<p>', formatNumber(value), '</p>');
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) walk(item);
  };
  walk(JSON.parse(specText));
  return parts.join('');
}

/**
 * The floor under a page's charts: ECharts alone drawing the page's options (made beforehand) to SVG
 * strings, with nothing of svc around it: no layout, no checking or placing of the SVG, no threads.
 */
function drawWithEChartsAlone(drawings: ReadonlyArray<{ option: Record<string, unknown>; width: number; height: number }>): number {
  let bytes = 0;
  for (const { option, width, height } of drawings) {
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
    chart.setOption(option);
    bytes += chart.renderToSVGString().length;
    chart.dispose();
  }
  return bytes;
}

function renderPage(specText: string): string {
  return renderDashboardPage(specText, META).html;
}

/** Every number under `value` nudged by a billionth per version: the same drawing work, another drawing. */
function nudged(value: unknown, version: number): unknown {
  if (typeof value === 'number') return value * (1 + version * 1e-9);
  if (Array.isArray(value)) return value.map((item) => nudged(item, version));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, nudged(item, version)]));
  return value;
}

const CHART_DATA_FIELDS = ['series', 'values', 'value'];

/**
 * The same dashboard as a new version, every block retitled and every chart's data nudged: drawings
 * are cached by what they are drawn from, so a new version whose charts were never drawn needs new data.
 */
function freshVersion(spec: DashboardSpec, version: number): DashboardSpec {
  return {
    ...spec,
    sections: (spec.sections ?? []).map((section) => ({
      ...section,
      blocks: (section.blocks ?? []).map((block) => {
        const renamed: Record<string, unknown> = 'title' in block && block.type !== 'callout' ? { ...block, title: `${block.title ?? 'Block'} v${version}` } : { ...block };
        if (block.type === 'chart' || block.type === 'heatmap' || block.type === 'gauge') {
          for (const field of CHART_DATA_FIELDS) if (field in renamed) renamed[field] = nudged(renamed[field], version);
        }
        return renamed as typeof block;
      }),
    })),
  };
}

/** A GET that reads the body as sent (gzipped), as a browser's network layer would, without decoding it in JS. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ bytes: number; serverTiming: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () => resolve({ bytes, serverTiming: String(response.headers['server-timing'] ?? '') }));
      })
      .on('error', reject);
  });
}

async function publish(url: string, token: string, body: string): Promise<void> {
  const response = await fetch(`${url}/api/dashboards`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
  if (!response.ok) throw new Error(`publish failed: ${response.status} ${await response.text()}`);
}

async function measureInProcess(galleryText: string): Promise<{ cachedInjectMs: number; notModifiedInjectMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-render-'));
  const token = 'svc_u_bench_render_token';
  const server = await startServer(loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, adminToken: token, logLevel: 'warn', databaseUrl: '' }), { baseUrlExplicit: false });
  try {
    await publish(server.url, token, galleryText);
    const headers = { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' };
    const first = await server.app.inject({ method: 'GET', url: '/d/engineering-health', headers });
    const etag = String(first.headers.etag ?? '');
    const cachedInjectMs = await timeMedian(300, 30, () => server.app.inject({ method: 'GET', url: '/d/engineering-health', headers }));
    const notModifiedInjectMs = await timeMedian(300, 30, () => server.app.inject({ method: 'GET', url: '/d/engineering-health', headers: { ...headers, 'if-none-match': etag } }));
    return { cachedInjectMs: round(cachedInjectMs, 3), notModifiedInjectMs: round(notModifiedInjectMs, 3) };
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The server's path: the page laid out on a render thread, its drawings spread over all of them, and
 * the page finished (and gzipped) on one. Each render is a new version whose charts were never drawn.
 * The threads first draw 20 such pages, as in a server that has been drawing pages for a while: a new
 * thread's first pages take about twice as long while V8 compiles ECharts (the HTTP figures below
 * include that).
 */
async function measureOnRenderThreads(gallerySpec: DashboardSpec): Promise<{ threads: number } & Record<ChartWidths, number>> {
  const threads = os.availableParallelism();
  const renderer = new PageRenderer({ threads, timeoutMs: 20_000 });
  try {
    let version = 0;
    renderer.start();
    const firstRender = (chartWidths: ChartWidths) =>
      timeMedian(15, 20, () => {
        version += 1;
        return renderer.render(JSON.stringify(freshVersion(gallerySpec, version)), { ...META, version, chartWidths }, 'bench');
      }).then((ms) => round(ms));
    // The laptop's page last, on threads that have drawn the most pages.
    const narrow = await firstRender('narrow');
    const both = await firstRender('both');
    const wide = await firstRender('wide');
    return { threads, wide, narrow, both };
  } finally {
    await renderer.close();
  }
}

export async function runRenderBench(): Promise<Record<string, unknown>> {
  if (!GALLERY_PATH) throw new Error('examples/dashboards/engineering-health.json not found');
  const galleryText = fs.readFileSync(GALLERY_PATH, 'utf8');
  const gallerySpec = JSON.parse(galleryText) as DashboardSpec;
  const tableSpec = buildLargeTableSpec(5000, 8);
  const tableText = JSON.stringify(tableSpec);
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);

  // In-process renders. "First render" clears the chart cache, as for a dashboard never seen before.
  const galleryFloorMs = await timeMedian(15, 3, () => renderFloor(galleryText));
  const galleryFirstMs = await timeMedian(9, 2, () => {
    chartCache.clear();
    return renderPage(galleryText);
  });
  const galleryWarmChartsMs = await timeMedian(15, 2, () => renderPage(galleryText));
  const drawingsAt = (chartWidths: ChartWidths) => planDashboardPage(galleryText, { ...META, chartWidths }).charts.jobs.map((job) => ({ option: jobOption(job), width: job.width, height: job.height }));
  const galleryDrawings = drawingsAt('wide');
  const echartsAloneMs = await timeMedian(15, 20, () => drawWithEChartsAlone(galleryDrawings));
  const bothWidthsDrawings = drawingsAt('both');
  const echartsAloneBothWidthsMs = await timeMedian(15, 20, () => drawWithEChartsAlone(bothWidthsDrawings));
  const tableFloorMs = await timeMedian(9, 2, () => renderFloor(tableText));
  const tableFirstMs = await timeMedian(9, 2, () => renderPage(tableText));
  const threaded = await measureOnRenderThreads(gallerySpec);
  const galleryHtml = renderPage(galleryText);
  const tableHtml = renderPage(tableText);
  const chartsDrawn = (galleryHtml.match(/class="chart-svg [^"]*"><svg/g) ?? []).length;

  const inProcess = await measureInProcess(galleryText);

  // Over HTTP, against svc serve in its own process.
  const server = await startBenchServer();
  let http: Record<string, unknown>;
  try {
    const headers = { authorization: `Bearer ${server.token}`, 'accept-encoding': 'gzip' };
    const get = (route: string, extra: Record<string, string> = {}) => fetch(server.url + route, { headers: { ...headers, ...extra } }).then((response) => response.arrayBuffer());
    let version = 0;
    /** Milliseconds of each first visit right after publishing a new version: the page is drawn for it. */
    const visitsRightAfterPublish = async (count: number): Promise<number[]> => {
      const samples: number[] = [];
      for (let index = 0; index < count; index += 1) {
        version += 1;
        await publish(server.url, server.token, JSON.stringify(freshVersion(gallerySpec, version)));
        const start = performance.now();
        await get('/d/engineering-health');
        samples.push(performance.now() - start);
      }
      return samples;
    };
    // On a server started a moment ago: its render threads start, and warm up, on the first visit.
    const samples = await visitsRightAfterPublish(5);
    // Once the render threads have warmed up (a few seconds of background drawing after the first visit).
    await new Promise((resolve) => setTimeout(resolve, 8000));
    const warmSamples = await visitsRightAfterPublish(5);
    // A person following the link a second after the agent published: the page was drawn in between.
    const laterSamples: number[] = [];
    const laterSources: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      version += 1;
      await publish(server.url, server.token, JSON.stringify(freshVersion(gallerySpec, version)));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const start = performance.now();
      const { serverTiming } = await rawGet(`${server.url}/d/engineering-health`, headers);
      laterSamples.push(performance.now() - start);
      laterSources.push(serverTiming);
    }
    const tableSamples: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      await publish(server.url, server.token, JSON.stringify({ ...tableSpec, title: `${tableSpec.title} ${index}` }));
      const start = performance.now();
      await get(`/d/${tableSpec.slug}`);
      tableSamples.push(performance.now() - start);
    }
    const cachedHttpMs = await timeMedian(200, 20, () => rawGet(`${server.url}/d/engineering-health`, headers));
    const etag = (await fetch(`${server.url}/d/engineering-health`, { headers })).headers.get('etag') ?? '';
    const notModifiedHttpMs = await timeMedian(200, 20, () => rawGet(`${server.url}/d/engineering-health`, { ...headers, 'if-none-match': etag }));
    const load = await loadServer({ url: `${server.url}/d/engineering-health`, connections: 10, seconds, headers });
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    http = {
      galleryFirstVisitRightAfterPublishJustStartedMs: round(sorted(samples)[2] ?? 0),
      galleryFirstVisitRightAfterPublishMs: round(sorted(warmSamples)[2] ?? 0),
      galleryFirstVisitOneSecondAfterPublishMs: round(sorted(laterSamples)[2] ?? 0),
      galleryFirstVisitOneSecondAfterPublishPreRendered: laterSources.filter((source) => source.includes('cached')).length + ' of ' + laterSources.length,
      table5000x8FirstRenderMs: round(sorted(tableSamples)[2] ?? 0),
      cachedPageMs: round(cachedHttpMs, 3),
      notModified304Ms: round(notModifiedHttpMs, 3),
      cachedPagesPerSecond: load.perSecond,
      cachedPageLatencyP99Ms: load.latencyMs.p99,
      loadClient: load.client,
    };
  } finally {
    await server.stop();
  }

  const galleryHtmlGzip = gzipSync(Buffer.from(galleryHtml), { level: 6 }).length;
  const cssGzip = stylesheetAsset.gzip.length;
  const jsGzip = scriptAsset.gzip.length;
  return {
    gallery: {
      blocks: (gallerySpec.sections ?? []).reduce((count, section) => count + (section.blocks ?? []).length, 0),
      echartsDrawings: chartsDrawn,
      firstRenderMs: threaded.wide,
      firstRenderThreads: threaded.threads,
      firstRenderPhoneMs: threaded.narrow,
      firstRenderBothWidthsMs: threaded.both,
      echartsDrawingsBothWidths: bothWidthsDrawings.length,
      echartsAloneBothWidthsOneThreadMs: round(echartsAloneBothWidthsMs),
      firstRenderOneThreadMs: round(galleryFirstMs),
      echartsAloneOneThreadMs: round(echartsAloneMs),
      firstRenderFloorMs: round(galleryFloorMs, 3),
      renderWithChartsCachedMs: round(galleryWarmChartsMs),
      targetMs: 50,
    },
    table5000x8: { firstRenderMs: round(tableFirstMs), firstRenderFloorMs: round(tableFloorMs), htmlBytes: tableHtml.length, gzipBytes: gzipSync(Buffer.from(tableHtml), { level: 6 }).length, targetMs: 250 },
    cached: { inProcessInjectMs: inProcess.cachedInjectMs, inProcess304InjectMs: inProcess.notModifiedInjectMs, targetMs: 2 },
    http,
    weight: {
      galleryHtmlBytes: galleryHtml.length,
      galleryHtmlGzipBytes: galleryHtmlGzip,
      stylesheetGzipBytes: cssGzip,
      scriptBytes: scriptAsset.body.length,
      scriptGzipBytes: jsGzip,
      galleryPageGzipBytes: galleryHtmlGzip + cssGzip + jsGzip,
      targetPageGzipBytes: 200 * 1024,
      targetScriptBytes: 15 * 1024,
    },
  };
}
