/** Media: figure (an image) and html (the author's markup, isolated in a sandboxed frame). */
import { createHash } from 'node:crypto';
import type { FigureBlock, HtmlBlock } from '../spec-schema.js';
import { escapeAttr, escapeHtml, formatNumber, linkAttributes, safeUrl } from './escape.js';
import { MAX_FRAME_SCRIPTS, type RenderContext } from './render-context.js';

const ASPECT_CLASS: Record<NonNullable<FigureBlock['aspect']>, string> = {
  '16/9': 'ar-16-9',
  '4/3': 'ar-4-3',
  '3/2': 'ar-3-2',
  '1/1': 'ar-1-1',
  auto: 'ar-auto',
};

export function renderFigure(block: FigureBlock, context: RenderContext): string {
  const url = safeUrl(block.url);
  if (!url) context.noteRefusedUrl('This image is not shown (its alt text is)', block.url, 'url');
  // A fixed height wins over the aspect ratio (with both, the browser would derive the width).
  const aspect = block.height !== undefined ? 'ar-auto' : ASPECT_CLASS[block.aspect ?? 'auto'];
  const classes = ['fig', aspect, `fit-${block.fit ?? 'contain'}`];
  if (block.plain) classes.push('plain');
  const style = block.height !== undefined ? ` style="height:${block.height}px"` : '';
  const media = url
    ? `<a class="fig-media"${style} ${linkAttributes(url)}><img src="${escapeAttr(url)}" alt="${escapeAttr(block.alt)}" loading="lazy" decoding="async" referrerpolicy="no-referrer"></a>`
    : `<div class="fig-media missing"${style} role="img" aria-label="${escapeAttr(block.alt)}"><span>${escapeHtml(block.alt)}</span></div>`;
  const caption =
    block.label || block.figcaption || block.credit
      ? `<figcaption>${block.label ? `<span class="fig-label">${escapeHtml(block.label)}</span> ` : ''}${block.figcaption ? escapeHtml(block.figcaption) : ''}${
          block.credit ? ` <span class="fig-credit">${escapeHtml(block.credit)}</span>` : ''
        }</figcaption>`
      : '';
  return `<figure class="${classes.join(' ')}">${media}${caption}</figure>`;
}

const SCRIPT_START = /<script\b/gi;
const SCRIPT_END = /<\/script[\s/>]/gi;

/**
 * The inline scripts of an html block (attributes and text), found in one pass: once no `>` or no
 * `</script` follows a `<script`, none follows any later one either, so the scan stops there (a
 * regular expression over 25,000 unclosed `<script>` took 1.6 s to find nothing).
 */
function inlineScripts(html: string): Array<{ attributes: string; text: string }> {
  const scripts: Array<{ attributes: string; text: string }> = [];
  let from = 0;
  for (;;) {
    SCRIPT_START.lastIndex = from;
    const start = SCRIPT_START.exec(html);
    if (start === null) break;
    const attributesStart = start.index + start[0].length;
    const tagEnd = html.indexOf('>', attributesStart);
    if (tagEnd === -1) break;
    SCRIPT_END.lastIndex = tagEnd + 1;
    const end = SCRIPT_END.exec(html);
    if (end === null) break;
    scripts.push({ attributes: html.slice(attributesStart, tagEnd), text: html.slice(tagEnd + 1, end.index) });
    from = end.index + end[0].length;
  }
  return scripts;
}

/**
 * The inline scripts of an html block, hashed for the page's CSP: a srcdoc frame inherits the policy
 * of the page, so these exact scripts (and no others) may run, inside the sandbox only. One hash per
 * script, in order; scripts with the same text have the same hash.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const script of inlineScripts(html)) {
    if (/\bsrc\s*=/i.test(script.attributes)) continue;
    // The HTML parser turns CRLF and CR into LF before the browser hashes the script's text.
    const text = script.text.replace(/\r\n?/g, '\n');
    hashes.push(`'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

export function renderHtmlBlock(block: HtmlBlock, context: RenderContext): string {
  let refused = 0;
  for (const hash of inlineScriptHashes(block.html)) if (!context.allowFrameScript(hash)) refused += 1;
  const height = block.height ?? 240;
  const title = block.title ?? 'Embedded content';
  if (refused > 0) {
    context.noteProblem(
      `${formatNumber(refused)} inline ${refused === 1 ? 'script' : 'scripts'} of this html block will not run: a page runs at most ${MAX_FRAME_SCRIPTS} different inline scripts across its html blocks. Merge scripts into fewer <script> elements.`,
    );
  }
  const note =
    refused > 0
      ? `<p class="html-note">${formatNumber(refused)} ${refused === 1 ? 'script' : 'scripts'} of this block did not run: a page runs at most ${MAX_FRAME_SCRIPTS} different inline scripts.</p>`
      : '';
  // Never allow-same-origin: the frame gets an opaque origin and cannot read cookies or the page.
  return `<iframe class="html-frame" sandbox="allow-scripts" referrerpolicy="no-referrer" title="${escapeAttr(title)}" style="height:${height}px" srcdoc="${escapeAttr(followingPageTheme(block.html))}"></iframe>${note}`;
}

const LEADING_DOCTYPE = /^\s*<!doctype[^>]*>/i;
const THEME_FOLLOWER = '<meta name="color-scheme" content="light dark"><style>:root{background:transparent}</style>';

/**
 * The frame's document takes the page's light or dark (a frame prefers the colour scheme of its iframe
 * element) and has no canvas of its own, so content that sets no colours reads as the page around it
 * instead of a white box in dark mode. Content that sets its own colours keeps them. After a leading
 * doctype, which must stay first or the document falls into quirks mode.
 */
export function followingPageTheme(html: string): string {
  const doctype = LEADING_DOCTYPE.exec(html)?.[0] ?? '';
  return `${doctype}${THEME_FOLLOWER}${html.slice(doctype.length)}`;
}
