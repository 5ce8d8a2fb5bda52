/**
 * Syntax highlighting on the server with highlight.js (its common languages), split into lines so the
 * code block can number and mark lines. highlight.js escapes the code it emits.
 */
import hljs from 'highlight.js/lib/common';
import { escapeAttr } from './escape.js';

/** Highlighted HTML for the code, or the escaped code when the language is unknown or absent. */
export function highlightToHtml(code: string, language: string | undefined): { html: string; language: string | null } {
  const known = language ? hljs.getLanguage(language) : undefined;
  if (!language || !known) return { html: escapeAttr(code), language: null };
  const result = hljs.highlight(code, { language, ignoreIllegals: true });
  return { html: result.value, language: known.name ?? language };
}

const TAG = /<\/?span[^>]*>|\n/g;

/**
 * Splits highlighted HTML into lines, closing the spans open at each line break and reopening them on
 * the next line, so every line is balanced markup that can be wrapped on its own.
 */
export function splitHighlightedLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = '';
  let last = 0;
  for (const match of html.matchAll(TAG)) {
    const index = match.index ?? 0;
    current += html.slice(last, index);
    last = index + match[0].length;
    const token = match[0];
    if (token === '\n') {
      current += '</span>'.repeat(open.length);
      lines.push(current);
      current = open.join('');
    } else if (token.startsWith('</')) {
      open.pop();
      current += token;
    } else {
      open.push(token);
      current += token;
    }
  }
  current += html.slice(last);
  lines.push(current);
  return lines;
}

export interface CodeLinesOptions {
  lineNumbers: boolean;
  highlight: ReadonlySet<number>;
}

/** One `<span class="line">` per line; numbers come from CSS so copying the code copies no numbers. */
export function renderCodeLines(html: string, options: CodeLinesOptions): string {
  const lines = splitHighlightedLines(html);
  // A trailing newline ends the last line rather than starting an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const parts: string[] = [];
  lines.forEach((line, index) => {
    const number = index + 1;
    const marked = options.highlight.has(number);
    const numberCell = options.lineNumbers ? `<span class="ln" data-n="${number}"></span>` : '';
    parts.push(`<span class="line${marked ? ' hl' : ''}">${numberCell}<span class="lc">${line}</span></span>`);
  });
  // Lines are blocks; a newline between them inside <pre> would add an empty line.
  return parts.join('');
}
