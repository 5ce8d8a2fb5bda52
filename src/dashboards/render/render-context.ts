/**
 * What a block renderer knows besides its block: where it sits (for charts, which are drawn at a fixed
 * size on the server), how to mint ids unique within the page, where to record inline scripts of
 * `html` blocks so the page's Content-Security-Policy can allow exactly those by hash, and how much
 * syntax highlighting the page may still do.
 */
import { HighlightBudget } from './code-highlight.js';

export interface BlockPlacement {
  /** The width in CSS pixels the block's content has on a laptop screen. */
  contentWidth: number;
  layout: 'grid' | 'report';
}

export class RenderContext {
  private counter = 0;
  /** `'sha256-…'` sources for the inline scripts of html blocks (their srcdoc inherits the page's CSP). */
  readonly frameScriptHashes = new Set<string>();
  placement: BlockPlacement = { contentWidth: 1120, layout: 'grid' };
  /** Syntax highlighting left to this page (code blocks and markdown fences share it). */
  readonly highlightBudget = new HighlightBudget();

  /** An id for ARIA references; the prefix keeps it clear of ids chosen by spec authors. */
  nextId(prefix: string): string {
    this.counter += 1;
    return `svc-${prefix}-${this.counter}`;
  }
}
