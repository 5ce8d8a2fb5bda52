/**
 * Change requests for people: the list (by status), one CR's page (metadata, live merge preview, the
 * diff, requested changes, the session that opened it) and its actions, Merge / Close / Reopen / Request
 * changes, which run the same operations as the API and so follow spec 2's rules exactly. A button shows
 * only when the reader may use it and the CR's state allows it; the operation refuses anyway otherwise.
 * An action that fails shows its error beside the button that was pressed, with the page around it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChangeRequestRow } from '../../changes/change-request-row.js';
import { closeChangeRequest } from '../../changes/close-change-request.js';
import { diffChangeRequest } from '../../changes/diff-change-request.js';
import { getChangeRequest } from '../../changes/get-change-request.js';
import { listChangeRequests } from '../../changes/list-change-requests.js';
import { mergeChangeRequest } from '../../changes/merge-change-request.js';
import { previewChangeRequestMerge } from '../../changes/preview-merge.js';
import { presentChangeRequest } from '../../changes/presenters.js';
import { reopenChangeRequest } from '../../changes/reopen-change-request.js';
import { requestChanges } from '../../changes/request-changes.js';
import type { Services } from '../../context.js';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { timeElement } from '../../dashboards/render/render-dashboard.js';
import { AppError } from '../../errors.js';
import type { MergePreview } from '../../git/index.js';
import { sendPage } from '../send-page.js';
import { csrfField, requireFormToken } from './csrf.js';
import { renderDiff, type DiffLayout } from './diff-view.js';
import { slotMarker, streamPage } from './stream-page.js';
import { changeRequestLink, changeRequestRow, sessionLink } from './projects-pages.js';
import { LONG_TEXT_FORM_LIMIT, buttonForm, can, formField, isShownWhereActed, loadProjectView, pageActor, projectPath, renderActionError, renderProjectPage, shortSha, statusBadge, type ProjectView } from './project-page.js';

const STATUSES = ['open', 'merged', 'closed', 'all'] as const;
type StatusFilter = (typeof STATUSES)[number];

const ACTIONS = ['merge', 'close', 'reopen', 'request-changes'] as const;
type Action = (typeof ACTIONS)[number];

interface ActionFailure {
  action: Action;
  error: AppError;
  /** What the person typed, kept so a refused request-changes does not lose it. */
  feedback?: string;
}

function renderList(view: ProjectView, rows: readonly ChangeRequestRow[], status: StatusFilter): string {
  const filters = STATUSES.map((value) => {
    const here = value === status;
    const href = projectPath(view.project, `/change-requests?status=${value}`);
    return `<a class="chip${here ? ' here' : ''}" href="${escapeAttr(href)}"${here ? ' aria-current="true"' : ''}>${value === 'all' ? 'All' : value[0]?.toUpperCase() + value.slice(1)}</a>`;
  }).join('');
  const head = `<div class="page-head"><div><h1>Change requests</h1><p class="muted">${rows.length === 1 ? '1 change request' : `${rows.length} change requests`}${status === 'all' ? '' : ` ${status}`}</p></div></div>`;
  const list =
    rows.length > 0
      ? `<ul class="rows panel">${rows.map((row) => changeRequestRow(view, row)).join('')}</ul>`
      : `<div class="empty-state"><h2>Nothing ${status === 'all' ? 'here' : status}</h2><p>An agent opens a change request with <code>svc cr open</code> after pushing its branch.</p></div>`;
  return `${head}<nav class="chips" aria-label="Filter by status">${filters}</nav>${list}`;
}

