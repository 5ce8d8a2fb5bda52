/** Text: title, heading, paragraph, prose, callout, quote, code. */
import type { CalloutBlock, CodeBlock, HeadingBlock, ParagraphBlock, ProseBlock, QuoteBlock, TitleBlock, Tone } from '../spec-schema.js';
import { highlightToHtml, renderCodeLines } from './code-highlight.js';
import { escapeAttr, escapeHtml } from './escape.js';
import { renderMarkdown } from './markdown.js';
import type { RenderContext } from './render-context.js';
import { toneClass } from './tone.js';

export function renderTitle(block: TitleBlock): string {
  const byline = [block.byline ? `<span class="byline-name">${escapeHtml(block.byline)}</span>` : '', block.dateline ? `<span class="dateline">${escapeHtml(block.dateline)}</span>` : '']
    .filter(Boolean)
    .join('<span class="sep" aria-hidden="true">·</span>');
  return (
    `<header class="doc-title${toneClass(block.tone)}${block.rule ? ' rule' : ''}">` +
    // The tone colours the eyebrow; without one, a short bar in the tone stands above the headline.
    (block.eyebrow ? `<div class="eyebrow">${escapeHtml(block.eyebrow)}</div>` : block.tone ? '<div class="title-mark" aria-hidden="true"></div>' : '') +
    `<h2 class="headline">${escapeHtml(block.headline)}</h2>` +
    (block.standfirst ? `<p class="standfirst">${escapeHtml(block.standfirst)}</p>` : '') +
    (byline ? `<div class="byline">${byline}</div>` : '') +
    `</header>`
  );
}

export function renderHeading(block: HeadingBlock): string {
  const level = block.level ?? 2;
  return (
    `<div class="heading h-${level}${toneClass(block.tone)}${block.rule ? ' rule' : ''}">` +
    (block.eyebrow ? `<div class="eyebrow">${escapeHtml(block.eyebrow)}</div>` : '') +
    `<h${level} class="heading-text">${escapeHtml(block.text)}</h${level}></div>`
  );
}

/** Blank lines separate paragraphs; a single newline is a line break. */
function paragraphsOf(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => part.split('\n').map(escapeHtml).join('<br>'));
}

export function renderParagraph(block: ParagraphBlock): string {
  const classes = `para${block.lead ? ' lead' : ''}${toneClass(block.tone)}`;
  return paragraphsOf(block.text)
    .map((paragraph) => `<p class="${classes}">${paragraph}</p>`)
    .join('');
}

/** A block's `markdown`, reporting each link or image URL it leaves out (see RenderContext). */
function blockMarkdown(source: string, context: RenderContext): string {
  return renderMarkdown(source, context.highlightBudget, (url) => context.noteRefusedUrl('A link or image in this markdown is shown as plain text', url, 'markdown'));
}

export function renderProse(block: ProseBlock, context: RenderContext): string {
  const classes = ['prose', `size-${block.size ?? 'base'}`];
  if (block.columns === 2) classes.push('cols-2');
  if (block.dropCap) classes.push('dropcap');
  return `<div class="${classes.join(' ')}">${blockMarkdown(block.markdown, context)}</div>`;
}

type CalloutIcon = NonNullable<CalloutBlock['icon']>;

const ICON_TONE: Record<CalloutIcon, Tone> = {
  note: 'neutral',
  info: 'info',
  tip: 'accent',
  warning: 'warning',
  danger: 'danger',
  success: 'positive',
  none: 'neutral',
};

const TONE_ICON: Record<Tone, CalloutIcon> = {
  neutral: 'note',
  info: 'info',
  accent: 'tip',
  warning: 'warning',
  danger: 'danger',
  positive: 'success',
};

const ICON_GLYPH: Record<Exclude<CalloutIcon, 'none'>, string> = {
  note: '✎',
  info: 'i',
  tip: '★',
  warning: '!',
  danger: '✕',
  success: '✓',
};

const ICON_WORD: Record<Exclude<CalloutIcon, 'none'>, string> = {
  note: 'Note',
  info: 'Information',
  tip: 'Tip',
  warning: 'Warning',
  danger: 'Danger',
  success: 'Success',
};

export function renderCallout(block: CalloutBlock, context: RenderContext): string {
  const tone = block.tone ?? (block.icon ? ICON_TONE[block.icon] : 'info');
  const icon = block.icon ?? TONE_ICON[tone];
  const iconHtml =
    icon === 'none'
      ? ''
      : `<span class="callout-icon i-${icon}" aria-hidden="true">${ICON_GLYPH[icon]}</span><span class="sr-only">${ICON_WORD[icon]}: </span>`;
  return (
    `<aside class="callout t-${tone}${icon === 'none' ? ' no-icon' : ''}">${iconHtml}<div class="callout-body">` +
    (block.title ? `<p class="callout-title">${escapeHtml(block.title)}</p>` : '') +
    `<div class="callout-text">${blockMarkdown(block.markdown, context)}</div></div></aside>`
  );
}

export function renderQuote(block: QuoteBlock): string {
  const who = [
    block.attribution ? `<cite class="quote-who">${escapeHtml(block.attribution)}</cite>` : '',
    block.role ? `<span class="quote-role">${escapeHtml(block.role)}</span>` : '',
    block.source ? `<span class="quote-source">${escapeHtml(block.source)}</span>` : '',
  ].filter(Boolean);
  return (
    `<figure class="pull-quote${toneClass(block.tone ?? 'accent')}"><blockquote>${paragraphsOf(block.quote)
      .map((paragraph) => `<p>${paragraph}</p>`)
      .join('')}</blockquote>` +
    (who.length > 0 ? `<figcaption>${who.join('<span class="sep" aria-hidden="true">·</span>')}</figcaption>` : '') +
    `</figure>`
  );
}

export function renderCode(block: CodeBlock, context: RenderContext): string {
  const { html, language } = highlightToHtml(block.code, block.language, context.highlightBudget);
  const lines = renderCodeLines(html, { lineNumbers: block.lineNumbers ?? false, highlight: new Set(block.highlight ?? []) });
  const languageLabel = language ?? block.language;
  const head =
    `<div class="code-head">` +
    (block.filename ? `<span class="code-file">${escapeHtml(block.filename)}</span>` : '<span class="code-file"></span>') +
    (languageLabel ? `<span class="code-lang">${escapeHtml(languageLabel)}</span>` : '') +
    `<button type="button" class="copy-btn" data-copy hidden>Copy</button></div>`;
  const style = block.maxHeight !== undefined ? ` style="max-height:${block.maxHeight}px"` : '';
  const classes = ['code', block.wrap ? 'wrap' : '', block.lineNumbers ? 'numbered' : ''].filter(Boolean).join(' ');
  return `<div class="code-block">${head}<pre class="${classes}"${style} tabindex="0"><code${language ? ` data-lang="${escapeAttr(language)}"` : ''}>${lines}</code></pre></div>`;
}
