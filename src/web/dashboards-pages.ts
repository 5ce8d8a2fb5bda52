/**
 * GET /d (the index) and GET /d/:slug (one dashboard, `?print=1` for the print view). A dashboard
 * version is immutable, so its page is rendered once, kept in the page cache and revalidated by ETag:
 * a repeat visit costs one header lookup and a 304.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActorContext, Services } from '../context.js';
import { requireRead } from '../dashboards/access.js';
import { getDashboard, listDashboards, SLUG_PATTERN } from '../dashboards/read-dashboards.js';
import { renderDashboard } from '../dashboards/render/render-dashboard.js';
import { escapeAttr } from '../dashboards/render/escape.js';
import type { DashboardSpec } from '../dashboards/spec-schema.js';
import { findHeader } from '../dashboards/store.js';
import { notFound } from '../errors.js';
import { BUILD_ID } from './assets.js';
import { renderDashboardIndex } from './dashboard-index.js';
import { acceptsGzip, etagMatches } from './http-helpers.js';
import { PRINT_ICON, renderPage } from './layout.js';
import { PageCache, type CachedPage } from './page-cache.js';
import { pageHeaders, sendPage } from './send-page.js';
import { redirectToLogin, webActor } from './web-auth.js';

export const PAGE_CACHE_BYTES = 64 * 1024 * 1024;

type View = 'screen' | 'print';

function accountTag(accountId: string): string {
  return createHash('sha256').update(accountId).digest('base64url').slice(0, 10);
}

/** Weak (the body may be sent gzipped or not); names the account so a shared browser never mixes two. */
export function dashboardEtag(accountId: string, version: number, view: View): string {
  return `W/"${accountTag(accountId)}-${version}-${view === 'print' ? 'p' : 's'}-${BUILD_ID}"`;
}

/** The page of one dashboard version, rendered from its stored spec text. */
export function renderDashboardPage(specText: string, meta: { version: number; updatedAt: string; view: View }): { html: string; csp: string } {
  const spec = JSON.parse(specText) as DashboardSpec;
  const rendered = renderDashboard(spec, { version: meta.version, updatedAt: meta.updatedAt });
  const slugPath = `/d/${encodeURIComponent(spec.slug)}`;
  const printing = meta.view === 'print';
  const printLink = printing
    ? ''
    : `<a class="btn" href="${escapeAttr(slugPath)}?print=1" rel="nofollow">${PRINT_ICON.replace('<svg', '<svg class="btn-icon"')}<span class="btn-label">Print</span></a>`;
  const previewBar = printing
    ? `<div class="preview-bar"><span>Print preview: A4, light theme, screen-only blocks hidden.</span><a class="btn" href="${escapeAttr(slugPath)}">Back to the dashboard</a><button class="btn" type="button" data-print>Print</button></div>`
    : '';
  return renderPage({
    title: rendered.title,
    body: rendered.html,
    crumbs: [{ label: 'Dashboards', href: '/d' }, { label: rendered.title }],
    actions: printLink,
    printPreview: printing,
    scriptHashes: rendered.frameScriptHashes,
    beforeMain: previewBar,
  });
}

function sendCached(request: FastifyRequest, reply: FastifyReply, page: CachedPage): FastifyReply {
  pageHeaders(reply, page.csp)
    .header('etag', page.etag)
    .header('cache-control', 'private, no-cache')
    .header('vary', 'Cookie, Authorization, Accept-Encoding');
  if (acceptsGzip(request.headers['accept-encoding'])) return reply.header('content-encoding', 'gzip').send(page.gzip);
  return reply.send(page.body);
}

async function requireActor(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<ActorContext | null> {
  const ctx = await webActor(services, request);
  if (!ctx) redirectToLogin(request, reply);
  return ctx;
}

export function dashboardPageRoutes(app: FastifyInstance, services: Services, cache = new PageCache(PAGE_CACHE_BYTES)): void {
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/d', 302));

  app.get('/d', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await requireActor(services, request, reply);
    if (!ctx) return reply;
    const dashboards = await listDashboards(ctx);
    const page = renderPage({ title: 'Dashboards', body: renderDashboardIndex(dashboards), crumbs: [{ label: 'Dashboards' }] });
    return sendPage(reply, 200, page);
  });

  app.get<{ Params: { slug: string }; Querystring: { print?: string } }>('/d/:slug', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await requireActor(services, request, reply);
    if (!ctx) return reply;
    requireRead(ctx);
    const slug = request.params.slug;
    if (slug.length > 80 || !SLUG_PATTERN.test(slug)) throw notFound('dashboard', slug);
    const header = await findHeader(ctx.db, ctx.actor.accountId, slug);
    if (!header) throw notFound('dashboard', slug);
    const view: View = request.query.print === '1' || request.query.print === 'true' ? 'print' : 'screen';
    const etag = dashboardEtag(ctx.actor.accountId, header.version, view);
    if (etagMatches(request.headers['if-none-match'], etag)) {
      return reply.code(304).header('etag', etag).header('cache-control', 'private, no-cache').header('vary', 'Cookie, Authorization, Accept-Encoding').send();
    }
    const key = `${ctx.actor.accountId}\u0000${slug}\u0000${header.version}\u0000${view}`;
    let page = cache.get(key);
    if (!page) {
      const doc = await getDashboard(ctx, slug, header.version);
      const rendered = renderDashboardPage(doc.specText, { version: doc.version, updatedAt: doc.updated_at, view });
      page = cache.set(key, { etag, ...rendered });
    }
    return sendCached(request, reply, page);
  });
}
