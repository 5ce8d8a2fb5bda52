/** Small HTTP decisions shared by the web pages. */
import type { IncomingHttpHeaders } from 'node:http';
import Negotiator from 'negotiator';
import type { ChartWidths } from '../dashboards/render/chart-slots.js';

/** Whether an Accept-Encoding header takes gzip (listed, or `*`, with a non-zero quality). */
export function acceptsGzip(header: string | undefined): boolean {
  return new Negotiator({ headers: { 'accept-encoding': header } }).encodings(['gzip']).includes('gzip');
}

const MAX_NEXT_LENGTH = 2000;

const THIS_SITE = 'http://svc.invalid';

/**
 * The `next` parameter of /login, accepted only as a path on this site: it must start with one slash
 * (not `//host` or `/\host`, which browsers treat as another origin) and hold no control characters.
 * It comes back percent-encoded as a URL parser writes it: a Location header takes only Latin-1, and
 * `/。evil.com` is a path on this site, not a host.
 */
export function safeNextPath(value: unknown, fallback = '/d'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NEXT_LENGTH) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, THIS_SITE);
  } catch {
    return fallback;
  }
  if (url.origin !== THIS_SITE) return fallback;
  const path = url.pathname + url.search + url.hash;
  if (/^\/(?:login|logout)(?:[/?#]|$)/.test(path) || path.length > MAX_NEXT_LENGTH) return fallback;
  return path;
}

/** A query flag such as `?print=1` or `?kiosk=true`: on only when spelled `1` or `true`. */
export function isFlagOn(value: unknown): boolean {
  return value === '1' || value === 'true';
}

/** The origin of a URL, or null when it is not one. */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The request headers a page's chart widths depend on (see chartWidthsFor), for `Vary`. */
export const CHART_WIDTH_HEADERS = 'Sec-CH-UA-Mobile, User-Agent';

/**
 * Which chart widths a page is drawn with for this request (see ChartWidths): both when the request
 * asks for them (`?drawings=all`, as the client script does), else those of the screen it comes from.
 * Phones say what they are: Chromium in the Sec-CH-UA-Mobile hint it sends unasked, the others with
 * "Mobi" in their User-Agent (as MDN advises). Tablets and laptops get the wide drawings.
 */
export function chartWidthsFor(headers: IncomingHttpHeaders, drawings: unknown): ChartWidths {
  if (drawings === 'all') return 'both';
  const mobileHint = headers['sec-ch-ua-mobile'];
  if (mobileHint === '?1') return 'narrow';
  if (mobileHint === '?0') return 'wide';
  return /Mobi/.test(headers['user-agent'] ?? '') ? 'narrow' : 'wide';
}