export function renderMergePreview(preview: MergePreview | null, problem: string | null, cr: ChangeRequestRow): string {
  let body: string;
  if (problem !== null) body = `<p class="preview t-warning">${escapeHtml(problem)}</p>`;
  else if (!preview) body = '';
  else if (preview.isUpToDate) body = `<p class="preview t-info"><strong>Nothing to merge.</strong> ${escapeHtml(cr.base_ref)} already holds every commit of ${escapeHtml(cr.head_ref)}.</p>`;
  else if (preview.canFastForward) body = `<p class="preview t-positive"><strong>Fast-forward.</strong> ${escapeHtml(cr.head_ref)} is strictly ahead of ${escapeHtml(cr.base_ref)}; merging moves ${escapeHtml(cr.base_ref)} to ${shortSha(preview.headSha)}.</p>`;
  else if (preview.canMerge) body = `<p class="preview t-positive"><strong>Merges cleanly.</strong> A merge commit joins ${escapeHtml(cr.head_ref)} into ${escapeHtml(cr.base_ref)} (at ${shortSha(preview.baseSha)}).</p>`;
  else {
    const paths = preview.conflicts.map((path) => `<li><code>${escapeHtml(path)}</code></li>`).join('');
    body =
      `<div class="preview t-danger"><p><strong>Conflicts with ${escapeHtml(cr.base_ref)}</strong> in ${preview.conflicts.length === 1 ? '1 file' : `${preview.conflicts.length} files`}:</p><ul>${paths}</ul>` +
      `<p>Merge ${escapeHtml(cr.base_ref)} into ${escapeHtml(cr.head_ref)}, resolve these files, commit and push; this box updates by itself.</p></div>`;
  }
  return body;
}

async function previewOf(view: ProjectView, cr: ChangeRequestRow): Promise<string> {
  if (cr.status !== 'open') return '';
  try {
    return renderMergePreview(await previewChangeRequestMerge(view.ctx, { projectId: view.project.id, crRef: String(cr.number) }), null, cr);
  } catch (error) {
    if (error instanceof AppError) return renderMergePreview(null, error.message, cr);
    throw error;
  }
}

function failureFor(failure: ActionFailure | undefined, action: Action): string {
  if (!failure || failure.action !== action) return '';
  const details: string[] = [];
  const { extra } = failure.error;
  if (Array.isArray(extra.conflicts)) details.push(...(extra.conflicts as string[]).map((path) => `Conflicting file: ${path}`));
  if (Array.isArray(extra.issues)) details.push(...(extra.issues as Array<{ path?: string; message?: string }>).map((issue) => `${issue.path ? `${issue.path}: ` : ''}${issue.message ?? ''}`));
  return renderActionError(failure.error.message, details);
}

function renderActions(view: ProjectView, cr: ChangeRequestRow, failure: ActionFailure | undefined): string {
  const base = changeRequestLink(view, cr);
  const parts: string[] = [];
  const buttons: string[] = [];
  if (cr.status === 'open') {
    if (can(view, 'project.write', 'project.gitops.merge')) {
      buttons.push(buttonForm(view, `${base}/merge`, 'Merge', { className: 'btn-go', confirm: `Merge #${cr.number} into ${cr.base_ref}?` }));
    }
    if (can(view, 'project.write')) buttons.push(buttonForm(view, `${base}/close`, 'Close'));
  } else if (cr.status === 'closed' && can(view, 'project.write')) {
    buttons.push(buttonForm(view, `${base}/reopen`, 'Reopen'));
  }
  const errors = (['merge', 'close', 'reopen'] as const).map((action) => failureFor(failure, action)).join('');
  if (buttons.length > 0 || errors) parts.push(`<div class="actions" id="actions">${errors}<div class="action-row">${buttons.join('')}</div></div>`);
  if (cr.status === 'open' && can(view, 'project.write', 'project.gitops.push')) {
    const text = failure?.action === 'request-changes' ? (failure.feedback ?? '') : '';
    parts.push(
      `<form method="post" action="${escapeAttr(`${base}/request-changes`)}" class="panel request-changes" id="request-changes">${csrfField(view.csrf)}` +
        `<h2 class="panel-title">Request changes</h2>${failureFor(failure, 'request-changes')}` +
        `<label for="feedback" class="sr-only">What should change</label><textarea class="input textarea" id="feedback" name="feedback" rows="4" required placeholder="What should the agent change?">${escapeHtml(text)}</textarea>` +
        `<p class="hint">${cr.origin_session_id ? 'The session that opened this change request receives it and wakes up if it sleeps.' : 'No session opened this change request; the feedback is kept on it.'}</p>` +
        `<button class="btn" type="submit">Request changes</button></form>`,
    );
  }
  return parts.join('');
}

