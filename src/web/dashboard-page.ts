/**
 * The HTML of one dashboard version, from its stored spec text. A pure function of its input, so it can
 * run on a render thread (see page-renderer.ts) as well as in the request's own thread.
 */
import { fillChartsDrawnHere } from '../dashboards/render/chart-drawing.js';
import type { ChartPlan } from '../dashboards/render/chart-slots.js';
import { planDashboard } from '../dashboards/render/render-dashboard.js';
import { escapeAttr } from '../dashboards/render/escape.js';
import type { DashboardSpec } from '../dashboards/spec-schema.js';
import { PRINT_ICON, renderPage } from './layout.js';

export type View = 'screen' | 'print';

export interface PageMeta {
  version: number;
  updatedAt: string;
  view: View;
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
  const rendered = planDashboard(spec, { version: meta.version, updatedAt: meta.updatedAt });
  const slugPath = `/d/${encodeURIComponent(spec.slug)}`;
  const printing = meta.view === 'print';
  const printLink = printing
    ? ''
    : `<a class="btn" href="${escapeAttr(slugPath)}?print=1" rel="nofollow">${PRINT_ICON.replace('<svg', '<svg class="btn-icon"')}<span class="btn-label">Print</span></a>`;
  const previewBar = printing
    ? `<div class="preview-bar"><span>Print preview: A4, light theme, screen-only blocks hidden.</span><a class="btn" href="${escapeAttr(slugPath)}">Back to the dashboard</a><button class="btn" type="button" data-print>Print</button></div>`
    : '';
  const page = renderPage({
    title: rendered.title,
    body: rendered.html,
    crumbs: [{ label: 'Dashboards', href: '/d' }, { label: rendered.title }],
    actions: printLink,
    printPreview: printing,
    scriptHashes: rendered.frameScriptHashes,
    beforeMain: previewBar,
  });
  return { ...page, charts: rendered.charts };
}

/** The page of one dashboard version, its charts drawn in this thread. */
export function renderDashboardPage(specText: string, meta: PageMeta): RenderedPage {
  const { charts, html, csp } = planDashboardPage(specText, meta);
  return { html: fillChartsDrawnHere(html, charts), csp };
}
