/**
 * Triggers for people: every trigger of the manifest on the default branch with its type, schedule (the
 * cron expression and the zone it is read in, or the one-off instant), next and last fire, its recent fires
 * with the sessions they started, the manifest's entries that could not be read, and Fire now with an
 * optional message. Each trigger's older fires are a page of their own, a page at a time, each fire with the
 * prompt it gave its session. The pages call the same operations as the API (listing, fires, fire-now), so
 * the same rules hold: Fire now shows only to a reader holding triggers.fire, and the operation refuses anyone else.
 */
import cronstrue from 'cronstrue';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../../context.js';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { timeElement } from '../../dashboards/render/render-dashboard.js';
import { AppError } from '../../errors.js';
import { listSecrets } from '../../accounts/secrets.js';
import { fireTrigger } from '../../triggers/fire-trigger.js';
import { listFires, listTriggers, newestFires } from '../../triggers/list-triggers.js';
import { presentFire, presentTrigger, presentTriggerError } from '../../triggers/presenters.js';
import { startAfterAnswer } from '../../triggers/routes.js';
import { definitionOf, type TriggerFireRow } from '../../triggers/trigger-row.js';
import { webhookPath } from '../../triggers/webhook-routes.js';
import { sendPage } from '../send-page.js';
import { csrfField, requireFormToken } from './csrf.js';
import { sessionLink, sessionsListPath } from './projects-pages.js';
import { LONG_TEXT_FORM_LIMIT, can, formField, isShownWhereActed, loadProjectView, pageActor, projectPath, renderActionError, renderProjectPage, statusBadge, type ProjectView } from './project-page.js';

/** Fires listed under each trigger on the Triggers page; the older ones are on the trigger's fires page. */
const RECENT_FIRES = 5;
/** Fires a page of a trigger's fires lists. */
const FIRES_PER_PAGE = 50;

type Trigger = ReturnType<typeof presentTrigger>;
type Fire = ReturnType<typeof presentFire>;

/** A trigger's newest fires on the Triggers page, and where its fires page continues after them. */
interface RecentFires {
  fires: Fire[];
  nextBefore: string | null;
}

interface FireFailure {
  slug: string;
  error: AppError;
  message: string;
}

export function triggersPath(view: Pick<ProjectView, 'project'>, rest = ''): string {
  return projectPath(view.project, `/triggers${rest}`);
}

function triggerAnchor(slug: string): string {
  return `trigger-${slug}`;
}

/** A trigger's fires page, newest first, or the page after the fire `before`. */
export function triggerFiresPath(view: Pick<ProjectView, 'project'>, slug: string, before?: string): string {
  return triggersPath(view, `/${encodeURIComponent(slug)}/fires${before ? `?before=${encodeURIComponent(before)}` : ''}`);
}

/** An instant as the trigger's zone reads it, e.g. "Mon 1 Dec 2026, 09:00 CET". */
function inZone(iso: string, timezone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' }).format(new Date(iso));
}

/** The schedule as written, and the zone the expression is read in. */
export function scheduleText(trigger: Trigger): string {
  if (trigger.type === 'webhook') return 'On each signed webhook delivery';
  const zone = trigger.timezone ?? 'UTC';
  if (trigger.run_at !== null) return `Once, at ${inZone(trigger.run_at, zone)} (${zone})`;
  const words = cronInWords(trigger.cron ?? '');
  return `${words ? `${words} ` : ''}(cron ${trigger.cron ?? ''}) in ${zone}`;
}