function renderRequested(cr: ChangeRequestRow): string {
  const entries = presentChangeRequest(cr).metadata.requested_changes ?? [];
  if (entries.length === 0) return '';
  const items = entries.map((entry) => `<li><div class="feedback">${escapeHtml(entry.text)}</div><div class="row-sub">${timeElement(entry.at)}</div></li>`).join('');
  return `<section class="panel"><h2 class="panel-title">Requested changes</h2><ol class="feedback-list">${items}</ol></section>`;
}

function layoutOf(value: unknown): DiffLayout {
  return value === 'split' ? 'split' : 'unified';
}

interface ChangeRequestPage {
  /** Known at once: the title, state, branches and SHAs. */
  head: string;
  /** The merge preview, the actions and the requested changes. */
  middle: Promise<string>;
  /** The diff, the slow part of a large change request. */
  changes: Promise<string>;
}

function renderChangeRequest(view: ProjectView, cr: ChangeRequestRow, layout: DiffLayout, failure?: ActionFailure): ChangeRequestPage {
  const origin = cr.origin_session_id
    ? `<a href="${escapeAttr(sessionLink(view, cr.origin_session_id))}">session <code>${escapeHtml(cr.origin_session_id.slice(0, 8))}</code></a>`
    : 'a person';
  const when =
    cr.status === 'merged' && cr.merged_at ? `merged ${timeElement(cr.merged_at)} as ${shortSha(cr.merge_commit_sha)}` : cr.status === 'closed' && cr.closed_at ? `closed ${timeElement(cr.closed_at)}` : `opened ${timeElement(cr.created_at)}`;
  const head =
    `<div class="page-head"><div><h1>${escapeHtml(cr.title)} <span class="muted">#${cr.number}</span></h1>` +
    `<p class="meta">${statusBadge(cr.status)} <code>${escapeHtml(cr.head_ref)}</code> → <code>${escapeHtml(cr.base_ref)}</code> · ${when} · by ${origin}</p></div></div>`;
  const description = cr.description ? `<div class="panel description">${escapeHtml(cr.description)}</div>` : '';
  const facts =
    `<dl class="facts"><div><dt>Head</dt><dd>${shortSha(cr.head_commit_sha)}</dd></div><div><dt>Base</dt><dd>${shortSha(cr.base_commit_sha)}</dd></div>` +
    `<div><dt>Updated</dt><dd>${timeElement(cr.updated_at)}</dd></div></dl>`;
  const middle = previewOf(view, cr).then((preview) => {
    const previewBox =
      cr.status === 'open'
        ? `<section class="panel" aria-labelledby="preview-title"><h2 class="panel-title" id="preview-title">Merge preview</h2><div data-live="${escapeAttr(`${changeRequestLink(view, cr)}/merge-preview`)}" aria-live="polite">${preview}</div></section>`
        : '';
    return `${previewBox}${renderActions(view, cr, failure)}${renderRequested(cr)}`;
  });
  return { head: `${head}${description}${facts}`, middle, changes: diffOf(view, cr, layout) };
}

