/**
 * The HTML shell of every web page and its Content-Security-Policy. No inline script runs except the
 * theme bootstrap (allowed by hash) and, inside html blocks' sandboxed frames, the block's own inline
 * scripts (allowed by hash: a srcdoc frame inherits the page's policy).
 */
import { escapeAttr, escapeHtml } from '../dashboards/render/escape.js';
import { THEME_BOOT_SCRIPT } from './client-script.js';
import { scriptAsset, stylesheetAsset, themeBootHash } from './assets.js';

export interface Crumb {
  label: string;
  href?: string;
}

export interface PageOptions {
  title: string;
  body: string;
  /** Breadcrumbs after the brand; the last one is the current page. */
  crumbs?: Crumb[];
  /** Extra buttons in the top bar, as HTML. */
  actions?: string;
  /** Hide the top bar (sign-in page). */
  bare?: boolean;
  /** Show the page as it prints (`?print=1`). */
  printPreview?: boolean;
  /** Extra script-src hashes (html blocks). */
  scriptHashes?: readonly string[];
  /** Sign-out button; false on pages reached without a session. */
  signedIn?: boolean;
  /** Markup before <main>, e.g. the print preview bar. */
  beforeMain?: string;
  /** Extra scripts (asset paths) after the common one, e.g. the project pages' own. */
  scripts?: readonly string[];
  /** Load the page again after this many seconds (a wall display's error page). */
  refreshSeconds?: number;
}

export interface Page {
  html: string;
  csp: string;
}

export function contentSecurityPolicy(scriptHashes: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${[...new Set([themeBootHash, ...scriptHashes])].join(' ')}`,
    // Inline styles carry grid placement and bar widths; ECharts' SVG and html blocks need them too.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' https: http: data:",
    "font-src 'self' data:",
    "frame-src 'self'",
    // The dashboard page asks its own origin whether a newer version has been published.
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** Inline, so browsers do not ask for /favicon.ico. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='8' fill='%237c3aed'/%3E%3Ctext x='16' y='22' font-family='Arial' font-size='18' font-weight='700' fill='white' text-anchor='middle'%3Es%3C/text%3E%3C/svg%3E";

const THEME_ICONS =
  '<svg class="i-moon" viewBox="0 0 24 24" aria-hidden="true"><path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z"/></svg>' +
  '<svg class="i-sun" viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="4"/><path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4"/></svg>';

export const PRINT_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 9V3h12v6M6 18H4a2 2 0 0 1-2-2v-5a2 2 0 0 1 2-2h16a2 2 0 0 1 2 2v5a2 2 0 0 1-2 2h-2"/><path d="M6 14h12v7H6z"/></svg>';

function renderTopbar(options: PageOptions): string {
  const crumbs = (options.crumbs ?? [])
    .map((crumb, index, all) => {
      const last = index === all.length - 1;
      const label = escapeHtml(crumb.label);
      const item = crumb.href && !last ? `<a href="${escapeAttr(crumb.href)}">${label}</a>` : `<span class="${last ? 'here' : ''}"${last ? ' aria-current="page"' : ''}>${label}</span>`;
      return `<span class="sep" aria-hidden="true">/</span>${item}`;
    })
    .join('');
  const signOut = options.signedIn === false ? '' : '<form method="post" action="/logout"><button class="btn" type="submit">Sign out</button></form>';
  return (
    `<header class="topbar"><div class="topbar-in"><a class="brand" href="/"><span class="brand-mark" aria-hidden="true">s</span>svc</a>` +
    `<nav class="crumbs" aria-label="Breadcrumb">${crumbs}</nav><div class="topbar-actions">${options.actions ?? ''}` +
    `<button class="btn icon-btn" type="button" data-theme-toggle aria-label="Switch theme" title="Switch theme">${THEME_ICONS}</button>${signOut}</div></div></header>`
  );
}

export function renderPage(options: PageOptions): Page {
  const htmlClass = options.printPreview ? ' class="print-preview"' : '';
  const html =
    `<!doctype html><html lang="en"${htmlClass}><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">` +
    `<meta name="referrer" content="same-origin">${options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''}<title>${escapeAttr(options.title)} · svc</title>` +
    `<link rel="icon" href="${FAVICON}"><link rel="stylesheet" href="${stylesheetAsset.path}"><script>${THEME_BOOT_SCRIPT}</script>` +
    `<script src="${scriptAsset.path}" defer></script>${(options.scripts ?? []).map((src) => `<script src="${escapeAttr(src)}" defer></script>`).join('')}</head><body>` +
    // The first stop for a keyboard: past the top bar's links and buttons to the page itself.
    (options.bare ? '' : '<a class="skip-link" href="#main">Skip to content</a>' + renderTopbar(options)) +
    (options.beforeMain ?? '') +
    `<main class="page" id="main">${options.body}</main></body></html>`;
  return { html, csp: contentSecurityPolicy(options.scriptHashes) };
}
