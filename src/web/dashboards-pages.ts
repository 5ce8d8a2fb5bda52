/**
 * GET /d (the index) and GET /d/:slug (one dashboard, `?print=1` for the print view, `?kiosk=1` for a
 * wall display). A dashboard version is immutable, so its page is rendered once, kept in the page cache
 * and revalidated by ETag: a repeat visit costs one header lookup and a 304.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActorContext, Services } from '../context.js';
import type { DashboardVersionRef } from '../events.js';
import { findDashboardHeader, findDashboardVersion, getDashboardVersions, listDashboards, type StoredVersion } from '../dashboards/read-dashboards.js';
import { anyDashboardPublished, publishedVersion } from '../dashboards/server-reads.js';
import type { DashboardSpec } from '../dashboards/spec-schema.js';
import { blockCsv } from '../dashboards/block-csv.js';
import type { ChartWidths } from '../dashboards/render/chart-slots.js';
import { AppError, notFound } from '../errors.js';
import { etagMatches } from '../server/etag.js';
import { BUILD_ID } from './assets.js';
import { renderDashboardIndex } from './dashboard-index.js';
import { renderDashboardHistory } from './dashboard-history.js';
import { dashboardPaths, type View } from './dashboard-page.js';
import { CHART_WIDTH_HEADERS, acceptsGzip, chartWidthsFor, isFlagOn } from './http-helpers.js';
import { renderPage } from './layout.js';
import { PageCache, type CachedPage } from './page-cache.js';
import type { PageRenderer, RenderPriority } from './page-renderer.js';
import { SharedWork } from '../shared-work.js';
import { clientSignal } from '../server/client-signal.js';
import { Prerenderer } from './prerender.js';
import { pageHeaders, sendPage } from './send-page.js';
import { redirectToLogin, webActor } from './web-auth.js';

export const PAGE_CACHE_BYTES = 64 * 1024 * 1024;
/** A version whose drawing ran out of time is not drawn again for this long. */
const TIMED_OUT_RETRY_MS = 10 * 60 * 1000;
const MAX_TIMED_OUT = 1000;

/**
 * Which dashboard a page belongs to: the account, and when the dashboard was created, since a slug that
 * is deleted and published again starts over at version 1 and must not be served the old pages.
 */
function dashboardTag(page: DashboardVersionRef): string {
  return createHash('sha256').update(`${page.accountId}\u0000${page.createdAt}`).digest('base64url').slice(0, 12);
}

/**
 * How a version is shown: on screen or as printed, as the current version or an archived one, with
 * the charts drawn at the widths of a laptop, of a phone or both.
 */
interface PageVariant {
  view: View;
  archived: boolean;
  chartWidths: ChartWidths;
}

/** What a publish pre-renders: the current version on a laptop's screen, then on a phone's. */
const PRERENDERED: readonly PageVariant[] = [
  { view: 'screen', archived: false, chartWidths: 'wide' },
  { view: 'screen', archived: false, chartWidths: 'narrow' },
];

const VIEW_TAGS: Record<View, string> = { screen: 's', print: 'p', kiosk: 'k' };
const WIDTH_TAGS: Record<ChartWidths, string> = { both: 'b', wide: 'w', narrow: 'n' };

function variantTag({ view, archived, chartWidths }: PageVariant): string {
  return `${VIEW_TAGS[view]}${archived ? 'a' : ''}${WIDTH_TAGS[chartWidths]}`;
}

/** The variant a request asks for; a print preview is laid out on A4 whatever the screen, so it draws the wide charts. */
function variantOf(request: FastifyRequest<{ Querystring: PageQuery }>, view: View, archived: boolean): PageVariant {
  const chartWidths = chartWidthsFor(request.headers, request.query.drawings);
  return { view, archived, chartWidths: view === 'print' && chartWidths === 'narrow' ? 'wide' : chartWidths };
}

/** Weak (the body may be sent gzipped or not); names the dashboard so a shared browser never mixes two. */
export function dashboardEtag(page: DashboardVersionRef, variant: PageVariant): string {
  return `W/"${dashboardTag(page)}-${page.version}-${variantTag(variant)}-${BUILD_ID}"`;
}

function pageKey(page: DashboardVersionRef, variant: PageVariant): string {
  return `${page.accountId}\u0000${page.slug}\u0000${page.createdAt}\u0000${page.version}\u0000${variantTag(variant)}`;
}

