/** GET / (the reader's projects, where sign-in lands) and GET /projects/:slug (a project's overview). */
import type { FastifyInstance } from 'fastify';
import { listProjects } from '../../projects/projects.js';
import type { ProjectRow } from '../../accounts/access.js';
import { listChangeRequests } from '../../changes/list-change-requests.js';
import type { ChangeRequestRow } from '../../changes/change-request-row.js';
import type { Services } from '../../context.js';
import { listProjectDashboards } from '../../dashboards/read-dashboards.js';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { timeElement } from '../../dashboards/render/render-dashboard.js';
import { listSessions } from '../../sessions/list-sessions.js';
import { UNDER_WAY_STATUSES, type SessionRow } from '../../sessions/session-row.js';
import { renderPage } from '../layout.js';
import { sendPage } from '../send-page.js';
import { triggerOverviewRows, triggersPath } from './trigger-pages.js';
import { loadProjectView, pageActor, projectPath, renderProjectPage, statusBadge, type ProjectView } from './project-page.js';

const RECENT = 8;

function renderProjectList(projects: readonly ProjectRow[]): string {
  const head = `<div class="index-head"><div><h1>Projects</h1><p>${projects.length === 1 ? '1 project' : `${projects.length} projects`} you can open</p></div></div>`;
  if (projects.length === 0) {
    return (
      head +
      `<div class="empty-state"><h2>No projects yet</h2><p>Create one with the command line, or ask an administrator to add you to one.</p>` +
      `<pre><code>svc project create my-project</code></pre></div>`
    );
  }
  const cards = projects
    .map(
      (project) =>
        `<li><a class="card" href="${escapeAttr(projectPath(project))}"><span class="card-title">${escapeHtml(project.name)}</span>` +
        `<span class="card-sub">${escapeHtml(project.repo_url ?? 'Hosted by svc')}</span>` +
        `<span class="card-foot"><span>${escapeHtml(project.slug)}</span><span>default branch ${escapeHtml(project.default_branch)}</span></span></a></li>`,
    )
    .join('');
  return `${head}<ul class="cards">${cards}</ul><p class="hint index-foot"><a href="/d">All dashboards</a></p>`;
}

export function changeRequestLink(view: Pick<ProjectView, 'project'>, row: Pick<ChangeRequestRow, 'number'>): string {
  return projectPath(view.project, `/change-requests/${row.number}`);
}

export function sessionLink(view: Pick<ProjectView, 'project'>, id: string): string {
  return projectPath(view.project, `/sessions/${encodeURIComponent(id)}`);
}

/** Which sessions the list shows: a page of them (after `before`), all of the project's or only a trigger's. */
export interface ListFilter {
  before?: string | undefined;
  trigger?: string | undefined;
}

export function sessionsListPath(view: Pick<ProjectView, 'project'>, filter: ListFilter): string {
  const query = new URLSearchParams();
  if (filter.trigger) query.set('trigger', filter.trigger);
  if (filter.before) query.set('before', filter.before);
  const text = query.toString();
  return projectPath(view.project, `/sessions${text ? `?${text}` : ''}`);
}

function overviewList(title: string, more: string, items: string[], empty: string): string {
  const list = items.length > 0 ? `<ul class="rows">${items.join('')}</ul>` : `<p class="muted">${escapeHtml(empty)}</p>`;
  return `<section class="panel"><h2 class="panel-title">${escapeHtml(title)}<a class="panel-more" href="${escapeAttr(more)}">All</a></h2>${list}</section>`;
}

export function changeRequestRow(view: ProjectView, cr: ChangeRequestRow): string {
  return (
    `<li class="row"><a class="row-main" href="${escapeAttr(changeRequestLink(view, cr))}"><span class="row-title">${escapeHtml(cr.title)}</span>` +
    `<span class="row-sub">#${cr.number} · ${escapeHtml(cr.head_ref)} → ${escapeHtml(cr.base_ref)} · opened ${timeElement(cr.created_at)}</span></a>${statusBadge(cr.status)}</li>`
  );
}

export function sessionListRow(view: ProjectView, session: SessionRow): string {
  const label = session.trigger_slug ? `trigger ${session.trigger_slug}` : (session.agent ?? 'default agent');
  return (
    `<li class="row"><a class="row-main" href="${escapeAttr(sessionLink(view, session.id))}"><span class="row-title"><code>${escapeHtml(session.id.slice(0, 8))}</code> ${escapeHtml(label)}</span>` +
    `<span class="row-sub">branch ${escapeHtml(session.branch)} · started ${timeElement(session.created_at)}</span></a>${statusBadge(session.status)}</li>`
  );
}

async function renderOverview(view: ProjectView): Promise<string> {
  const [crs, sessions, triggers, dashboards] = await Promise.all([
    listChangeRequests(view.ctx, { projectId: view.project.id, status: 'open' }),
    listSessions(view.ctx, { projectId: view.project.id, statuses: UNDER_WAY_STATUSES, limit: RECENT }),
    triggerOverviewRows(view, RECENT),
    listProjectDashboards(view.ctx, { projectId: view.project.id, limit: RECENT }),
  ]);
  const head =
    `<div class="page-head"><div><h1>${escapeHtml(view.project.name)}</h1>` +
    `<p class="muted">${view.project.repo_url ? `Mirror of <code>${escapeHtml(view.project.repo_url)}</code>` : 'Repository hosted by svc'} · default branch <code>${escapeHtml(view.project.default_branch)}</code></p></div></div>`;
  const panels = [
    overviewList('Open change requests', projectPath(view.project, '/change-requests'), crs.slice(0, RECENT).map((cr) => changeRequestRow(view, cr)), 'No change request is open.'),
    overviewList('Running sessions', projectPath(view.project, '/sessions'), sessions.sessions.map((session) => sessionListRow(view, session)), 'No session is running.'),
    overviewList('Triggers', triggersPath(view), triggers, 'The manifest on the default branch declares no trigger.'),
    overviewList(
      'Recent dashboards',
      '/d',
      dashboards.map((d) => `<li class="row"><a class="row-main" href="/d/${escapeAttr(encodeURIComponent(d.slug))}"><span class="row-title">${escapeHtml(d.title)}</span><span class="row-sub">updated ${timeElement(d.updated_at)}</span></a></li>`),
      'This project has published no dashboard.',
    ),
  ];
  return `${head}<div class="panels">${panels.join('')}</div>`;
}

export function projectsPageRoutes(app: FastifyInstance, services: Services): void {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const projects = await listProjects(ctx);
    return sendPage(reply, 200, renderPage({ title: 'Projects', body: renderProjectList(projects), crumbs: [{ label: 'Projects' }] }));
  });

  app.get<{ Params: { slug: string } }>('/projects/:slug', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    return sendPage(reply, 200, renderProjectPage(view, { title: 'Overview', tab: 'overview', body: await renderOverview(view) }));
  });
}
