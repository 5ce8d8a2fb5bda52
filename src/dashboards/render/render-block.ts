/** One block → HTML: picks the kind's renderer and puts the result in the common frame. */
import type { Block } from '../spec-schema.js';
import { frameBlock } from './block-frame.js';
import { renderChart, renderGauge, renderHeatmap } from './blocks-charts.js';
import { renderChecklist, renderFields, renderFootnotes, renderLinks, renderList, renderPeople, renderPills, renderSteps, renderTimeline } from './blocks-lists.js';
import { renderFigure, renderHtmlBlock } from './blocks-media.js';
import { renderBanner, renderBignumber, renderProgressList, renderScorecard, renderSegments, renderStat, renderStats } from './blocks-metrics.js';
import { renderComparison, renderStatusMatrix, renderTable } from './blocks-table.js';
import { renderCallout, renderCode, renderHeading, renderParagraph, renderProse, renderQuote, renderTitle } from './blocks-text.js';
import type { RenderContext } from './render-context.js';

function renderContent(block: Block, context: RenderContext): string {
  switch (block.type) {
    case 'banner':
      return renderBanner(block);
    case 'stat':
      return renderStat(block);
    case 'stats':
      return renderStats(block);
    case 'bignumber':
      return renderBignumber(block);
    case 'gauge':
      return renderGauge(block, context);
    case 'segments':
      return renderSegments(block);
    case 'progressList':
      return renderProgressList(block);
    case 'scorecard':
      return renderScorecard(block);
    case 'chart':
      return renderChart(block, context);
    case 'heatmap':
      return renderHeatmap(block, context);
    case 'statusMatrix':
      return renderStatusMatrix(block);
    case 'comparison':
      return renderComparison(block);
    case 'table':
      return renderTable(block, context);
    case 'list':
      return renderList(block);
    case 'timeline':
      return renderTimeline(block);
    case 'fields':
      return renderFields(block);
    case 'pills':
      return renderPills(block);
    case 'people':
      return renderPeople(block, context);
    case 'title':
      return renderTitle(block);
    case 'heading':
      return renderHeading(block);
    case 'paragraph':
      return renderParagraph(block);
    case 'prose':
      return renderProse(block, context);
    case 'callout':
      return renderCallout(block, context);
    case 'quote':
      return renderQuote(block);
    case 'code':
      return renderCode(block, context);
    case 'steps':
      return renderSteps(block);
    case 'checklist':
      return renderChecklist(block);
    case 'figure':
      return renderFigure(block, context);
    case 'links':
      return renderLinks(block, context);
    case 'footnotes':
      return renderFootnotes(block);
    case 'html':
      return renderHtmlBlock(block, context);
  }
}

/** Kinds that drop their card when the spec asks for `plain`. */
function plainClass(block: Block): string | undefined {
  if ((block.type === 'prose' || block.type === 'figure') && block.plain) return 'bare';
  return undefined;
}

/** What each listing kind calls what it lists, by the property that holds them. */
const LISTED: Partial<Record<Block['type'], [property: string, noun: string]>> = {
  stats: ['items', 'figures'],
  segments: ['segments', 'segments'],
  progressList: ['items', 'items'],
  scorecard: ['criteria', 'criteria'],
  statusMatrix: ['rows', 'rows'],
  comparison: ['rows', 'rows'],
  list: ['items', 'items'],
  timeline: ['events', 'events'],
  fields: ['fields', 'fields'],
  pills: ['pills', 'pills'],
  people: ['people', 'people'],
  steps: ['steps', 'steps'],
  checklist: ['items', 'items'],
  links: ['links', 'links'],
  footnotes: ['notes', 'notes'],
  heatmap: ['values', 'values'],
};

/** A block that lists nothing says so, instead of showing an empty card (or a chart of bare axes). */
function emptyState(block: Block): string | null {
  const listed = LISTED[block.type];
  if (listed) {
    const [property, noun] = listed;
    const items = (block as unknown as Record<string, unknown>)[property];
    return Array.isArray(items) && items.length === 0 ? `<p class="blk-empty">No ${noun}.</p>` : null;
  }
  if (block.type === 'chart' && block.option === undefined) {
    const hasValue = (block.series ?? []).some((series) => series.data.some((value) => value !== null));
    return hasValue ? null : '<p class="blk-empty">No data to chart.</p>';
  }
  return null;
}

export function renderBlock(block: Block, context: RenderContext, placement: string | undefined): string {
  const classes = plainClass(block);
  const content = emptyState(block) ?? renderContent(block, context);
  return frameBlock(block, { placement, content, ...(classes ? { classes } : {}) });
}