/** A cron expression as a sentence ("At 09:00, Monday through Friday"); null when it cannot be put in words. */
function cronInWords(expression: string): string | null {
  try {
    return cronstrue.toString(expression, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return null;
  }
}

function scheduleHtml(trigger: Trigger): string {
  if (trigger.type === 'webhook' || trigger.run_at !== null) return escapeHtml(scheduleText(trigger));
  // Six fields (seconds first) or five, read in the zone; the next fire below says when that is.
  const words = cronInWords(trigger.cron ?? '');
  return `${words ? `${escapeHtml(words)} · ` : ''}<code>${escapeHtml(trigger.cron ?? '')}</code> in <strong>${escapeHtml(trigger.timezone ?? 'UTC')}</strong>`;
}

/** When the trigger fires next, in words: relative to now, and as its zone reads it. */
export function nextFireHtml(trigger: Trigger): string {
  if (!trigger.enabled) return 'Never (disabled in the manifest)';
  if (trigger.next_fire_at === null) return trigger.type === 'webhook' ? 'When a delivery arrives' : 'Not again (already fired)';
  const zone = trigger.timezone ?? 'UTC';
  return `${timeElement(trigger.next_fire_at)} <span class="muted">(${escapeHtml(inZone(trigger.next_fire_at, zone))})</span>`;
}

/** How long after its slot a cron fire fired: "120 ms", "2.5 s", "4 min", "5 h 2 min". */
function lateness(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

/** One fire: its source, session, time, why it waits or which fallback it took, and (on the fires page) what it asked. */
function fireRow(view: ProjectView, fire: Fire, detail?: Pick<TriggerFireRow, 'prompt' | 'due_at' | 'delivery_id'>): string {
  // A queued fire names the session it will start, which may not exist yet: no link to a page that would be 404.
  const session = !fire.session_id
    ? '<span class="muted">no session</span>'
    : fire.status === 'queued'
      ? `<span>session <code>${escapeHtml(fire.session_id.slice(0, 8))}</code> when it starts</span>`
      : `<a href="${escapeAttr(sessionLink(view, fire.session_id))}">session <code>${escapeHtml(fire.session_id.slice(0, 8))}</code></a>`;
  // A cron fire's slot: how late it fired (after downtime, a missed slot fires once, late).
  const late = detail?.due_at ? `${lateness(Date.parse(fire.fired_at) - Date.parse(detail.due_at))} after its slot` : null;
  // A webhook fire's delivery id, as the sender lists its deliveries (GitHub's Recent Deliveries).
  const delivery = detail?.delivery_id ? `delivery ${detail.delivery_id}` : null;
  const notes = [late, delivery, fire.reason, fire.fallback ? `fallback: ${fire.fallback}` : null].filter((note): note is string => Boolean(note));
  const firstLine = detail?.prompt.split('\n', 1)[0] ?? '';
  // A duplicate delivery starts nothing and gives no prompt.
  const prompt = detail?.prompt
    ? `<details class="fire-prompt"><summary>Prompt: ${escapeHtml(firstLine.length > 120 ? `${firstLine.slice(0, 120)}…` : firstLine)}</summary><pre class="tool-io">${escapeHtml(detail.prompt)}</pre></details>`
    : '';
  return (
    `<li class="row fire"><div class="row-main"><span class="row-title">${escapeHtml(fire.source)} · ${session}</span>` +
    `<span class="row-sub">${timeElement(fire.fired_at)}${notes.map((note) => ` · ${escapeHtml(note)}`).join('')}</span>${prompt}</div>${statusBadge(fire.status)}</li>`
  );
}

function fireForm(view: ProjectView, trigger: Trigger, failure: FireFailure | undefined): string {
  const mine = failure?.slug === trigger.slug ? failure : undefined;
  // A refusal is shown where the reader acted even when the page offers them no form.
  if (!can(view, 'triggers.fire') || !trigger.enabled) return mine ? renderActionError(mine.error.message) : '';
  const field = `fire-message-${trigger.slug}`;
  return (
    `<form method="post" action="${escapeAttr(triggersPath(view, `/${encodeURIComponent(trigger.slug)}/fire`))}" class="fire-now stack-form">${csrfField(view.csrf)}` +
    `${mine ? renderActionError(mine.error.message) : ''}<label for="${escapeAttr(field)}">Message <span class="muted">(optional, given to the prompt as message.text)</span></label>` +
    `<textarea class="input textarea" id="${escapeAttr(field)}" name="message" rows="2">${escapeHtml(mine?.message ?? '')}</textarea>` +
    `<button class="btn btn-go" type="submit">Fire now</button></form>`
  );
}

/** What a webhook trigger's sender needs: where to deliver, and which secret signs; whether that secret is set. */
interface WebhookReceiverFacts {
  url: string;
  secretName: string;
  secretSet: boolean;
}

function webhookHtml(view: ProjectView, receiver: WebhookReceiverFacts): string {
  const name = `<code>${escapeHtml(receiver.secretName)}</code>`;
  const unset = receiver.secretSet
    ? ''
    : `<div class="form-error secret-unset">The secret ${name} is not set, so every delivery is refused (409) until it is: ` +
      `set it in <a href="${escapeAttr(projectPath(view.project, '/settings#secrets'))}">Settings</a> or with <code>${escapeHtml(`svc secret set ${receiver.secretName} --project ${view.project.slug}`)}</code>.</div>`;
  return (
    `<p class="hint webhook-receiver">Point the sender at <code>${escapeHtml(receiver.url)}</code>; it signs each body with the secret ${name} ` +
    `(HMAC-SHA256 in <code>X-Hub-Signature-256</code> or <code>X-Svc-Signature</code>).</p>${unset}`
  );
}

function renderTrigger(view: ProjectView, trigger: Trigger, recent: RecentFires, failure: FireFailure | undefined, receiver: WebhookReceiverFacts | null): string {
  const title = trigger.name !== trigger.slug ? `${escapeHtml(trigger.name)} <code>${escapeHtml(trigger.slug)}</code>` : `<code>${escapeHtml(trigger.slug)}</code>`;
  const facts =
    `<dl class="facts"><div><dt>Schedule</dt><dd>${scheduleHtml(trigger)}</dd></div>` +
    `<div><dt>Next fire</dt><dd>${nextFireHtml(trigger)}</dd></div>` +
    `<div><dt>Last fire</dt><dd>${trigger.last_fired_at ? timeElement(trigger.last_fired_at) : 'Never'}</dd></div>` +
    `<div><dt>Session</dt><dd>${escapeHtml(trigger.session_mode)}${trigger.session_id ? ` <a href="${escapeAttr(sessionLink(view, trigger.session_id))}"><code>${escapeHtml(trigger.session_id.slice(0, 8))}</code></a>` : ''}</dd></div>` +
    `<div><dt>Agent</dt><dd>${escapeHtml(trigger.agent)}${trigger.model ? ` (${escapeHtml(trigger.model)})` : ''}</dd></div></dl>`;
  const webhook = receiver ? webhookHtml(view, receiver) : '';
  const older = recent.nextBefore ? `<nav class="chips" aria-label="More fires of ${escapeAttr(trigger.slug)}"><a class="chip" href="${escapeAttr(triggerFiresPath(view, trigger.slug, recent.nextBefore))}">Older fires</a></nav>` : '';
  const fires = recent.fires.length > 0 ? `<ul class="rows">${recent.fires.map((fire) => fireRow(view, fire)).join('')}</ul>${older}` : '<p class="muted">No fires in the last 30 days.</p>';
  return (
    `<section class="panel trigger" id="${escapeAttr(triggerAnchor(trigger.slug))}" aria-labelledby="${escapeAttr(`${triggerAnchor(trigger.slug)}-title`)}">` +
    `<h2 class="panel-title" id="${escapeAttr(`${triggerAnchor(trigger.slug)}-title`)}">${title} ${statusBadge(trigger.type)}${trigger.enabled ? '' : ` ${statusBadge('disabled')}`}</h2>` +
    `${facts}${webhook}<h3 class="subhead">Recent fires</h3>${fires}${fireForm(view, trigger, failure)}</section>`
  );
}

async function renderTriggers(view: ProjectView, failure?: FireFailure): Promise<string> {
  const listing = await listTriggers(view.ctx, view.project.id);
  const triggers = listing.triggers.map(presentTrigger);
  const fires = await Promise.all(
    triggers.map(async (trigger): Promise<RecentFires> => {
      const page = await newestFires(view.ctx.db, view.project.id, trigger.slug, RECENT_FIRES);
      return { fires: page.fires.map(presentFire), nextBefore: page.nextBefore };
    }),
  );
  const source = listing.manifest.path
    ? `From <code>${escapeHtml(listing.manifest.path)}</code> on <code>${escapeHtml(view.project.default_branch)}</code>${listing.manifest.commit ? ` at <code title="${escapeAttr(listing.manifest.commit)}">${escapeHtml(listing.manifest.commit.slice(0, 8))}</code>` : ''}`
    : `No svc.yaml on <code>${escapeHtml(view.project.default_branch)}</code>, so no triggers; add a <code>triggers:</code> list and merge it`;
  const head = `<div class="page-head"><div><h1>Triggers</h1><p class="muted">${source}</p></div></div>`;
  const errors = listing.errors.map(presentTriggerError);
  const errorPanel =
    errors.length > 0
      ? `<section class="panel manifest-errors" aria-labelledby="manifest-errors-title"><h2 class="panel-title" id="manifest-errors-title">Entries that could not be read</h2>` +
        `<div class="form-error"><ul>${errors.map((error) => `<li>${escapeHtml(error.message)}</li>`).join('')}</ul></div>` +
        `<p class="hint">Fix them in the manifest on a branch and merge it; the other triggers run meanwhile.</p></section>`
      : '';
  // Secret names only (project.read may list them), to say which webhook trigger would refuse every delivery.
  const secretsSet = listing.triggers.some((row) => row.type === 'webhook') ? new Set((await listSecrets(view.ctx, view.project.id)).map((secret) => secret.name)) : new Set<string>();
  const receiverOf = (index: number): WebhookReceiverFacts | null => {
    const row = listing.triggers[index];
    const definition = row ? definitionOf(row) : null;
    if (definition?.type !== 'webhook') return null;
    const url = view.ctx.config.baseUrl + webhookPath(view.project.id, definition.slug);
    return { url, secretName: definition.secret_env, secretSet: secretsSet.has(definition.secret_env) };
  };
  const list = triggers.length > 0 ? triggers.map((trigger, index) => renderTrigger(view, trigger, fires[index] ?? { fires: [], nextBefore: null }, failure, receiverOf(index))).join('') : listing.manifest.path ? '<div class="empty-state"><h2>No triggers</h2><p>The manifest declares none.</p></div>' : '';
  return head + errorPanel + list;
}

/** A trigger's fires, a page at a time: newest first, back 30 days, each with the prompt it gave its session. */
async function renderFires(view: ProjectView, slug: string, before: string | undefined): Promise<string> {
  const page = await listFires(view.ctx, view.project.id, slug, { limit: FIRES_PER_PAGE, before });
  const head =
    `<div class="page-head"><div><h1>Fires of <code>${escapeHtml(slug)}</code></h1>` +
    `<p class="muted">Newest first, back 30 days${before ? ', older ones' : ''}; the trigger is on the <a href="${escapeAttr(triggersPath(view, `#${triggerAnchor(slug)}`))}">Triggers</a> page, ` +
    `and <a href="${escapeAttr(sessionsListPath(view, { trigger: slug }))}">the sessions it started</a> on the Sessions page.</p></div></div>`;
  const list =
    page.fires.length > 0
      ? `<ul class="rows panel">${page.fires.map((row) => fireRow(view, presentFire(row), row)).join('')}</ul>`
      : `<div class="empty-state"><h2>No ${before ? 'older fires' : 'fires'}</h2><p>${before ? 'The fires before these are older than 30 days, and svc no longer keeps them.' : 'It has not fired in the last 30 days.'}</p></div>`;
  const links = [
    before ? `<a class="chip" href="${escapeAttr(triggerFiresPath(view, slug))}">Newest fires</a>` : '',
    page.nextBefore ? `<a class="chip" rel="next" href="${escapeAttr(triggerFiresPath(view, slug, page.nextBefore))}">Older fires</a>` : '',
  ].join('');
  return head + list + (links ? `<nav class="chips" aria-label="More fires">${links}</nav>` : '');
}

/** The overview's rows: each trigger with its next fire, linked to its place on the Triggers page. */
export async function triggerOverviewRows(view: ProjectView, limit: number): Promise<string[]> {
  const listing = await listTriggers(view.ctx, view.project.id);
  const rows = listing.triggers
    .map(presentTrigger)
    .slice(0, limit)
    .map(
      (trigger) =>
        `<li class="row"><a class="row-main" href="${escapeAttr(triggersPath(view, `#${triggerAnchor(trigger.slug)}`))}"><span class="row-title">${escapeHtml(trigger.name)}</span>` +
        `<span class="row-sub">${escapeHtml(scheduleText(trigger))} · next ${nextFireHtml(trigger)}</span></a>${statusBadge(trigger.type)}</li>`,
    );
  if (listing.errors.length > 0) {
    rows.push(`<li class="row"><a class="row-main" href="${escapeAttr(triggersPath(view, '#manifest-errors-title'))}"><span class="row-title">${listing.errors.length === 1 ? '1 manifest entry' : `${listing.errors.length} manifest entries`} could not be read</span></a>${statusBadge('error')}</li>`);
  }
  return rows;
}

export function triggerPageRoutes(app: FastifyInstance, services: Services): void {
  const showPage = async (reply: FastifyReply, view: ProjectView, status: number, failure?: FireFailure) =>
    sendPage(reply, status, renderProjectPage(view, { title: 'Triggers', tab: 'triggers', body: await renderTriggers(view, failure), crumbs: [{ label: 'Triggers' }] }));

  app.get<{ Params: { slug: string } }>('/projects/:slug/triggers', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    return showPage(reply, await loadProjectView(services, request, ctx, request.params.slug), 200);
  });

  app.get<{ Params: { slug: string; trigger: string }; Querystring: { before?: string | string[] } }>('/projects/:slug/triggers/:trigger/fires', { schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const slug = request.params.trigger;
    const before = [request.query.before].flat()[0] || undefined;
    const crumbs = [{ label: 'Triggers', href: triggersPath(view) }, { label: slug, href: triggersPath(view, `#${triggerAnchor(slug)}`) }, { label: 'Fires' }];
    return sendPage(reply, 200, renderProjectPage(view, { title: `Fires of ${slug}`, tab: 'triggers', body: await renderFires(view, slug, before), crumbs }));
  });

  app.post<{ Params: { slug: string; trigger: string } }>('/projects/:slug/triggers/:trigger/fire', { schema: { hide: true }, bodyLimit: LONG_TEXT_FORM_LIMIT }, async (request, reply) => {
    const ctx = await pageActor(services, request, reply);
    if (!ctx) return reply;
    requireFormToken(services, request);
    const view = await loadProjectView(services, request, ctx, request.params.slug);
    const message = formField(request.body, 'message');
    try {
      const fire = await fireTrigger(ctx, { projectId: view.project.id, slug: request.params.trigger, message: message === '' ? undefined : message, messageSource: 'dashboard' });
      startAfterAnswer(services, reply.raw, fire.id, fire.status);
    } catch (error) {
      if (!isShownWhereActed(error)) throw error;
      return showPage(reply, view, error.status, { slug: request.params.trigger, error, message });
    }
    return reply.header('cache-control', 'no-store').redirect(triggersPath(view, `#${triggerAnchor(request.params.trigger)}`), 303);
  });
}
