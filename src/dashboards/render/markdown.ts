/**
 * Markdown of prose and callout blocks: CommonMark plus tables, with raw HTML off (any tag is shown as
 * text), links and images limited to http(s), mailto and relative URLs, and fenced code highlighted on
 * the server like code blocks.
 */
import MarkdownIt from 'markdown-it';
import { highlightToHtml, type HighlightBudget } from './code-highlight.js';
import { isExternalUrl, safeUrl } from './escape.js';

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: true });

interface MarkdownEnv {
  highlightBudget: HighlightBudget;
}

// Fences are highlighted within the page's budget, which markdown-it's `highlight` option cannot see.
const defaultFence = markdown.renderer.rules.fence;
markdown.renderer.rules.fence = (tokens, index, options, env: MarkdownEnv, self) => {
  const highlight = (code: string, language: string) =>
    `<pre class="md-code"><code>${highlightToHtml(code, language.trim() || undefined, env.highlightBudget).html}</code></pre>`;
  const withHighlight = { ...options, highlight };
  return defaultFence ? defaultFence(tokens, index, withHighlight, env, self) : self.renderToken(tokens, index, withHighlight);
};

/** Set while a block's markdown renders: hears of each link or image URL left out (markdown-it is synchronous). */
let onRefusedUrl: ((url: string) => void) | undefined;
markdown.validateLink = (url: string) => {
  if (safeUrl(url) !== null) return true;
  onRefusedUrl?.(url);
  return false;
};

const defaultLinkOpen = markdown.renderer.rules.link_open;
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const href = token?.attrGet('href');
  if (token && href && isExternalUrl(href)) token.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen ? defaultLinkOpen(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
};

const defaultImage = markdown.renderer.rules.image;
markdown.renderer.rules.image = (tokens, index, options, env, self) => {
  tokens[index]?.attrSet('loading', 'lazy');
  return defaultImage ? defaultImage(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
};

// The page has h1 (dashboard) and h2 (sections); a markdown "# Heading" becomes h2 and so on down.
function demoteHeading(tag: string): string {
  const level = Number(tag.slice(1));
  return `h${Math.min(6, level + 1)}`;
}
markdown.core.ruler.push('demote_headings', (state) => {
  for (const token of state.tokens) {
    if (token.type === 'heading_open' || token.type === 'heading_close') token.tag = demoteHeading(token.tag);
  }
});

/** `refused` hears of each link or image URL left out, once per URL (they show as plain text). */
export function renderMarkdown(source: string, highlightBudget: HighlightBudget, refused?: (url: string) => void): string {
  const env: MarkdownEnv = { highlightBudget };
  const heard = new Set<string>();
  onRefusedUrl = refused
    ? (url) => {
        if (heard.has(url)) return;
        heard.add(url);
        refused(url);
      }
    : undefined;
  try {
    return markdown.render(source, env);
  } finally {
    onRefusedUrl = undefined;
  }
}

/** Single-line markdown (no paragraphs), for short fields that allow emphasis and links. */
export function renderInlineMarkdown(source: string): string {
  return markdown.renderInline(source);
}
