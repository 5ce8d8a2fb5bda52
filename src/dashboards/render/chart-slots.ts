/**
 * Where a page's drawings go. Laying out a page leaves a marker for each chart drawing and collects
 * the drawings to make; once they are made (in this thread or spread over render threads), `fillCharts`
 * puts each in its place. The layout then costs milliseconds however long the drawings take, and a
 * drawing that fails or runs out of time fails only its own chart.
 *
 * Markers are HTML comments carrying a random nonce: a spec's strings are always escaped, so no spec
 * can write a comment, let alone guess the nonce.
 */
import { randomBytes } from 'node:crypto';
import type { Issue } from '../../errors.js';
import type { ChartJob } from './chart-drawing.js';
import type { ChartRender } from './echarts-ssr.js';
import { escapeHtml } from './escape.js';

export interface ChartSlot {
  /** The drawing, by its index in the plan's jobs (a chart shown twice is drawn once). */
  job: number;
  /** `v-wide` or `v-narrow`: which screens show it. */
  variant: string;
  height: number;
  /** The drawing's own ids (clip paths, gradients) become `${idBase}-1`, `${idBase}-2`, … */
  idBase: string;
  /** The JSON pointer of the block the drawing belongs to, for reporting a drawing that failed. */
  path: string;
}

/** Drawings a laid-out page waits for. Plain data, so it can travel between threads. */
export interface ChartPlan {
  nonce: string;
  jobs: ChartJob[];
  slots: ChartSlot[];
}

/**
 * Which widths a page carries drawings for, where a chart has two (see blocks-charts.ts): `both`, or
 * only the one the visitor's screen shows (`wide` for laptops, `narrow` for phones). The other width is
 * left as a placeholder that the client script fills from the page with both, should the window cross
 * over to it: a page is drawn in about two thirds of the time and is a third lighter.
 */
export type ChartWidths = 'both' | 'wide' | 'narrow';

export function chartError(reason: string, variant: string, height: number): string {
  return `<div class="chart-error ${variant}" style="height:${height}px"><p>This chart could not be drawn: ${escapeHtml(reason.slice(0, 300))}</p></div>`;
}

export class ChartSlots {
  private readonly nonce = randomBytes(9).toString('base64url');
  private readonly jobs: ChartJob[] = [];
  private readonly jobIndex = new Map<string, number>();
  private readonly slots: ChartSlot[] = [];

  constructor(private readonly mintIdBase: () => string) {}

  /** The marker to put where the drawing goes. */
  place(job: ChartJob, variant: string, height: number, path: string): string {
    let index = this.jobIndex.get(job.key);
    if (index === undefined) {
      index = this.jobs.push(job) - 1;
      this.jobIndex.set(job.key, index);
    }
    const slot = this.slots.push({ job: index, variant, height, idBase: this.mintIdBase(), path }) - 1;
    return `<!--svc-chart ${this.nonce} ${slot}-->`;
  }

  /**
   * A drawing left out of this page (see ChartWidths). It still takes its ids, so that every drawing
   * has the same ids here as on the page with both widths, from which the client script brings it.
   */
  leaveOut(variant: string): string {
    this.mintIdBase();
    return `<div class="chart-svg ${variant}" data-pending></div>`;
  }

  get plan(): ChartPlan {
    return { nonce: this.nonce, jobs: this.jobs, slots: this.slots };
  }
}

const SVG_ID = / id="([^"]+)"/g;
const SVG_ID_OR_REFERENCE = /( id="|url\(#|href="#)([^")]+)/g;

/**
 * ECharts numbers the clip paths, gradients and filters of a drawing per process (`zr3-c0`). On the
 * page they get ids minted for it, so neither a spec's id nor a second drawing of one cached chart
 * can take their place.
 */
function withPageIds(svg: string, idBase: string): string {
  const ids = new Map<string, string>();
  for (const match of svg.matchAll(SVG_ID)) ids.set(match[1] ?? '', `${idBase}-${ids.size + 1}`);
  if (ids.size === 0) return svg;
  return svg.replace(SVG_ID_OR_REFERENCE, (whole: string, lead: string, id: string) => {
    const fresh = ids.get(id);
    return fresh === undefined ? whole : `${lead}${fresh}`;
  });
}

function slotHtml(slot: ChartSlot, drawing: ChartRender | undefined): string {
  if (drawing === undefined) return chartError('it was not drawn', slot.variant, slot.height);
  if (!drawing.ok) return chartError(drawing.reason, slot.variant, slot.height);
  return `<div class="chart-svg ${slot.variant}">${withPageIds(drawing.svg, slot.idBase)}</div>`;
}

/** The page with each marker replaced by its drawing (`drawings` follows the plan's jobs). */
export function fillCharts(html: string, plan: ChartPlan, drawings: readonly ChartRender[]): string {
  if (plan.slots.length === 0) return html;
  const marker = new RegExp(`<!--svc-chart ${plan.nonce} (\\d+)-->`, 'g');
  return html.replace(marker, (whole: string, index: string) => {
    const slot = plan.slots[Number(index)];
    return slot ? slotHtml(slot, drawings[slot.job]) : whole;
  });
}

const VARIANT_WIDTHS: Record<string, string> = { 'v-wide': 'laptop', 'v-narrow': 'phone' };

/**
 * The charts whose drawing failed, one entry per block and reason: `This chart could not be drawn at
 * laptop and phone widths: xAxis "0" not found`, at the block's JSON pointer.
 */
export function drawingProblems(plan: ChartPlan, drawings: readonly ChartRender[]): Issue[] {
  const failures = new Map<string, { path: string; reason: string; widths: string[] }>();
  for (const slot of plan.slots) {
    const drawing = drawings[slot.job];
    const reason = drawing === undefined ? 'it was not drawn' : drawing.ok ? null : drawing.reason;
    if (reason === null) continue;
    const key = `${slot.path}\u0000${reason}`;
    const failure = failures.get(key) ?? { path: slot.path, reason, widths: [] };
    failure.widths.push(VARIANT_WIDTHS[slot.variant] ?? slot.variant);
    failures.set(key, failure);
  }
  return [...failures.values()].map(({ path, reason, widths }) => ({
    path,
    message: `This chart could not be drawn at ${widths.join(' and ')} ${widths.length === 1 ? 'width' : 'widths'}: ${reason.replace(/\.$/, '')}.`,
  }));
}

/** How many blocks on the page are drawn as charts. */
export function chartBlockCount(plan: ChartPlan): number {
  return new Set(plan.slots.map((slot) => slot.path)).size;
}
