/**
 * The frame every block sits in: grid placement, visibility (`only`), `minHeight`, `align`, and the
 * common `title` / `caption`. Block renderers produce only their content.
 */
import type { Block } from '../spec-schema.js';
import { escapeAttr, escapeHtml } from './escape.js';

/** Kinds that read as part of the page rather than as cards. */
const BARE_KINDS = new Set<Block['type']>(['title', 'heading', 'paragraph', 'quote', 'banner', 'callout', 'footnotes']);
/** Kinds whose `align` is a text alignment (left | center) rather than the block's alignment in its row. */
const TEXT_ALIGN_KINDS = new Set<Block['type']>(['bignumber', 'title', 'heading', 'paragraph', 'quote']);

export interface GridPlacement {
  /** Number of tracks in the section's grid. */
  columns: number;
}

/** `grid-column` / `grid-row` values for wide, medium and phone screens (see src/web/styles.ts). */
export function placementStyle(block: Block, grid: GridPlacement): string {
  const columns = grid.columns;
  const colStart = block.colStart !== undefined ? Math.min(block.colStart, columns) : undefined;
  const room = colStart !== undefined ? columns - colStart + 1 : columns;
  const span = Math.max(1, Math.min(block.span ?? columns, room));
  const parts: string[] = [];
  parts.push(`--gc:${colStart !== undefined ? `${colStart} / ` : ''}span ${span}`);
  // Tablets: narrow blocks double up, anything over half the row takes the whole row.
  const mediumSpan = span * 2 > columns ? columns : Math.min(columns, span * 2);
  parts.push(`--gcm:span ${mediumSpan}`);
  if (block.rowStart !== undefined || block.rowSpan !== undefined) {
    parts.push(`--gr:${block.rowStart ?? 'auto'} / span ${block.rowSpan ?? 1}`);
  }
  return parts.join(';');
}

/** The share of the section's width a block takes on a wide screen (0–1]. */
export function widthShare(block: Block, columns: number): number {
  const colStart = block.colStart !== undefined ? Math.min(block.colStart, columns) : 1;
  const span = Math.max(1, Math.min(block.span ?? columns, columns - colStart + 1));
  return span / columns;
}

export interface FrameOptions {
  /** Placement style for grid layouts; absent in the report flow. */
  placement: string | undefined;
  content: string;
  /** Extra classes on the frame, e.g. a tone. */
  classes?: string;
}

function hasCaptionFields(block: Block): block is Block & { title?: string; caption?: string } {
  return block.type !== 'title' && block.type !== 'heading' && block.type !== 'paragraph' && block.type !== 'quote';
}

export function frameBlock(block: Block, options: FrameOptions): string {
  const classes = ['blk', `k-${block.type}`];
  if (BARE_KINDS.has(block.type)) classes.push('bare');
  if (block.only) classes.push(`only-${block.only}`);
  if (options.classes) classes.push(options.classes);
  const styles: string[] = [];
  if (options.placement) styles.push(options.placement);
  if (block.minHeight !== undefined) styles.push(`min-height:${block.minHeight}px`);
  if (block.align !== undefined) {
    if (TEXT_ALIGN_KINDS.has(block.type)) classes.push(`ta-${block.align}`);
    else styles.push(`align-self:${block.align}`);
  }
  const attributes = [`class="${classes.join(' ')}"`, `data-kind="${block.type}"`];
  if (block.id) attributes.push(`id="${escapeAttr(block.id)}"`);
  if (styles.length > 0) attributes.push(`style="${styles.join(';')}"`);

  // callout renders its own title inside the box.
  const title = hasCaptionFields(block) && block.type !== 'callout' ? block.title : undefined;
  const caption = hasCaptionFields(block) ? block.caption : undefined;
  const head = title ? `<h3 class="blk-title">${escapeHtml(title)}</h3>` : '';
  const foot = caption ? `<p class="blk-caption">${escapeHtml(caption)}</p>` : '';
  return `<div ${attributes.join(' ')}>${head}${options.content}${foot}</div>`;
}
