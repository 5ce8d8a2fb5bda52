/**
 * A dry run of publishing: the spec is validated as a publish would, then its page is laid out and its
 * charts drawn, and whatever the page would show differently from the spec is reported by JSON pointer
 * (an `option` ECharts refuses, a chart with too much to draw, an html block's script that cannot run).
 * Nothing is stored. An agent finds out before publishing, instead of from a broken chart on the page.
 */
import type { ActorContext } from '../context.js';
import type { Issue } from '../errors.js';
import { requirePublish } from './access.js';
import { requireValidSpec } from './require-valid-spec.js';

export interface DrawingCheck {
  /** Blocks drawn as charts (chart, heatmap, gauge), failed or not. */
  charts: number;
  /** In page order, at most MAX_ISSUES. */
  problems: Issue[];
  /** How many problems there are in all. */
  total: number;
}

/**
 * Lays a valid spec's page out and draws its charts (the page renderer, on its render threads), reusing
 * drawings only within `cacheScope` (the account).
 */
export interface DashboardDrawer {
  /** `signal` aborts when nobody waits for the check any more: its drawings are dropped or stopped. */
  checkDrawings(specText: string, cacheScope: string, signal?: AbortSignal): Promise<DrawingCheck>;
}

export interface CheckResult extends DrawingCheck {
  slug: string;
}

export async function checkDashboard(ctx: ActorContext, body: Buffer, drawer: DashboardDrawer, signal?: AbortSignal): Promise<CheckResult> {
  // The same right as publishing: the check is its first half, and drawing costs the server CPU.
  requirePublish(ctx, 'check dashboards');
  const spec = await requireValidSpec(ctx, body, 'check');
  const drawn = await drawer.checkDrawings(spec.text, ctx.actor.accountId, signal);
  return { slug: spec.slug, charts: drawn.charts, problems: drawn.problems, total: drawn.total };
}
