/**
 * A check of ECharts' SVG before it reaches the page. ECharts escapes text content but writes some
 * option values into attributes as they are (a font family, a colour), so a hostile `chart.option`
 * could close an attribute and open a tag. The SVG is accepted only if every tag is a known SVG
 * element with well-formed, quoted attributes, no event handler, and no link outside data images and
 * http(s); anything else means the chart is not drawn.
 */

const ALLOWED_ELEMENTS = new Set([
  'svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'defs', 'clipPath',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'image', 'title', 'desc', 'mask', 'filter', 'feDropShadow',
  'feGaussianBlur', 'feOffset', 'feFlood', 'feComposite', 'feMerge', 'feMergeNode', 'use',
]);

const TAG = /^<(\/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<>]*")*)\s*(\/?)>$/;
const ATTRIBUTE = /([A-Za-z_:][-A-Za-z0-9_:.]*)="([^"]*)"/g;
const SAFE_LINK = /^(?:#[-\w]+|data:image\/(?:png|gif|jpeg|webp);base64,[A-Za-z0-9+/=]+|https?:\/\/[^\s]+)$/i;

export type SvgVerdict = { ok: true } | { ok: false; reason: string };

/**
 * The character references ECharts writes when it escapes a value. Any other one (`&#114;`, `&lpar;`)
 * is decoded by the browser after this check has read the value, so `u&#114;l(` would load a URL.
 */
const ESCAPE_REFERENCE = /&(?:amp|quot|lt|gt|apos|#39);/g;

function checkAttributes(attributes: string): string | null {
  for (const match of attributes.matchAll(ATTRIBUTE)) {
    const name = (match[1] ?? '').toLowerCase();
    const value = match[2] ?? '';
    if (value.replace(ESCAPE_REFERENCE, '').includes('&')) return `a character reference in an attribute (${name})`;
    if (name.startsWith('on')) return `an event handler attribute (${name})`;
    if ((name === 'href' || name === 'xlink:href') && !SAFE_LINK.test(value)) return 'a link that is not a data image or http(s)';
    if (name === 'style' && /url\s*\(|expression\s*\(|@import|\\/i.test(value)) return 'a style attribute that loads or escapes';
  }
  return null;
}

export function checkSvg(svg: string): SvgVerdict {
  for (const match of svg.matchAll(/<[^>]*>?/g)) {
    const tag = match[0];
    const parsed = TAG.exec(tag);
    if (!parsed) return { ok: false, reason: `malformed markup near ${JSON.stringify(tag.slice(0, 60))}` };
    const name = parsed[2] ?? '';
    if (!ALLOWED_ELEMENTS.has(name)) return { ok: false, reason: `an element that is not drawing (${name})` };
    const problem = checkAttributes(parsed[3] ?? '');
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true };
}
