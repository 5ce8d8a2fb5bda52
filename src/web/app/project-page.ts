/**
 * What every page of a project shares: finding the project by its slug for the signed-in reader, the
 * capabilities they hold on it (which decide the buttons shown), the form token, and the page frame with
 * the project's tabs.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { capabilitiesOn, type ProjectRow } from '../../accounts/access.js';
import type { Capability } from '../../accounts/capabilities.js';
import type { ActorContext, Services } from '../../context.js';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { AppError } from '../../errors.js';
import { getProjectBySlug } from '../../projects/projects.js';
import { projectScriptAsset } from '../assets.js';
import { renderPage, type Crumb, type Page } from '../layout.js';
import { redirectToLogin, webActor } from '../web-auth.js';
import { csrfField, csrfTokenOf } from './csrf.js';

/**
 * Forms that carry a person's words to an agent (a prompt, a message, requested changes): the API takes up
 * to 256 KiB of text, which urlencoding may grow several times.
 */
export const LONG_TEXT_FORM_LIMIT = 1024 * 1024;

export interface ProjectView {
  ctx: ActorContext;
  project: ProjectRow;
  capabilities: ReadonlySet<Capability>;
  /** The value of every form's token field on this page. */
  csrf: string;
}

export type ProjectTab = 'overview' | 'change-requests' | 'sessions' | 'triggers' | 'settings';

/** The project's tabs, in order. */
const TABS: ReadonlyArray<{ tab: ProjectTab; label: string; path: string }> = [
  { tab: 'overview', label: 'Overview', path: '' },
  { tab: 'change-requests', label: 'Change requests', path: '/change-requests' },
  { tab: 'sessions', label: 'Sessions', path: '/sessions' },
  { tab: 'triggers', label: 'Triggers', path: '/triggers' },
  { tab: 'settings', label: 'Settings', path: '/settings' },
];

export function projectPath(project: Pick<ProjectRow, 'slug'>, rest = ''): string {
  return `/projects/${encodeURIComponent(project.slug)}${rest}`;
}

/** The reader, or null once the browser has been sent to sign in. */
export async function pageActor(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<ActorContext | null> {
  const ctx = await webActor(services, request);
  if (!ctx) redirectToLogin(request, reply);
  return ctx;
}

/** The project with this slug in the reader's account, if they may read it (404 otherwise, as for the API). */
export async function loadProjectView(services: Services, request: FastifyRequest, ctx: ActorContext, slug: string): Promise<ProjectView> {
  const project = await getProjectBySlug(ctx, slug);
  return { ctx, project, capabilities: new Set(await capabilitiesOn(ctx, project)), csrf: csrfTokenOf(services, request) };
}

export function can(view: ProjectView, ...needed: Capability[]): boolean {
  return needed.every((capability) => view.capabilities.has(capability));
}

function renderTabs(view: ProjectView, current: ProjectTab): string {
  const links = TABS.map(({ tab, label, path }) => {
    const here = tab === current;
    return `<a class="tab${here ? ' here' : ''}" href="${escapeAttr(projectPath(view.project, path))}"${here ? ' aria-current="page"' : ''}>${escapeHtml(label)}</a>`;
  }).join('');
  return `<nav class="tabs" aria-label="Project">${links}</nav>`;
}

export interface ProjectPageOptions {
  title: string;
  tab: ProjectTab;
  body: string;
  /** Crumbs after the project's own. */
  crumbs?: Crumb[];
}

export function renderProjectPage(view: ProjectView, options: ProjectPageOptions): Page {
  const crumbs: Crumb[] = [{ label: 'Projects', href: '/' }, { label: view.project.name, href: projectPath(view.project) }, ...(options.crumbs ?? [])];
  return renderPage({ title: `${options.title} · ${view.project.name}`, crumbs, body: `<div class="app">${renderTabs(view, options.tab)}${options.body}</div>`, scripts: [projectScriptAsset.path] });
}

/** A one-button form posting to `action` (Stop, Close, Revoke …). */
export function buttonForm(view: Pick<ProjectView, 'csrf'>, action: string, label: string, options: { className?: string; confirm?: string; fields?: Record<string, string> } = {}): string {
  const fields = Object.entries(options.fields ?? {})
    .map(([name, value]) => `<input type="hidden" name="${escapeAttr(name)}" value="${escapeAttr(value)}">`)
    .join('');
  const confirm = options.confirm ? ` data-confirm="${escapeAttr(options.confirm)}"` : '';
  return `<form method="post" action="${escapeAttr(action)}" class="inline-form"${confirm}>${csrfField(view.csrf)}${fields}<button class="btn${options.className ? ` ${options.className}` : ''}" type="submit">${escapeHtml(label)}</button></form>`;
}


/** A string field of a urlencoded form body ('' when absent). */
export function formField(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string').join('\n');
  return typeof value === 'string' ? value : '';
}

/** Every value of a repeated form field (checkboxes). */
export function formValues(body: unknown, name: string): string[] {
  if (body === null || typeof body !== 'object') return [];
  const value: unknown = (body as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/**
 * Whether a failed action is answered on the page where the person acted (a conflict, a refusal, a bad
 * value), rather than as an error page: a missing change request or session is the page's own 404.
 */
export function isShownWhereActed(error: unknown): error is AppError {
  return error instanceof AppError && error.code !== 'NOT_FOUND' && error.code !== 'INTERNAL';
}

/** A message where the person acted: what went wrong and, from the error, what to do. */
export function renderActionError(message: string, details: string[] = []): string {
  const list = details.length > 0 ? `<ul>${details.map((detail) => `<li>${escapeHtml(detail)}</li>`).join('')}</ul>` : '';
  return `<div class="form-error" role="alert"><p>${escapeHtml(message)}</p>${list}</div>`;
}

export function statusBadge(status: string): string {
  return `<span class="badge s-${escapeAttr(status)}">${escapeHtml(status)}</span>`;
}

export function shortSha(sha: string | null): string {
  return sha ? `<code title="${escapeAttr(sha)}">${escapeHtml(sha.slice(0, 8))}</code>` : '—';
}
