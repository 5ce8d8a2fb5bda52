/**
 * Apache ECharts rendered to an SVG string on the server (no DOM, no client script). One chart instance
 * per render, disposed at once: instances hold state that must not leak between dashboards.
 */
// The single-file bundle rather than the package's module tree: it loads in about 100 ms instead of
// 800–1,000 (one file instead of hundreds of modules) and draws the same SVG byte for byte, faster, since
// its development checks do not read process.env. It keeps those checks, unlike the minified production
// bundle, so a broken `option` is explained ('xAxis "0" not found', not 'Cannot read properties of
// undefined'): the chart's box shows that text to whoever published it.
import * as echarts from 'echarts/dist/echarts.esm';
import { checkSvg } from './svg-guard.js';

export interface ChartSize {
  width: number;
  height: number;
}

export type ChartRender = { ok: true; svg: string } | { ok: false; reason: string };

/** Attributes that only serve ECharts' own client-side interaction; dropped to keep pages small. */
const INTERACTION_ATTRIBUTES = / (?:ecmeta_[a-z_]+|pointer-events|class)="[^"]*"/g;
/** The hover rules ECharts emits for its client runtime, which a static page never loads. */
const HOVER_STYLE = /<style\s*>[\s\S]*?<\/style>/g;
/** An `href` on an SVG element (ECharts' graphic images): kept only for data images and http(s). */
const SVG_HREF = / (?:xlink:)?href="([^"]*)"/g;

function keepSafeHref(match: string, url: string): string {
  return /^(?:data:image\/(?:png|gif|jpeg|webp);|https?:\/\/)/i.test(url) ? match : '';
}

function tidy(svg: string): string {
  return svg
    .replace(HOVER_STYLE, '')
    .replace(INTERACTION_ATTRIBUTES, '')
    .replace(SVG_HREF, keepSafeHref)
    .replace(/^<svg width="\d+" height="\d+"/, '<svg aria-hidden="true" focusable="false" preserveAspectRatio="xMidYMid meet"');
}

/**
 * A drawing holds at most this much SVG. A small `option` can still ask for far more (thousands of
 * labels each repeating a long text), and a page made of such drawings would not fit in a string.
 */
export const MAX_SVG_CHARACTERS = 8 * 1024 * 1024;

function megabytes(characters: number): string {
  return `${Math.ceil(characters / (1024 * 1024))} MB`;
}

/** How wide ECharts lays `text` out in `font` (it has no font on the server: Arial's widths). */
export function textWidth(text: string, font: string): number {
  return echarts.format.getTextRect(text, font).width;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
const silent = (): void => undefined;

/**
 * Runs a drawing with the console muted. ECharts' development checks print what they think of an option
 * ("Custom series renderItem 'x' not found") on the console: text a publisher chooses, which must not
 * reach the server's output wherever a chart is drawn (the request thread when SVC_RENDER_THREADS is 0,
 * tests). What matters of it reaches the page as the error ECharts throws. Drawing is synchronous, so
 * nothing else runs while the console is muted.
 */
function withConsoleMuted<T>(draw: () => T): T {
  const saved = CONSOLE_METHODS.map((method) => console[method]);
  for (const method of CONSOLE_METHODS) console[method] = silent;
  try {
    return draw();
  } finally {
    CONSOLE_METHODS.forEach((method, i) => {
      console[method] = saved[i] ?? silent;
    });
  }
}

export function renderEChartsSvg(option: Record<string, unknown>, size: ChartSize): ChartRender {
  return withConsoleMuted(() => drawSvg(option, size));
}

function drawSvg(option: Record<string, unknown>, size: ChartSize): ChartRender {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption(option);
    const drawn = chart.renderToSVGString();
    if (drawn.length > MAX_SVG_CHARACTERS) {
      return {
        ok: false,
        reason: `its drawing came to ${megabytes(drawn.length)} of SVG, and a chart may be at most ${megabytes(MAX_SVG_CHARACTERS)}; its option asks for too many points, labels or too much text`,
      };
    }
    const svg = tidy(drawn);
    const verdict = checkSvg(svg);
    return verdict.ok ? { ok: true, svg } : { ok: false, reason: `its option produced unsafe SVG (${verdict.reason})` };
  } catch (error) {
    // A hand-written `option` can be something ECharts refuses; the rest of the page still renders.
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    chart.dispose();
  }
}
