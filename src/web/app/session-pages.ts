/**
 * Sessions for people: the list with a form to start one from a prompt, and a session's page: its status
 * and sandbox state, the agent's conversation, a message box (a message wakes a stopped session), Stop /
 * Resume / Delete, and its branch with the change requests it opened. The page is whole without script;
 * the script follows the session's events stream (GET …/events here, the API's stream for the browser's
 * cookie) and falls back to asking the reader to reload.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listSessionChangeRequests } from '../../changes/list-change-requests.js';
import type { Services } from '../../context.js';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { timeElement } from '../../dashboards/render/render-dashboard.js';
import { AppError } from '../../errors.js';
import { createSession } from '../../sessions/create-session.js';
import { deleteSession } from '../../sessions/delete-session.js';
import { listSessions } from '../../sessions/list-sessions.js';
import { resumeSession } from '../../sessions/resume-session.js';
import { sendMessage } from '../../sessions/send-message.js';
import { loadSession } from '../../sessions/session-access.js';
import { readRuntimeConversation, sessionConversation, type Conversation } from '../../sessions/session-conversation.js';
import { streamSessionEvents } from '../../sessions/session-events.js';
import type { SessionRow } from '../../sessions/session-row.js';
import { stopSession } from '../../sessions/stop-session.js';
import { sendPage } from '../send-page.js';
import { renderConversation } from './conversation.js';
import { csrfField, requireFormToken } from './csrf.js';
import { changeRequestRow, sessionLink, sessionListRow, sessionsListPath, type ListFilter } from './projects-pages.js';
import { LONG_TEXT_FORM_LIMIT, buttonForm, can, formField, isShownWhereActed, loadProjectView, pageActor, projectPath, renderActionError, renderProjectPage, statusBadge, type ProjectView } from './project-page.js';

type Action = 'stop' | 'resume' | 'delete' | 'messages';
const ACTIONS: readonly Action[] = ['stop', 'resume', 'delete', 'messages'];

interface Failure {
  form: Action | 'create';
  error: AppError;
  text?: string;
}

function newSessionForm(view: ProjectView, failure: Failure | undefined): string {
  if (!can(view, 'sessions.write')) return '';
  const text = failure?.form === 'create' ? (failure.text ?? '') : '';
  return (
    `<form method="post" action="${escapeAttr(projectPath(view.project, '/sessions'))}" class="panel new-session" id="new-session">${csrfField(view.csrf)}` +
    `<h2 class="panel-title">Start a session</h2>${failure?.form === 'create' ? renderActionError(failure.error.message) : ''}` +
    `<label for="prompt" class="sr-only">Prompt</label><textarea class="input textarea" id="prompt" name="prompt" rows="3" required placeholder="What should the agent do?">${escapeHtml(text)}</textarea>` +
    `<div class="form-line"><label for="base-ref">From branch</label><input class="input input-small" id="base-ref" name="base_ref" value="${escapeAttr(view.project.default_branch)}" autocapitalize="none" spellcheck="false">` +
    `<button class="btn btn-go" type="submit">Start session</button></div></form>`
  );
}

/** Sessions per page of the list; older ones are a link away. */
const SESSIONS_PER_PAGE = 50;

async function renderList(view: ProjectView, failure?: Failure, filter: ListFilter = {}): Promise<string> {
  const { before, trigger } = filter;
  const page = await listSessions(view.ctx, { projectId: view.project.id, limit: SESSIONS_PER_PAGE, before, trigger, withTotal: true });
  const { sessions, total = sessions.length } = page;
  const counted = total === 1 ? '1 session' : `${total} sessions`;
  const summary = trigger
    ? `Started by trigger <code>${escapeHtml(trigger)}</code>${before ? ', older ones' : ''}; <a href="${escapeAttr(sessionsListPath(view, {}))}">all ${counted}</a>`
    : `${counted}${before ? ', older ones' : ''}`;
  const head = `<div class="page-head"><div><h1>Sessions</h1><p class="muted">${summary}</p></div></div>`;
  const empty = trigger
    ? `<div class="empty-state"><h2>No sessions${before ? ' older than these' : ''}</h2><p>Trigger <code>${escapeHtml(trigger)}</code> has started none${before ? ' before them' : ''}.</p></div>`
    : '<div class="empty-state"><h2>No sessions yet</h2><p>Start one with a prompt.</p></div>';
  const list = sessions.length > 0 ? `<ul class="rows panel">${sessions.map((session) => sessionListRow(view, session)).join('')}</ul>` : empty;
  const links = [
    before ? `<a class="chip" href="${escapeAttr(sessionsListPath(view, { trigger }))}">Newest sessions</a>` : '',
    page.nextBefore ? `<a class="chip" rel="next" href="${escapeAttr(sessionsListPath(view, { trigger, before: page.nextBefore }))}">Older sessions</a>` : '',
  ].join('');
  // A trigger's sessions are a view of what it did; new sessions start from the whole list.
  return head + (trigger ? '' : newSessionForm(view, failure)) + list + (links ? `<nav class="chips" aria-label="More sessions">${links}</nav>` : '');
}

