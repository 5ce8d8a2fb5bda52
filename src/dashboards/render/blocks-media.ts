/** Media: figure (an image) and html (the author's markup, isolated in a sandboxed frame). */
import { createHash } from 'node:crypto';
import type { FigureBlock, HtmlBlock } from '../spec-schema.js';
import { escapeAttr, escapeHtml, linkAttributes, safeUrl } from './escape.js';
import type { RenderContext } from './render-context.js';

const ASPECT_CLASS: Record<NonNullable<FigureBlock['aspect']>, string> = {
  '16/9': 'ar-16-9',
  '4/3': 'ar-4-3',
  '3/2': 'ar-3-2',
  '1/1': 'ar-1-1',
  auto: 'ar-auto',
};

export function renderFigure(block: FigureBlock): string {
  const url = safeUrl(block.url);
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

/**
 * The inline scripts of an html block, hashed for the page's CSP: a srcdoc frame inherits the policy
 * of the page, so these exact scripts (and no others) may run, inside the sandbox only.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script[\s/>]/gi)) {
    const attributes = match[1] ?? '';
    if (/\bsrc\s*=/i.test(attributes)) continue;
    // The HTML parser turns CRLF and CR into LF before the browser hashes the script's text.
    const text = (match[2] ?? '').replace(/\r\n?/g, '\n');
    hashes.push(`'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

export function renderHtmlBlock(block: HtmlBlock, context: RenderContext): string {
  for (const hash of inlineScriptHashes(block.html)) context.frameScriptHashes.add(hash);
  const height = block.height ?? 240;
  const title = block.title ?? 'Embedded content';
  // Never allow-same-origin: the frame gets an opaque origin and cannot read cookies or the page.
  return `<iframe class="html-frame" sandbox="allow-scripts" referrerpolicy="no-referrer" title="${escapeAttr(title)}" style="height:${height}px" srcdoc="${escapeAttr(block.html)}"></iframe>`;
}
