/** /d/:slug/versions: a dashboard's versions, newest first, each linking to its page. */
import { escapeAttr, escapeHtml, formatNumber } from '../dashboards/render/escape.js';
import { timeElement } from '../dashboards/render/render-dashboard.js';
import { dashboardPaths } from './dashboard-page.js';

/** An agent publishing every few minutes makes thousands; the API lists them all. */
const LISTED_VERSIONS = 500;

export interface VersionEntry {
  version: number;
  created_at: string;
}

/** `versions` newest first; the first is the current one. */
export function renderDashboardHistory(title: string, slug: string, versions: readonly VersionEntry[]): string {
  const paths = dashboardPaths(slug);
  const count = versions.length;
  const head = `<div class="index-head"><div><h1>${escapeHtml(title)}</h1><p>${count === 1 ? '1 version' : `${formatNumber(count)} versions`}, newest first</p></div></div>`;
  const items = versions
    .slice(0, LISTED_VERSIONS)
    .map((entry, index) => {
      const href = index === 0 ? paths.current : paths.version(entry.version);
      const tag = index === 0 ? '<span class="current-tag">Current</span>' : '';
      return `<li><a href="${escapeAttr(href)}">Version ${entry.version}</a>${tag}<span class="when">${timeElement(entry.created_at)}</span></li>`;
    })
    .join('');
  const more =
    count > LISTED_VERSIONS
      ? `<p class="versions-more">${formatNumber(count - LISTED_VERSIONS)} older versions are not listed here; <code>GET /api/dashboards/${escapeHtml(slug)}/versions</code> lists them all, and each has its page at <code>${escapeHtml(paths.history)}/&lt;n&gt;</code>.</p>`
      : '';
  return `${head}<ol class="versions">${items}</ol>${more}`;
}
