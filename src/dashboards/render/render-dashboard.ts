/**
 * The page body of one dashboard: header (title, subtitle, meta, highlights, agent context), then
 * sections of blocks on a grid (`layout: grid`, the default) or as a document (`layout: report`).
 */
import type { Issue } from '../../errors.js';
import type { Block, DashboardSpec, Section } from '../spec-schema.js';
import { placementStyle, widthShare } from './block-frame.js';
import { fillChartsDrawnHere } from './chart-drawing.js';
import type { ChartPlan, ChartWidths } from './chart-slots.js';
import { escapeAttr, escapeHtml, escapeScalar, fitAttributes } from './escape.js';
import { RenderContext } from './render-context.js';
import { renderBlock } from './render-block.js';
import { toneClass } from './tone.js';

/** Content width of the page on a laptop and of the report column, in CSS pixels (see src/web/styles.ts). */
export const PAGE_CONTENT_WIDTH = 1216;
export const REPORT_CONTENT_WIDTH = 760;
/** Border and padding of a block card on each side. */
const CARD_INSET = 19;
const GAP_PIXELS = { none: 0, xs: 4, sm: 8, md: 16, lg: 24, xl: 36 } as const;
const DEFAULT_COLUMNS = 24;

export interface DashboardMeta {
  version: number;
  updatedAt: string;
  /** Links after the version and update time in the footer (the version history, the wall display). */
  footerLinks?: ReadonlyArray<{ label: string; href: string }>;
  /** Which of a chart's two widths the page draws (default `both`; see ChartWidths). */
  chartWidths?: ChartWidths;
  /** The version's page, under which a table's, chart's or heatmap's CSV is `<base><block pointer>.csv` (no download links without it). */
  downloadBase?: string;
}

export interface RenderedDashboard {
  title: string;
  /** The `<main>` content. */
  html: string;
  /** CSP sources for the inline scripts of html blocks. */
  frameScriptHashes: string[];
}