/** A version number as the URL spells it: no sign, no leading zero. */
function positiveInteger(text: string): number | null {
  return /^[1-9]\d{0,8}$/.test(text) ? Number(text) : null;
}

/** `?print=1` wins over `?kiosk=1`; only the current version has a wall display (an archived one never changes). */
function viewOf(query: { print?: string; kiosk?: string }, kioskAllowed: boolean): View {
  if (isFlagOn(query.print)) return 'print';
  return kioskAllowed && isFlagOn(query.kiosk) ? 'kiosk' : 'screen';
}

interface PageQuery {
  print?: string;
  kiosk?: string;
  drawings?: string;
}

const PAGE_VARY = `Cookie, Authorization, Accept-Encoding, ${CHART_WIDTH_HEADERS}`;
const NOT_MODIFIED_HEADERS = { 'cache-control': 'private, no-cache', vary: PAGE_VARY };

/**
 * Server-Timing of a page drawn for this visit, shown in the browser's developer tools: how long the
 * visit waited, and how many charts were drawn for it rather than taken from earlier pages.
 */
function drawnTiming(page: CachedPage, waitedMs: number): string {
  return `page;desc="drawn";dur=${waitedMs.toFixed(1)}, charts;desc="${page.charts.drawn} drawn, ${page.charts.reused} reused"`;
}

function sendCached(request: FastifyRequest, reply: FastifyReply, page: CachedPage): FastifyReply {
  pageHeaders(reply, page.csp)
    .header('etag', page.etag)
    .header('cache-control', 'private, no-cache')
    .header('vary', PAGE_VARY);
  if (acceptsGzip(request.headers['accept-encoding'])) return reply.header('content-encoding', 'gzip').send(page.gzip);
  return reply.send(page.body);
}