/** Why the conversation shown is not live, and how old it is (HTML). */
function conversationNote(session: SessionRow, conversation: Conversation): string {
  if (session.sandbox_state !== 'archived' && (session.status === 'running' || session.status === 'provisioning') && conversation.source === 'prompts') {
    return "The agent's runtime is starting; its replies appear here as soon as it answers.";
  }
  const where = session.sandbox_state === 'archived' ? 'This session was deleted' : `The sandbox is ${escapeHtml(session.status)}`;
  if (conversation.source === 'prompts') return `${where}; its agent's replies were never captured, so only what people told it is shown. They appear when it runs again.`;
  const omitted = conversation.omitted_messages > 0 ? ` The oldest ${conversation.omitted_messages} messages were left out to keep it small.` : '';
  const when = conversation.captured_at ? ` ${timeElement(conversation.captured_at)}` : '';
  return `${where}; this is the whole conversation as it stood when the sandbox stopped${when}.${omitted}`;
}

export function sessionStateLine(session: Pick<SessionRow, 'status' | 'sandbox_state'>): string {
  return `<span data-session-status>${statusBadge(session.status)}</span> <span class="muted">sandbox <span data-sandbox-state>${escapeHtml(session.sandbox_state ?? 'none')}</span></span>`;
}

async function renderSession(services: Services, view: ProjectView, session: SessionRow, failure?: Failure): Promise<string> {
  const [conversation, crs] = await Promise.all([
    sessionConversation(services, session, view.ctx.actor.userId),
    listSessionChangeRequests(view.ctx, { projectId: view.project.id, sessionId: session.id, branch: session.branch }),
  ]);
  const link = sessionLink(view, session.id);
  const archived = session.sandbox_state === 'archived';
  const head =
    `<div class="page-head"><div><h1>Session <code>${escapeHtml(session.id.slice(0, 8))}</code></h1>` +
    `<p class="meta">${sessionStateLine(session)} · branch <code>${escapeHtml(session.branch)}</code> from <code>${escapeHtml(session.base_ref)}</code> · started ${timeElement(session.created_at)}` +
    `${session.trigger_slug ? ` · trigger <code>${escapeHtml(session.trigger_slug)}</code>` : ''}${session.agent ? ` · ${escapeHtml(session.agent)}` : ''}${session.model ? ` (${escapeHtml(session.model)})` : ''}</p>` +
    `${session.error ? `<p class="form-error" role="alert">${escapeHtml(session.error)}</p>` : ''}</div></div>`;
  const buttons: string[] = [];
  if (can(view, 'sessions.write') && !archived) {
    if (session.status === 'running' || session.status === 'provisioning') buttons.push(buttonForm(view, `${link}/stop`, 'Stop'));
    if (session.status === 'stopped' || session.status === 'failed') buttons.push(buttonForm(view, `${link}/resume`, 'Resume'));
    buttons.push(buttonForm(view, `${link}/delete`, 'Delete', { className: 'btn-danger', confirm: 'Delete this session? Its sandbox and files go; its branch stays.' }));
  }
  const actionError = failure && failure.form !== 'messages' && failure.form !== 'create' ? renderActionError(failure.error.message) : '';
  const actions = buttons.length > 0 || actionError ? `<div class="actions" id="actions">${actionError}<div class="action-row">${buttons.join('')}</div></div>` : '';
  const crList = crs.length > 0 ? `<section class="panel"><h2 class="panel-title">Change requests from this session</h2><ul class="rows">${crs.map((cr) => changeRequestRow(view, cr)).join('')}</ul></section>` : '';
  const live = conversation.source === 'runtime';
  const note = live ? '' : `<p class="hint conversation-note">${conversationNote(session, conversation)}</p>`;
  const shown =
    `<section class="panel" aria-labelledby="conversation-title"><h2 class="panel-title" id="conversation-title">Conversation</h2>${note}` +
    `<div class="conversation" id="conversation" data-events="${escapeAttr(`${link}/events`)}" data-source="${escapeAttr(`${link}/conversation`)}" data-conversation="${live ? 'live' : 'stored'}" aria-live="polite">${renderConversation(conversation.messages)}</div>` +
    `<p class="hint" data-live-note hidden></p></section>`;
  const messageForm =
    can(view, 'sessions.write') && !archived
      ? `<form method="post" action="${escapeAttr(`${link}/messages`)}" class="panel message-box" id="message">${csrfField(view.csrf)}` +
        `${failure?.form === 'messages' ? renderActionError(failure.error.message) : ''}<label for="message-text" class="sr-only">Message to the agent</label>` +
        `<textarea class="input textarea" id="message-text" name="text" rows="3" required placeholder="${session.status === 'running' ? 'Tell the agent…' : 'Tell the agent… (this wakes the session)'}">${escapeHtml(failure?.form === 'messages' ? (failure.text ?? '') : '')}</textarea>` +
        `<button class="btn btn-go" type="submit">Send</button></form>`
      : '';
  return head + actions + crList + shown + messageForm;
}

