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

export function renderBlock(block: Block, context: RenderContext, placement: string | undefined): string {
  const classes = plainClass(block);
  return frameBlock(block, { placement, content: renderContent(block, context), ...(classes ? { classes } : {}) });
}
