/** The /d page: the account's dashboards as cards, grouped by `group`, in the API's order. */
import { escapeAttr, escapeHtml } from '../dashboards/render/escape.js';
import { timeElement } from '../dashboards/render/render-dashboard.js';
import type { DashboardSummary } from '../dashboards/read-dashboards.js';

const TONES = new Set(['neutral', 'positive', 'warning', 'danger', 'info', 'accent']);

interface Group {
  name: string | null;
  dashboards: DashboardSummary[];
}

/** Consecutive runs would split a group whose members differ in groupOrder; group by name instead. */
export function groupDashboards(dashboards: readonly DashboardSummary[]): Group[] {
  const groups = new Map<string | null, Group>();
  for (const dashboard of dashboards) {
    const key = dashboard.group ?? null;
    let group = groups.get(key);
    if (!group) {
      group = { name: key, dashboards: [] };
      groups.set(key, group);
    }
    group.dashboards.push(dashboard);
  }
  // Each group where its first dashboard is in the API's order, ungrouped ones too: a groupOrder of -1
  // puts them first.
  return [...groups.values()];
}

function renderCard(dashboard: DashboardSummary): string {
  const tone = dashboard.tone && TONES.has(dashboard.tone) ? ` t-${dashboard.tone}` : '';
  return (
    `<li><a class="card${tone}" href="/d/${escapeAttr(encodeURIComponent(dashboard.slug))}">` +
    `<span class="card-title">${escapeHtml(dashboard.title)}</span>` +
    (dashboard.subtitle ? `<span class="card-sub">${escapeHtml(dashboard.subtitle)}</span>` : '') +
    `<span class="card-foot">${dashboard.layout === 'report' ? '<span class="card-tag">Report</span>' : ''}` +
    `<span>Updated ${timeElement(dashboard.updated_at)}</span><span>v${dashboard.version}</span></span></a></li>`
  );
}

/** From this many dashboards on, the index has a filter box (see the client script). */
const FILTER_FROM = 8;

export function renderDashboardIndex(dashboards: readonly DashboardSummary[]): string {
  const count = dashboards.length;
  const filter =
    count >= FILTER_FROM
      ? `<input class="index-filter" type="search" data-index-filter placeholder="Filter by title, subtitle or group" aria-label="Filter dashboards" autocomplete="off">`
      : '';
  const head = `<div class="index-head"><div><h1>Dashboards</h1><p data-index-count="${count}">${count === 1 ? '1 dashboard' : `${count} dashboards`} in this account</p></div>${filter}</div>`;
  if (count === 0) {
    return (
      head +
      `<div class="empty-state"><h2>No dashboards yet</h2><p>Publish a dashboard spec and it appears here.</p>` +
      `<pre><code>svc dashboard publish dashboard.json</code></pre></div>`
    );
  }
  const groups = groupDashboards(dashboards);
  const named = groups.some((group) => group.name !== null);
  const sections = groups
    .map((group) => {
      // Not "Other", which a group may well be called.
      const title = group.name ?? (named ? 'Ungrouped' : '');
      const heading = title
        ? `<h2 class="dgroup-title"><span class="dgroup-name">${escapeHtml(title)}</span><span class="dgroup-count">${group.dashboards.length}</span></h2>`
        : '';
      // The group's name takes part in the filter: "platform" finds every dashboard of the Platform group.
      return `<section class="dgroup" data-group="${escapeAttr(group.name ?? '')}">${heading}<ul class="cards">${group.dashboards.map(renderCard).join('')}</ul></section>`;
    })
    .join('');
  const noMatch = count >= FILTER_FROM ? '<p class="index-none" hidden>No dashboard matches the filter.</p>' : '';
  return head + sections + noMatch;
}