async function requireActor(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<ActorContext | null> {
  const ctx = await webActor(services, request);
  if (!ctx) redirectToLogin(request, reply);
  return ctx;
}

/** `renderer` belongs to the app, which closes it (the dashboard check draws with it too). */
export function dashboardPageRoutes(app: FastifyInstance, services: Services, renderer: PageRenderer): void {
  const cache = new PageCache(PAGE_CACHE_BYTES);
  /**
   * Renders under way, so two visitors of one new version share one; it is stopped when every visitor
   * waiting for it has gone. A visitor does not join a pre-render, whose jobs run only on idle threads: a
   * fresh dashboard's first visitor would wait as long as other pages and checks keep the threads busy.
   */
  const rendering = new SharedWork<CachedPage>();
  /**
   * Versions whose drawing ran out of time, and when. A version never changes, so drawing it again would
   * only hold a render thread for the whole time limit once more; visitors get the 503 at once instead.
   */
  const timedOut = new Map<string, number>();

  function refuseTimedOut(key: string, version: number): void {
    const since = timedOut.get(key);
    if (since === undefined) return;
    const elapsedMs = performance.now() - since;
    if (elapsedMs >= TIMED_OUT_RETRY_MS) {
      timedOut.delete(key);
      return;
    }
    const limit = Math.round(services.config.renderTimeoutMs / 100) / 10;
    throw new AppError(
      'RENDER_TIMEOUT',
      `Drawing version ${version} of this dashboard took longer than ${limit} s ${Math.round(elapsedMs / 1000)} s ago and was stopped; it is tried again ${Math.ceil((TIMED_OUT_RETRY_MS - elapsedMs) / 60_000)} min from now at the earliest. A chart's \`option\` probably asks ECharts for far too much; simplify it and publish a new version.`,
    );
  }

  /**
   * Draws a page that is not in the cache (or joins the drawing under way) and caches it. `load` reads
   * the version: as the visitor, or as the server for a pre-render. `signal`: the visitor's, aborted when
   * they leave; none for a pre-render.
   */
  function drawPage(
    target: DashboardVersionRef,
    variant: PageVariant,
    priority: RenderPriority,
    load: () => Promise<StoredVersion | null>,
    signal?: AbortSignal,
  ): Promise<CachedPage> {
    const { accountId, slug, version } = target;
    const key = pageKey(target, variant);
    return rendering.run(`${priority}\u0000${key}`, signal, async (stillWanted) => {
      refuseTimedOut(key, version);
      const stored = await load();
      if (!stored) throw notFound('dashboard', slug);
      // Warming up costs seconds of CPU, spent only by a server whose pages people open: not by one
      // that takes publishes (and pre-renders them) with nobody looking.
      if (priority === 'visitor') renderer.warmUp();
      try {
        const page = await renderer.render(stored.spec, { version, updatedAt: stored.created_at, ...variant }, accountId, { priority, signal: stillWanted });
        return cache.set(key, { etag: dashboardEtag(target, variant), ...page });
      } catch (error) {
        if (error instanceof AppError && error.code === 'RENDER_TIMEOUT') {
          if (timedOut.size >= MAX_TIMED_OUT) timedOut.delete(timedOut.keys().next().value as string);
          timedOut.set(key, performance.now());
        }
        throw error;
      }
    });
  }

  // Drawn in the request thread, a pre-render would hold up every request; so only with render threads.
  if (services.config.renderThreads > 0) {
    const prerenderer = new Prerenderer({
      quietMs: services.config.prerenderQuietMs,
      maxPending: 1000,
      canRender: () => renderer.idle,
      render: async (target) => {
        // One after the other: the phone's page reuses the drawings the laptop's has made.
        for (const variant of PRERENDERED) {
          if (!cache.get(pageKey(target, variant))) await drawPage(target, variant, 'background', () => publishedVersion(services, target));
        }
        services.events.emit('dashboard.prerendered', target);
      },
      onError: (error, target) => {
        // Deleted before it was drawn: nothing to do. Anything else is drawn again on first view.
        if (error instanceof AppError && error.code === 'NOT_FOUND') return;
        app.log.warn({ err: error, slug: target.slug, version: target.version }, 'pre-rendering a dashboard failed');
      },
    });
    app.webPages.prerenderer = prerenderer;
    const unsubscribe = services.events.on('dashboard.published', (event) => prerenderer.published(event));
    // A server with dashboards to show has its render threads loaded and warm before the first visitor.
    app.addHook('onReady', async () => {
      if (await anyDashboardPublished(services)) renderer.warmUp();
    });
    app.addHook('onClose', async () => {
      unsubscribe();
      prerenderer.close();
    });
  }

  app.get('/d', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await requireActor(services, request, reply);
    if (!ctx) return reply;
    const dashboards = await listDashboards(ctx);
    const page = renderPage({ title: 'Dashboards', body: renderDashboardIndex(dashboards), crumbs: [{ label: 'Dashboards' }] });
    return sendPage(reply, 200, page);
  });

  /** The signed-in reader and the dashboard's header, or null once redirected to sign in. */
  async function readableDashboard(request: FastifyRequest, reply: FastifyReply, slug: string) {
    const ctx = await requireActor(services, request, reply);
    if (!ctx) return null;
    const header = await findDashboardHeader(ctx, slug);
    if (!header) throw notFound('dashboard', slug);
    return { ctx, header };
  }

  /** A version's page: 304 for the browser's copy, the cached page, or one drawn now. */
  async function sendVersionPage(request: FastifyRequest, reply: FastifyReply, ctx: ActorContext, target: DashboardVersionRef, variant: PageVariant): Promise<FastifyReply> {
    const etag = dashboardEtag(target, variant);
    if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).header('etag', etag).headers(NOT_MODIFIED_HEADERS).send();
    // Server-Timing shows in the browser's developer tools whether this visit waited for a drawing.
    const started = performance.now();
    const cached = cache.get(pageKey(target, variant));
    const page = cached ?? (await drawPage(target, variant, 'visitor', () => findDashboardVersion(ctx, target.slug, target.version), clientSignal(request, reply)));
    reply.header('server-timing', cached ? 'page;desc="cached"' : drawnTiming(page, performance.now() - started));
    return sendCached(request, reply, page);
  }

  app.get<{ Params: { slug: string }; Querystring: PageQuery }>('/d/:slug', { schema: { hide: true } }, async (request, reply) => {
    const found = await readableDashboard(request, reply, request.params.slug);
    if (!found) return reply;
    const { ctx, header } = found;
    const target: DashboardVersionRef = { accountId: ctx.actor.accountId, slug: request.params.slug, createdAt: header.created_at, version: header.version };
    return sendVersionPage(request, reply, ctx, target, variantOf(request, viewOf(request.query, true), false));
  });

  // What an open page asks to learn of a newer version: the number and time only, never cached.
  app.get<{ Params: { slug: string } }>('/d/:slug/latest.json', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await webActor(services, request);
    if (!ctx) return reply.code(401).header('cache-control', 'no-store').send({ error: 'Sign in to follow this dashboard.', code: 'UNAUTHENTICATED' });
    const slug = request.params.slug;
    const header = await findDashboardHeader(ctx, slug);
    if (!header) return reply.code(404).header('cache-control', 'no-store').send({ error: `No dashboard "${slug}" in this account.`, code: 'NOT_FOUND' });
    return reply.header('cache-control', 'no-store').send({ version: header.version, updated_at: header.updated_at, url: dashboardPaths(slug).current });
  });

  // A table, chart or heatmap of a version as CSV. The spec is parsed here, in the request thread: at
  // most tens of milliseconds for the largest legal spec, for a download someone asked for.
  app.get<{ Params: { slug: string; version: string; section: string; file: string } }>(
    '/d/:slug/versions/:version/sections/:section/blocks/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const { slug } = request.params;
      const found = await readableDashboard(request, reply, slug);
      if (!found) return reply;
      const { ctx } = found;
      const version = positiveInteger(request.params.version);
      const section = /^\d{1,6}$/.test(request.params.section) ? Number(request.params.section) : NaN;
      const block = /^(\d{1,6})\.csv$/.exec(request.params.file);
      const stored = version === null ? null : await findDashboardVersion(ctx, slug, version);
      if (!stored) throw new AppError('NOT_FOUND', `Dashboard "${slug}" has no version ${JSON.stringify(request.params.version)}.`);
      const spec = JSON.parse(stored.spec) as DashboardSpec;
      const data = block ? spec.sections?.[section]?.blocks?.[Number(block[1])] : undefined;
      const csv = data ? blockCsv(data) : null;
      if (!block || !data || csv === null) {
        throw new AppError(
          'NOT_FOUND',
          `Version ${version} of dashboard "${slug}" has no table, chart or heatmap at /sections/${request.params.section}/blocks/${request.params.file.replace(/\.csv$/, '')}; their data downloads as …/sections/<n>/blocks/<n>.csv.`,
        );
      }
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${slug}-v${version}-${data.type}-${section}-${block[1]}.csv"`)
        .header('cache-control', 'private, no-cache')
        .header('x-content-type-options', 'nosniff')
        .send(csv);
    },
  );

  app.get<{ Params: { slug: string } }>('/d/:slug/versions', { schema: { hide: true } }, async (request, reply) => {
    const found = await readableDashboard(request, reply, request.params.slug);
    if (!found) return reply;
    const { ctx, header } = found;
    const slug = request.params.slug;
    const versions = await getDashboardVersions(ctx, slug);
    const paths = dashboardPaths(slug);
    const page = renderPage({
      title: `${header.title}: versions`,
      body: renderDashboardHistory(header.title, slug, versions),
      crumbs: [{ label: 'Dashboards', href: '/d' }, { label: header.title, href: paths.current }, { label: 'Versions' }],
    });
    return sendPage(reply, 200, page);
  });

  app.get<{ Params: { slug: string; version: string }; Querystring: PageQuery }>('/d/:slug/versions/:version', { schema: { hide: true } }, async (request, reply) => {
    const found = await readableDashboard(request, reply, request.params.slug);
    if (!found) return reply;
    const { ctx, header } = found;
    const slug = request.params.slug;
    const version = positiveInteger(request.params.version) ?? NaN;
    if (!(version <= header.version)) {
      throw new AppError('NOT_FOUND', `Dashboard "${slug}" has no version ${JSON.stringify(request.params.version)}; its versions run from 1 to ${header.version}.`);
    }
    const view = viewOf(request.query, false);
    // The current version has one address, so one cached page and one ETag.
    if (version === header.version) {
      const query = new URLSearchParams(view === 'print' ? { print: '1' } : request.query.drawings === 'all' ? { drawings: 'all' } : {}).toString();
      return reply.redirect(`${dashboardPaths(slug).current}${query ? `?${query}` : ''}`, 302);
    }
    const target: DashboardVersionRef = { accountId: ctx.actor.accountId, slug, createdAt: header.created_at, version };
    return sendVersionPage(request, reply, ctx, target, variantOf(request, view, true));
  });
}