/** A dashboard laid out, its `html` holding a marker for each drawing `charts` lists (see chart-slots.ts). */
export interface PlannedDashboard extends RenderedDashboard {
  charts: ChartPlan;
  /** Blocks the page shows differently from their spec, found while laying it out (see RenderContext); at most MAX_ISSUES. */
  problems: Issue[];
  /** How many there were in all. */
  problemTotal: number;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export function formatTimestamp(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? iso : `${dateFormat.format(time)} UTC`;
}

export function timeElement(iso: string): string {
  return `<time datetime="${escapeAttr(iso)}" data-relative>${escapeHtml(formatTimestamp(iso))}</time>`;
}

function renderHeader(spec: DashboardSpec, meta: DashboardMeta): string {
  const parts: string[] = [];
  const kicker = [spec.group ? `<span class="dash-group">${escapeHtml(spec.group)}</span>` : '', `<span>Updated ${timeElement(meta.updatedAt)}</span>`]
    .filter(Boolean)
    .join('<span class="sep" aria-hidden="true">·</span>');
  parts.push(`<div class="dash-kicker">${kicker}</div>`);
  parts.push(`<h1 class="dash-title">${escapeHtml(spec.title)}</h1>`);
  if (spec.subtitle) parts.push(`<p class="dash-subtitle">${escapeHtml(spec.subtitle)}</p>`);
  if (spec.meta && spec.meta.length > 0) {
    const items = spec.meta
      .map((item) => `<div class="meta-item${toneClass(item.tone)}"><dt>${escapeHtml(item.label)}</dt><dd>${escapeHtml(item.value)}</dd></div>`)
      .join('');
    parts.push(`<dl class="dash-meta">${items}</dl>`);
  }
  if (spec.highlights && spec.highlights.length > 0) {
    const items = spec.highlights
      .map((item) => `<div class="hl${toneClass(item.tone)}"><div class="hl-label">${escapeHtml(item.label)}</div><div class="hl-value"${fitAttributes(item.value)}>${escapeScalar(item.value)}</div></div>`)
      .join('');
    parts.push(`<div class="highlights" style="--hl-count:${spec.highlights.length}">${items}</div>`);
  }
  if (spec.svc) {
    const context = spec.svc;
    const bits = [
      context.agent ? `Published by <strong>${escapeHtml(context.agent)}</strong>` : 'Published by an agent',
      context.sessionId ? `session <code>${escapeHtml(context.sessionId)}</code>` : '',
      context.projectId ? `project <code>${escapeHtml(context.projectId)}</code>` : '',
    ].filter(Boolean);
    parts.push(
      `<div class="dash-agent"><p>${bits.join('<span class="sep" aria-hidden="true">·</span>')}</p>` +
        (context.context ? `<details class="dash-context"><summary>How this was made</summary><p>${escapeHtml(context.context)}</p></details>` : '') +
        `</div>`,
    );
  }
  return `<header class="dash-head${toneClass(spec.tone ?? 'accent')}">${parts.join('')}</header>`;
}

/** A rough height in pixels, only to tell blocks that run long from the rest. */
function estimatedHeight(block: Block): number {
  switch (block.type) {
    case 'table':
      return block.maxHeight ?? block.rows.length * 37;
    case 'list':
      return block.items.length * 48;
    case 'timeline':
      return block.events.length * 64;
    case 'checklist':
      return block.items.length * 40;
    case 'steps':
      return block.steps.length * 52;
    case 'comparison':
    case 'statusMatrix':
      return block.rows.length * 40;
    case 'code':
      return block.maxHeight ?? block.code.split('\n').length * 20;
    case 'prose':
      return block.markdown.length / 4;
    default:
      return 0;
  }
}

const TALL_BLOCK = 900;

/**
 * Blocks in a row stretch to equal height, which keeps cards tidy; beside a block that runs long
 * (a 40-row table) that would leave tall empty cards, so such sections align blocks to the top.
 */
function defaultAlign(section: Section): string | undefined {
  if (section.align !== undefined) return section.align;
  return (section.blocks ?? []).some((block) => !block.hidden && block.span !== undefined && estimatedHeight(block) > TALL_BLOCK) ? 'start' : undefined;
}

function gridStyle(section: Section, columns: number): string {
  const styles = [`--cols:${columns}`, `--gap:${GAP_PIXELS[section.gap ?? 'md']}px`];
  if (section.rowHeight !== undefined) styles.push(`grid-auto-rows:minmax(${section.rowHeight}px,auto)`);
  const align = defaultAlign(section);
  if (align !== undefined) styles.push(`align-items:${align}`);
  if (section.dense) styles.push('grid-auto-flow:row dense');
  return styles.join(';');
}

function blockContentWidth(block: Block, columns: number, gap: number): number {
  const share = widthShare(block, columns);
  return share * (PAGE_CONTENT_WIDTH + gap) - gap - CARD_INSET * 2;
}

function renderSection(section: Section, sectionIndex: number, id: string, layout: 'grid' | 'report', context: RenderContext): string {
  const headingId = context.nextId('section');
  const classes = ['sec'];
  if (section.only) classes.push(`only-${section.only}`);
  const head =
    section.title || section.note
      ? `<div class="sec-head">${
          section.title
            ? // The link sits beside the heading, not in it: the heading names the section (aria-labelledby).
              `<h2 class="sec-title" id="${headingId}">${escapeHtml(section.title)}</h2><a class="sec-anchor" href="#${escapeAttr(id)}" aria-label="${escapeAttr(`Link to ${section.title}`)}">#</a>`
            : ''
        }${
          section.note ? `<p class="sec-note">${escapeHtml(section.note)}</p>` : ''
        }</div>`
      : '';
  const blocks = section.blocks ?? [];
  const rendered: string[] = [];
  if (layout === 'report') {
    blocks.forEach((block, blockIndex) => {
      if (block.hidden) return;
      context.placement = { layout, contentWidth: REPORT_CONTENT_WIDTH - CARD_INSET * 2 };
      context.blockPath = `/sections/${sectionIndex}/blocks/${blockIndex}`;
      rendered.push(renderBlock(block, context, undefined));
    });
  } else {
    const columns = Math.min(24, Math.max(1, section.columns ?? DEFAULT_COLUMNS));
    const gap = GAP_PIXELS[section.gap ?? 'md'];
    blocks.forEach((block, blockIndex) => {
      if (block.hidden) return;
      context.placement = { layout, contentWidth: blockContentWidth(block, columns, gap) };
      context.blockPath = `/sections/${sectionIndex}/blocks/${blockIndex}`;
      rendered.push(renderBlock(block, context, placementStyle(block, { columns })));
    });
    const body = `<div class="grid" style="${gridStyle(section, columns)}">${rendered.join('')}</div>`;
    return `<section class="${classes.join(' ')}" id="${escapeAttr(id)}"${section.title ? ` aria-labelledby="${headingId}"` : ''}>${head}${body}</section>`;
  }
  const body = `<div class="flow">${rendered.join('')}</div>`;
  return `<section class="${classes.join(' ')}" id="${escapeAttr(id)}"${section.title ? ` aria-labelledby="${headingId}"` : ''}>${head}${body}</section>`;
}

const SELF_NUMBERED_TITLE = /^\s*(?:\d+|[IVXLC]+|[A-Z])[.)]\s/;

/** A contents list for reports with several titled sections; `anchors` are the sections' ids. */
function renderContents(sections: readonly Section[], anchors: readonly string[]): string {
  const entries = sections
    .map((section, index) => ({ section, index }))
    .filter(({ section }) => section.title && !section.hidden && section.only !== 'print');
  if (entries.length < 3) return '';
  const items = entries
    .map(({ section, index }) => `<li><a href="#${escapeAttr(anchors[index] ?? '')}">${escapeHtml(section.title ?? '')}</a></li>`)
    .join('');
  // Titles that carry their own numbers ("1. Reliability") are not numbered again.
  const numbered = entries.some(({ section }) => SELF_NUMBERED_TITLE.test(section.title ?? ''));
  return `<nav class="toc only-screen" aria-label="Contents"><h2 class="toc-title">Contents</h2><ol${numbered ? ' class="self-numbered"' : ''}>${items}</ol></nav>`;
}

/** Every id the spec puts on the page: ids the page mints must differ from all of them. */
function specIds(sections: readonly Section[]): string[] {
  const ids: string[] = [];
  for (const section of sections) {
    if (section.id) ids.push(section.id);
    for (const block of section.blocks ?? []) {
      if (block.id) ids.push(block.id);
      if (block.type === 'stats') for (const item of block.items) if (item.id) ids.push(item.id);
    }
  }
  return ids;
}

export function planDashboard(spec: DashboardSpec, meta: DashboardMeta): PlannedDashboard {
  const layout = spec.layout ?? 'grid';
  const sections = spec.sections ?? [];
  const context = new RenderContext(specIds(sections));
  if (meta.downloadBase) context.downloadBase = meta.downloadBase;
  if (meta.chartWidths) context.chartWidths = meta.chartWidths;
  // A section without an id is `section-2`, unless a block already uses that id.
  const anchors = sections.map((section, index) => section.id ?? context.idUnlessTaken(`section-${index + 1}`, 'section'));
  const parts: string[] = [renderHeader(spec, meta)];
  if (layout === 'report') parts.push(renderContents(sections, anchors));
  sections.forEach((section, index) => {
    if (!section.hidden) parts.push(renderSection(section, index, anchors[index] ?? '', layout, context));
  });
  if (sections.length === 0) parts.push('<p class="empty-note">This dashboard has no sections yet.</p>');
  const links = (meta.footerLinks ?? []).map(({ label, href }) => `<span class="sep" aria-hidden="true">·</span><a href="${escapeAttr(href)}">${escapeHtml(label)}</a>`).join('');
  parts.push(`<footer class="dash-foot">Version ${meta.version}<span class="sep" aria-hidden="true">·</span>Updated ${timeElement(meta.updatedAt)}${links}</footer>`);
  return {
    title: spec.title,
    // The version lets the client script check that a page it fetches is this one (see ChartWidths).
    html: `<article class="dash layout-${layout}" data-version="${meta.version}">${parts.join('')}</article>`,
    frameScriptHashes: context.frameScriptHashes,
    charts: context.charts.plan,
    problems: context.problems,
    problemTotal: context.problemCount,
  };
}

/** The dashboard with its charts drawn in this thread (cached in the process's chart cache). */
export function renderDashboard(spec: DashboardSpec, meta: DashboardMeta): RenderedDashboard {
  const { charts, ...planned } = planDashboard(spec, meta);
  return { ...planned, html: fillChartsDrawnHere(planned.html, charts) };
}
