/**
 * Escaping for everything a spec can put on a page. Every string from a spec reaches the HTML through
 * one of these functions; nothing is concatenated raw.
 */

const HTML_SPECIAL = /[&<>"']/;
const HTML_SPECIAL_GLOBAL = /[&<>"']/g;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Embedding, override and isolate controls: a stray one can reorder the text around it (spoofing). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;

function replaceEntity(character: string): string {
  return ENTITY[character] ?? character;
}

/** Escapes for attribute values and for text where bidi isolation is not needed (titles, numbers). */
export function escapeAttr(value: string): string {
  return HTML_SPECIAL.test(value) ? value.replace(HTML_SPECIAL_GLOBAL, replaceEntity) : value;
}

/**
 * Escapes text content. A string carrying bidi controls is wrapped in `<bdi>`, so an override such as
 * U+202E cannot flip the labels and numbers that follow it on the page.
 */
export function escapeHtml(value: string): string {
  const escaped = escapeAttr(value);
  return BIDI_CONTROL.test(value) ? `<bdi>${escaped}</bdi>` : escaped;
}

/** Text of a string-or-number field. */
export function escapeScalar(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'number' ? formatNumber(value) : escapeHtml(value);
}

/** Longer than this, an unbroken value is better wrapped than shrunk to fit. */
const MAX_FITTED_CHARACTERS = 24;

/**
 * Attributes that size a headline value (a stat, highlight or big number) to its box: a number, or a
 * word, is never broken across lines (`$1,204,331.` then `07` reads as another number); instead its
 * font shrinks to fit the box's width (see `[data-fit]` in src/web/styles.ts, which reads the length).
 */
export function fitAttributes(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? formatNumber(value) : value;
  const length = [...text].length;
  if (/\s/.test(text) || length > MAX_FITTED_CHARACTERS) return '';
  return ` data-fit style="--chars:${Math.max(length, 1)}"`;
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const smallNumberFormat = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/** Magnitudes written with an exponent: their digits would run to hundreds of characters (5e-324, 1e308). */
const SCIENTIFIC_BELOW = 1e-6;
const SCIENTIFIC_FROM = 1e15;

/** "1.23E308": three significant digits and a power of ten, shifted by `shift` (a percentage is 2). */
function scientific(value: number, shift = 0): string {
  const [mantissa = '0', exponent = '0'] = value.toExponential(2).split('e');
  return `${Number(mantissa)}E${Number(exponent) + shift}`;
}

/**
 * Thousands separators, at most two decimals (three significant digits for values below 1); very large
 * and very small magnitudes with an exponent. Zero has no sign.
 */
export function formatNumber(value: number): string {
  if (value === 0) return '0';
  if (!Number.isFinite(value)) return Number.isNaN(value) ? '—' : value > 0 ? '∞' : '-∞';
  const magnitude = Math.abs(value);
  if (magnitude >= SCIENTIFIC_FROM || magnitude < SCIENTIFIC_BELOW) return scientific(value);
  if (Number.isInteger(value)) return numberFormat.format(value);
  return magnitude < 1 ? smallNumberFormat.format(value) : numberFormat.format(value);
}

/** A ratio as a whole percentage ("97%"), also where the percentage itself is beyond a double (1e307). */
export function formatPercent(ratio: number): string {
  const percent = ratio * 100;
  if (!Number.isFinite(percent) && Number.isFinite(ratio)) return `${scientific(ratio, 2)}%`;
  return `${formatNumber(Math.abs(percent) < SCIENTIFIC_FROM ? Math.round(percent) : percent)}%`;
}

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/**
 * The URL if a browser would treat it as http(s), mailto or relative; otherwise null. Mirrors the URL
 * parser's leniency: it drops tabs and newlines anywhere and control characters at the start, so
 * "java\tscript:" and " javascript:" are recognised as the scheme they are.
 */
export function safeUrl(value: string | undefined | null): string | null {
  if (!value) return null;
  const normalised = value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  if (normalised.length === 0) return null;
  const scheme = SCHEME.exec(normalised);
  if (scheme) return ALLOWED_SCHEMES.has((scheme[1] ?? '').toLowerCase()) ? normalised : null;
  // A colon before any slash, question mark or hash would be read as a scheme by some parsers.
  const firstColon = normalised.indexOf(':');
  if (firstColon !== -1) {
    const boundary = normalised.search(/[/?#]/);
    if (boundary === -1 || firstColon < boundary) return null;
  }
  return normalised;
}

/** True for URLs that leave the page's origin: they get rel="noopener noreferrer". */
export function isExternalUrl(url: string): boolean {
  return /^(?:https?:)?\/\//i.test(url) || /^mailto:/i.test(url);
}

/** `<a>` attributes for a vetted URL. */
export function linkAttributes(url: string): string {
  return isExternalUrl(url) ? `href="${escapeAttr(url)}" rel="noopener noreferrer nofollow"` : `href="${escapeAttr(url)}"`;
}