async function diffOf(view: ProjectView, cr: ChangeRequestRow, layout: DiffLayout): Promise<string> {
  let diff;
  try {
    diff = await diffChangeRequest(view.ctx, { projectId: view.project.id, crRef: String(cr.number) });
  } catch (error) {
    if (error instanceof AppError) return `<section class="panel"><h2 class="panel-title">Changes</h2>${renderActionError(error.message)}</section>`;
    throw error;
  }
  const { tree, files } = renderDiff(diff, layout);
  const base = changeRequestLink(view, cr);
  const toggle = (['unified', 'split'] as const)
    .map((value) => `<a class="chip${value === layout ? ' here' : ''}" href="${escapeAttr(`${base}${value === 'split' ? '?view=split' : ''}#changes`)}"${value === layout ? ' aria-current="true"' : ''}>${value === 'split' ? 'Side by side' : 'Unified'}</a>`)
    .join('');
  const count = diff.files.length === 1 ? '1 file' : `${diff.files.length} files`;
  return (
    `<section class="changes" id="changes"><div class="changes-head"><h2>Changes <span class="muted">${count} · <span class="plus">+${diff.additions}</span> <span class="minus">−${diff.deletions}</span></span></h2>` +
    `<nav class="chips" aria-label="Diff view">${toggle}</nav></div>` +
    (diff.truncated ? '<p class="hint">Some files are too large to show here; their notes say how to see them.</p>' : '') +
    `<div class="changes-body">${tree}<div class="diff-files">${files || '<p class="muted">No changes.</p>'}</div></div></section>`
  );
}

interface CrParams {
  slug: string;
  number: string;
}

export function changeRequestPageRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { slug: string }; Querystring: { status?: string } }>('/projects/:slug/change-requests', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const status: StatusFilter = (STATUSES as readonly string[]).includes(request.query.status ?? '') ? (request.query.status as StatusFilter) : 'open';
    const rows = await listChangeRequests(ctx, { projectId: view.project.id, status });
    return sendPage(reply, 200, renderProjectPage(view, { title: 'Change requests', tab: 'change-requests', body: renderList(view, rows, status), crumbs: [{ label: 'Change requests' }] }));
  });

  const showPage = async (request: FastifyRequest<{ Params: CrParams; Querystring: { view?: string } }>, reply: FastifyReply, view: ProjectView, status: number, failure?: ActionFailure) => {
    const cr = await getChangeRequest(view.ctx, { projectId: view.project.id, crRef: request.params.number });
    const parts = renderChangeRequest(view, cr, layoutOf(request.query.view), failure);
    const crumbs = [{ label: 'Change requests', href: projectPath(view.project, '/change-requests') }, { label: `#${cr.number}` }];
    const page = renderProjectPage(view, { title: `#${cr.number} ${cr.title}`, tab: 'change-requests', body: parts.head + slotMarker(0) + slotMarker(1), crumbs });
    return streamPage(request, reply, status, page, [parts.middle, parts.changes]);
  };

  app.get<{ Params: CrParams; Querystring: { view?: string } }>('/projects/:slug/change-requests/:number', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    return showPage(request, reply, await loadProjectView(services, request, ctx, request.params.slug), 200);
  });

  /** The merge preview alone, which the page's script asks for again to keep it live. */
  app.get<{ Params: CrParams }>('/projects/:slug/change-requests/:number/merge-preview', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const cr = await getChangeRequest(ctx, { projectId: view.project.id, crRef: request.params.number });
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(await previewOf(view, cr));
  });

  app.post<{ Params: CrParams & { action: string }; Querystring: { view?: string } }>('/projects/:slug/change-requests/:number/:action', { schema: { hide: true }, bodyLimit: LONG_TEXT_FORM_LIMIT }, async (request, reply) => {
    const action = request.params.action as Action;
    if (!(ACTIONS as readonly string[]).includes(action)) throw new AppError('NOT_FOUND', `There is no action ${JSON.stringify(request.params.action)} on a change request; use the page's buttons.`);
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    requireFormToken(services, request);
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const locator = { projectId: view.project.id, crRef: request.params.number };
    const feedback = formField(request.body, 'feedback');
    try {
      if (action === 'merge') await mergeChangeRequest(ctx, locator);
      else if (action === 'close') await closeChangeRequest(ctx, locator);
      else if (action === 'reopen') await reopenChangeRequest(ctx, locator);
      else {
        if (feedback.trim() === '') throw new AppError('VALIDATION_FAILED', 'Write what should change before requesting changes.');
        await requestChanges(ctx, { ...locator, feedback });
      }
    } catch (error) {
      if (!isShownWhereActed(error)) throw error;
      return showPage(request, reply, view, error.status, { action, error, feedback });
    }
    const anchor = action === 'request-changes' ? '#request-changes' : '';
    return reply.header('cache-control', 'no-store').redirect(`${projectPath(view.project, `/change-requests/${encodeURIComponent(request.params.number)}`)}${anchor}`, 303);
  });
}
