/** Errors on web pages are pages: the status, what happened, and where to go next. */
import { escapeAttr, escapeHtml } from '../dashboards/render/escape.js';
import type { AppError } from '../errors.js';
import { isFlagOn } from './http-helpers.js';
import { renderPage, type Page } from './layout.js';

const HEADLINES: Record<number, string> = {
  400: 'That request did not make sense',
  401: 'Sign in to continue',
  403: 'You do not have access to this',
  404: 'Nothing here',
  500: 'Something went wrong',
  503: 'This page could not be drawn in time',
};

/** A wall display that lands on an error page asks again this often: nobody is there to press reload. */
const WALL_DISPLAY_RETRY_SECONDS = 60;

function isWallDisplay(requestPath: string): boolean {
  const query = requestPath.split('?')[1];
  return query !== undefined && isFlagOn(new URLSearchParams(query).get('kiosk'));
}

/** Pages of the app for people (projects and what is in them), as opposed to the dashboards. */
function isAppPath(requestPath: string): boolean {
  return requestPath === '/' || requestPath.startsWith('/projects');
}

export function renderErrorPage(error: AppError, requestPath: string): Page {
  const status = error.status;
  const headline = HEADLINES[status] ?? HEADLINES[status >= 500 ? 500 : 400] ?? 'Something went wrong';
  const action =
    status === 401
      ? `<a class="btn" href="/login?next=${escapeAttr(encodeURIComponent(requestPath))}">Sign in</a>`
      : isAppPath(requestPath)
        ? `<a class="btn" href="/">Your projects</a>`
        : `<a class="btn" href="/d">All dashboards</a>`;
  // A 401 waits for someone to sign in; anything else may pass (a dashboard published again, a page drawn).
  const retry = isWallDisplay(requestPath) && status !== 401;
  const retryNote = retry ? `<p class="error-retry">This wall display tries again every minute.</p>` : '';
  const body = `<div class="error-page"><div class="error-code">${status}</div><h1>${escapeHtml(headline)}</h1><p>${escapeHtml(error.message)}</p>${retryNote}${action}</div>`;
  return renderPage({
    title: headline,
    body,
    signedIn: status !== 401,
    crumbs: isAppPath(requestPath) ? [{ label: 'Projects', href: '/' }] : [{ label: 'Dashboards', href: '/d' }],
    ...(retry ? { refreshSeconds: WALL_DISPLAY_RETRY_SECONDS } : {}),
  });
}
