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
 * The `next` parameter of /login, accepted only as a path on this site, else `fallback`. It is read as
 * a browser reads a Location: dot segments resolved (`/d/..//evil.example` is `//evil.example`, another
 * host), so the check is made on the resolved path, and again with its percent-escapes of ASCII decoded
 * (`%2e%2e`, `%2f`, `%5c`, `%09`), as a proxy or a later hop might decode them. A path on this site
 * starts with one slash (not `//host` or `/\host`) and holds no backslash or control character.
 * It comes back percent-encoded as a URL parser writes it: a Location header takes only Latin-1, and
 * `/。evil.com` is a path on this site, not a host.
 */
export function safeNextPath(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NEXT_LENGTH || !isLocalPath(value)) return fallback;
  const url = sameSiteUrl(value);
  if (!url) return fallback;
  const path = url.pathname + url.search + url.hash;
  const decodedText = decodeAsciiEscapes(url.pathname);
  const decoded = isLocalPath(decodedText) ? sameSiteUrl(decodedText) : null;
  if (!isLocalPath(path) || !decoded || !isLocalPath(decoded.pathname) || path.length > MAX_NEXT_LENGTH) return fallback;
  if (isSignInPath(url.pathname) || isSignInPath(decoded.pathname)) return fallback;
  return path;
}

/** One slash, then anything but a second slash or backslash, and no backslash or control character at all. */
function isLocalPath(path: string): boolean {
  return /^\/(?![/\\])/.test(path) && !/[\u0000-\u001f\u007f\\]/.test(path);
}

/** The URL a path resolves to (dot segments removed, tabs and newlines dropped), when it stays on this site. */
function sameSiteUrl(path: string): URL | null {
  try {
    const url = new URL(path, THIS_SITE);
    return url.origin === THIS_SITE ? url : null;
  } catch {
    return null;
  }
}

/** Percent-escapes of ASCII decoded until none is left (`%252f` is `/` after two decodings). */
function decodeAsciiEscapes(text: string): string {
  let current = text;
  for (let round = 0; round < 5; round += 1) {
    const next = current.replace(/%([0-7][0-9a-f])/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

function isSignInPath(pathname: string): boolean {
  return /^\/(?:login|logout)(?:\/|$)/.test(pathname);
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
