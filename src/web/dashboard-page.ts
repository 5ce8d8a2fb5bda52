/**
 * The HTML of one dashboard version, from its stored spec text. A pure function of its input, so it can
 * run on a render thread (see page-renderer.ts) as well as in the request's own thread.
 */
import { fillChartsDrawnHere } from '../dashboards/render/chart-drawing.js';
import type { ChartPlan, ChartWidths } from '../dashboards/render/chart-slots.js';
import { planDashboard, timeElement } from '../dashboards/render/render-dashboard.js';
import { escapeAttr } from '../dashboards/render/escape.js';
import type { DashboardSpec } from '../dashboards/spec-schema.js';
import { PRINT_ICON, renderPage } from './layout.js';

/** On screen, as printed (`?print=1`), or on a wall display (`?kiosk=1`: no top bar, follows new versions). */
export type View = 'screen' | 'print' | 'kiosk';

export interface PageMeta {
  version: number;
  updatedAt: string;
  view: View;
  /** Which of a chart's two widths the page draws (default `both`; see ChartWidths). */
  chartWidths?: ChartWidths;
  /** An earlier version, shown at /d/:slug/versions/:n under a bar that says so and links to the current one. */
  archived?: boolean;
}

/** Where a dashboard's pages are: the current version, one version, the list of them, and the latest version's number. */
export function dashboardPaths(slug: string): { current: string; kiosk: string; history: string; version: (n: number) => string; latest: string } {
  const current = `/d/${encodeURIComponent(slug)}`;
  return { current, kiosk: `${current}?kiosk=1`, history: `${current}/versions`, version: (n) => `${current}/versions/${n}`, latest: `${current}/latest.json` };
}

/** The footer's links: the version history once there is one, and into or out of the wall display. */
function footerLinks(meta: PageMeta, paths: ReturnType<typeof dashboardPaths>): Array<{ label: string; href: string }> {
  const links: Array<{ label: string; href: string }> = [];
  // A first version has no history to show; an archived one always has a later version.
  if (meta.version > 1 || meta.archived) links.push({ label: 'All versions', href: paths.history });
  if (meta.view === 'kiosk') links.push({ label: 'Leave wall display', href: paths.current });
  else if (meta.view === 'screen' && !meta.archived) links.push({ label: 'Wall display', href: paths.kiosk });
  return links;
}

export interface RenderedPage {
  html: string;
  csp: string;
}

/** A page laid out, waiting for the drawings its `charts` lists (see chart-slots.ts). */
export interface PlannedPage extends RenderedPage {
  charts: ChartPlan;
}

/** The page of one dashboard version with a marker where each chart drawing goes. */
export function planDashboardPage(specText: string, meta: PageMeta): PlannedPage {
  const spec = JSON.parse(specText) as DashboardSpec;
  const paths = dashboardPaths(spec.slug);
  // Downloads name the version, so a table's CSV is the one on the page even once it is republished.
  const rendered = planDashboard(spec, { version: meta.version, updatedAt: meta.updatedAt, downloadBase: paths.version(meta.version), footerLinks: footerLinks(meta, paths), ...(meta.chartWidths ? { chartWidths: meta.chartWidths } : {}) });
  const pagePath = meta.archived ? paths.version(meta.version) : paths.current;
  const printing = meta.view === 'print';
  const kiosk = meta.view === 'kiosk' && !meta.archived;
  const printLink = printing
    ? ''
    : `<a class="btn" href="${escapeAttr(pagePath)}?print=1" rel="nofollow">${PRINT_ICON.replace('<svg', '<svg class="btn-icon"')}<span class="btn-label">Print</span></a>`;
  const previewBar = printing
    ? `<div class="preview-bar" role="region" aria-label="Print preview"><span>Print preview: A4, light theme, screen-only blocks hidden.</span><a class="btn" href="${escapeAttr(pagePath)}">Back to the dashboard</a><button class="btn" type="button" data-print>Print</button></div>`
    : '';
  const archiveBar = meta.archived
    ? `<div class="archive-bar" role="note"><p><strong>Version ${meta.version}</strong>, published ${timeElement(meta.updatedAt)}. This dashboard has been published again since.</p>` +
      `<a class="btn btn-primary" href="${escapeAttr(paths.current)}">Current version</a><a class="btn" href="${escapeAttr(paths.history)}">All versions</a></div>`
    : '';
  // The current version on screen watches for a newer one (see the client script); hidden until then.
  // A wall display shows the newer version by itself, since nobody is there to click.
  const updateBar =
    !meta.archived && !printing
      ? `<div class="update-bar" role="status" hidden data-watch="${escapeAttr(paths.latest)}" data-version="${meta.version}"${kiosk ? ' data-follow' : ''}><p></p><a class="btn btn-primary" href="${escapeAttr(kiosk ? paths.kiosk : paths.current)}" hidden>Show it</a></div>`
      : '';
  const page = renderPage({
    title: meta.archived ? `${rendered.title} (version ${meta.version})` : rendered.title,
    body: rendered.html,
    crumbs: meta.archived
      ? [{ label: 'Dashboards', href: '/d' }, { label: rendered.title, href: paths.current }, { label: `Version ${meta.version}` }]
      : [{ label: 'Dashboards', href: '/d' }, { label: rendered.title }],
    actions: printLink,
    bare: kiosk,
    printPreview: printing,
    scriptHashes: rendered.frameScriptHashes,
    beforeMain: previewBar + archiveBar + updateBar,
  });
  return { ...page, charts: rendered.charts };
}

/** The page of one dashboard version, its charts drawn in this thread. */
export function renderDashboardPage(specText: string, meta: PageMeta): RenderedPage {
  const { charts, html, csp } = planDashboardPage(specText, meta);
  return { html: fillChartsDrawnHere(html, charts), csp };
}
