/**
 * Syntax highlighting on the server with highlight.js (its common languages), split into lines so the
 * code block can number and mark lines. highlight.js escapes the code it emits.
 */
import hljs from 'highlight.js/lib/common';
import { escapeAttr } from './escape.js';

/**
 * highlight.js is quadratic on some inputs. Measured on one core, worst of 40 languages × 60 shapes:
 * 40,000 characters of `a` in one JavaScript line take 4 s, 5,000 of `$` in one Java line 230 ms; with
 * no line over 2,000 characters the worst is C# words without punctuation, quadratic across lines:
 * 20,000 characters in 80-character lines take 2 s, while 20,000 characters of ordinary code take
 * 30 ms. A spec may hold megabytes of code, so no size limit alone bounds a page: code is highlighted
 * only within the limits below and while the page has spent less than PAGE_TIME_MS on highlighting.
 * The worst page then spends about 4 s here (the budget plus one worst piece), far from the 20 s
 * render limit, and ordinary pages never reach the budget. The rest is shown as plain text.
 */
const MAX_LENGTH = 20_000;
const MAX_LINE = 2_000;
const PAGE_TIME_MS = 2_000;

/** How much highlighting one page may still do. */
export class HighlightBudget {
  private spentMs = 0;

  constructor(private readonly limitMs = PAGE_TIME_MS) {}

  /** Highlights the code if it is within the limits and the page's time is not spent; otherwise null. */
  run(code: string, highlight: () => string): string | null {
    if (this.spentMs >= this.limitMs || code.length > MAX_LENGTH || longestLine(code) > MAX_LINE) return null;
    const started = performance.now();
    try {
      return highlight();
    } finally {
      this.spentMs += performance.now() - started;
    }
  }
}

function longestLine(code: string): number {
  let longest = 0;
  let start = 0;
  while (start <= code.length) {
    const end = code.indexOf('\n', start);
    const stop = end === -1 ? code.length : end;
    if (stop - start > longest) longest = stop - start;
    start = stop + 1;
  }
  return longest;
}

export interface HighlightedCode {
  html: string;
  /** The language's display name when highlight.js knows it. */
  language: string | null;
}

/**
 * Highlighted HTML for the code; the escaped code when the language is unknown or absent, or when the
 * page's highlighting budget does not cover it.
 */
export function highlightToHtml(code: string, language: string | undefined, budget: HighlightBudget): HighlightedCode {
  const known = language ? hljs.getLanguage(language) : undefined;
  if (!language || !known) return { html: escapeAttr(code), language: null };
  const html = budget.run(code, () => hljs.highlight(code, { language, ignoreIllegals: true }).value);
  return { html: html ?? escapeAttr(code), language: known.name ?? language };
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
    parts.push(`<span class="line${marked ? ' line-marked' : ''}">${numberCell}<span class="lc">${line}</span></span>`);
  });
  // Lines are blocks; a newline between them inside <pre> would add an empty line.
  return parts.join('');
}
