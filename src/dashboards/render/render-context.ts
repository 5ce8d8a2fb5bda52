/**
 * What a block renderer knows besides its block: where it sits (for charts, which are drawn at a fixed
 * size on the server), how to mint ids unique within the page, where to record inline scripts of
 * `html` blocks so the page's Content-Security-Policy can allow exactly those by hash, and how much
 * syntax highlighting the page may still do, and where its chart drawings go.
 */
import { MAX_ISSUES, type Issue } from '../../errors.js';
import { jsonPointer } from '../../json-pointer.js';
import { ChartSlots, type ChartWidths } from './chart-slots.js';
import { HighlightBudget } from './code-highlight.js';

export interface BlockPlacement {
  /** The width in CSS pixels the block's content has on a laptop screen. */
  contentWidth: number;
  layout: 'grid' | 'report';
}

/**
 * Inline scripts of html blocks a page allows, by hash. Each hash adds about 55 bytes to the page's
 * Content-Security-Policy header, and browsers and curl refuse headers of some tens of kilobytes.
 */
export const MAX_FRAME_SCRIPTS = 64;

export class RenderContext {
  private counter = 0;
  /**
   * The ids the spec itself puts on the page (sections, blocks, stats items). Spec 1 allows any string
   * as an id, so no prefix is safe on its own: a minted id skips any of these.
   */
  private readonly specIds: ReadonlySet<string>;
  /** `'sha256-…'` sources for the inline scripts of html blocks (their srcdoc inherits the page's CSP). */
  private readonly scriptHashes = new Set<string>();
  placement: BlockPlacement = { contentWidth: 1120, layout: 'grid' };
  /** Syntax highlighting left to this page (code blocks and markdown fences share it). */
  readonly highlightBudget = new HighlightBudget();
  /** The spec's ids that look like minted ones: the only ones an id base could clash with. */
  private readonly mintedLookingIds: readonly string[];
  readonly charts = new ChartSlots(() => this.nextIdBase('chart-def'));
  /** Which of a chart's two widths are drawn on this page (see ChartWidths). */
  chartWidths: ChartWidths = 'both';
  /** Where the version's downloads are (see DashboardMeta.downloadBase); none when empty. */
  downloadBase = '';
  /** The JSON pointer of the block being rendered (`/sections/1/blocks/3`): where a problem is reported. */
  blockPath = '';
  /** What the page shows differently from what the spec asks (a chart too large to draw, a script refused), up to MAX_ISSUES. */
  readonly problems: Issue[] = [];
  /** All problems noted, including those past the cap. */
  problemCount = 0;

  constructor(specIds: Iterable<string> = []) {
    this.specIds = new Set(specIds);
    this.mintedLookingIds = [...this.specIds].filter((id) => id.startsWith('svc-'));
  }

  /**
   * Records that the current block (or the field `within` it, as pointer segments) is not shown as its
   * spec asks, and why: a sentence for whoever wrote it.
   */
  noteProblem(message: string, ...within: Array<string | number>): void {
    this.problemCount += 1;
    if (this.problems.length < MAX_ISSUES) this.problems.push({ path: this.blockPath + jsonPointer(...within), message });
  }

  /** Records a URL left out of the page (see safeUrl): `what` says how the block shows it instead. */
  noteRefusedUrl(what: string, url: string, ...within: Array<string | number>): void {
    const shown = url.length > 80 ? `${url.slice(0, 77)}…` : url;
    this.noteProblem(`${what}: ${JSON.stringify(shown)} is not an http:, https:, mailto: or relative URL, the only kinds a page links to.`, ...within);
  }

  /** An id for references within the page (ARIA, labels, the table filter, SVG clip paths). */
  nextId(prefix: string): string {
    let id: string;
    do {
      this.counter += 1;
      id = `svc-${prefix}-${this.counter}`;
    } while (this.specIds.has(id));
    return id;
  }

  /** A base for a family of ids (`${base}-1`, `${base}-2`, …) that no id of the spec starts with. */
  nextIdBase(prefix: string): string {
    let base: string;
    do base = this.nextId(prefix);
    while (this.mintedLookingIds.some((id) => id.startsWith(`${base}-`)));
    return base;
  }

  /** Allows an html block's inline script by its hash, unless the page already allows as many as it may. */
  allowFrameScript(hash: string): boolean {
    if (this.scriptHashes.has(hash)) return true;
    if (this.scriptHashes.size >= MAX_FRAME_SCRIPTS) return false;
    this.scriptHashes.add(hash);
    return true;
  }

  /** The `'sha256-…'` sources allowed so far, for the page's CSP (a srcdoc frame inherits it). */
  get frameScriptHashes(): string[] {
    return [...this.scriptHashes];
  }

  /** The preferred id if the spec does not use it (a section's `section-2`); otherwise a minted one. */
  idUnlessTaken(preferred: string, prefix: string): string {
    return this.specIds.has(preferred) ? this.nextId(prefix) : preferred;
  }
}