interface SessionParams {
  slug: string;
  id: string;
}

export function sessionPageRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { slug: string }; Querystring: { before?: string | string[]; trigger?: string | string[] } }>('/projects/:slug/sessions', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const before = [request.query.before].flat()[0] || undefined;
    const trigger = [request.query.trigger].flat()[0] || undefined;
    return sendPage(reply, 200, renderProjectPage(view, { title: 'Sessions', tab: 'sessions', body: await renderList(view, undefined, { before, trigger }), crumbs: [{ label: 'Sessions' }] }));
  });

  app.post<{ Params: { slug: string } }>('/projects/:slug/sessions', { schema: { hide: true }, bodyLimit: LONG_TEXT_FORM_LIMIT }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    requireFormToken(services, request);
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const prompt = formField(request.body, 'prompt');
    const baseRef = formField(request.body, 'base_ref').trim();
    try {
      if (prompt.trim() === '') throw new AppError('VALIDATION_FAILED', 'Write a prompt: it is what the agent starts working on.');
      const session = await createSession(ctx, { projectId: view.project.id, prompt, base_ref: baseRef || undefined });
      return reply.header('cache-control', 'no-store').redirect(sessionLink(view, session.id), 303);
    } catch (error) {
      if (!isShownWhereActed(error)) throw error;
      const body = await renderList(view, { form: 'create', error, text: prompt });
      return sendPage(reply, error.status, renderProjectPage(view, { title: 'Sessions', tab: 'sessions', body, crumbs: [{ label: 'Sessions' }] }));
    }
  });

  const showSession = async (reply: FastifyReply, view: ProjectView, id: string, status: number, failure?: Failure) => {
    const { session } = await loadSession(view.ctx, view.project.id, id, 'read');
    const crumbs = [{ label: 'Sessions', href: projectPath(view.project, '/sessions') }, { label: session.id.slice(0, 8) }];
    return sendPage(reply, status, renderProjectPage(view, { title: `Session ${session.id.slice(0, 8)}`, tab: 'sessions', body: await renderSession(services, view, session, failure), crumbs }));
  };

  app.get<{ Params: SessionParams }>('/projects/:slug/sessions/:id', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    return showSession(reply, await loadProjectView(services, request, ctx, request.params.slug), request.params.id, 200);
  });

  /**
   * The conversation alone, from the runtime: what the page's script asks for once its events stream is open,
   * so parts that happened between drawing the page and opening the stream are not missed.
   */
  app.get<{ Params: SessionParams }>('/projects/:slug/sessions/:id/conversation', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const { session } = await loadSession(ctx, view.project.id, request.params.id, 'read');
    const messages = await readRuntimeConversation(services, session, ctx.actor.userId);
    if (messages === null) return reply.code(204).header('cache-control', 'no-store').send();
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(renderConversation(messages));
  });

  app.get<{ Params: SessionParams }>('/projects/:slug/sessions/:id/events', { schema: { hide: true } }, async (request: FastifyRequest<{ Params: SessionParams }>, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const { session } = await loadSession(ctx, view.project.id, request.params.id, 'read');
    reply.hijack();
    await streamSessionEvents(services, session, ctx.actor.userId, request.raw, reply.raw);
    return reply;
  });

  app.post<{ Params: SessionParams & { action: string } }>('/projects/:slug/sessions/:id/:action', { schema: { hide: true }, bodyLimit: LONG_TEXT_FORM_LIMIT }, async (request, reply) => {
    const action = request.params.action as Action;
    if (!ACTIONS.includes(action)) throw new AppError('NOT_FOUND', `There is no action ${JSON.stringify(request.params.action)} on a session; use the page's buttons.`);
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    requireFormToken(services, request);
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const { id } = request.params;
    const text = formField(request.body, 'text');
    try {
      if (action === 'stop') await stopSession(ctx, view.project.id, id);
      else if (action === 'resume') await resumeSession(ctx, view.project.id, id);
      else if (action === 'delete') {
        await deleteSession(ctx, view.project.id, id);
        return reply.header('cache-control', 'no-store').redirect(projectPath(view.project, '/sessions'), 303);
      } else await sendMessage(ctx, view.project.id, id, text);
    } catch (error) {
      if (!isShownWhereActed(error)) throw error;
      return showSession(reply, view, id, error.status, { form: action, error, text });
    }
    return reply.header('cache-control', 'no-store').redirect(`${sessionLink(view, id)}${action === 'messages' ? '#message' : ''}`, 303);
  });
}
