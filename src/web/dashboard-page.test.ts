/**
 * Whole dashboard pages rendered from spec text, as a render thread does: what reaches the browser
 * (HTML and Content-Security-Policy) for documents that are valid but extreme.
 */
import { describe, expect, it } from 'vitest';
import type { Block } from '../dashboards/spec-schema.js';
import { renderDashboardPage } from './dashboard-page.js';

const META = { version: 1, updatedAt: '2024-05-03T09:00:00.000Z', view: 'screen' as const };

function renderBlocks(blocks: Block[]): { html: string; csp: string } {
  return renderDashboardPage(JSON.stringify({ slug: 'extreme', title: 'Extreme', sections: [{ blocks }] }), META);
}

/** The text of the chart figure's summary paragraph (what a screen reader announces). */
function chartSummaries(html: string): string[] {
  return [...html.matchAll(/<p class="sr-only" id="[^"]+">([^<]*)<\/p>/g)].map((match) => match[1] ?? '');
}

describe('dashboard pages with spec-sized arrays', () => {
  it('renders charts whose series hold 1.5 million numbers', () => {
    const data = Array.from({ length: 1_500_000 }, (_, index) => (index % 1000) - 500);
    const { html } = renderBlocks([
      { type: 'chart', kind: 'line', title: 'Long line', series: [{ name: 'load', data }] },
      { type: 'chart', kind: 'bar', title: 'Long bars', series: [{ name: 'load', data }] },
    ]);
    expect(chartSummaries(html)).toEqual([
      'Line chart of 1 series. load: from -500 to 499, low -500, high 499.',
      'Bar chart of 1 series. load: from -500 to 499, low -500, high 499.',
    ]);
    // Drawn, thinned to what the width can show, and without a million-row data table.
    expect(html.match(/<div class="chart-svg v-wide"><svg/g)).toHaveLength(2);
    expect(html).not.toContain('could not be drawn');
    expect(html).not.toContain('<details class="chart-data">');
    expect(html.length).toBeLessThan(2_000_000);
  });

  it('draws a pie of 1.5 million values as its largest slices and "Other", and says why it does not draw a scatter of as many', () => {
    const data = Array.from({ length: 1_500_000 }, (_, index) => (index % 1000) + 1);
    const { html } = renderBlocks([
      { type: 'chart', kind: 'pie', series: [{ name: 'load', data }] },
      { type: 'chart', kind: 'scatter', series: [{ name: 'load', data }] },
    ]);
    expect(html).toContain('>Other (1,499,977)  100%</text>');
    expect(html).toContain('<p>This chart could not be drawn: it would plot 1,500,000 values, and a chart plots at most 20,000</p>');
  });

  it('renders a chart with 200,000 series', () => {
    const series = Array.from({ length: 200_000 }, (_, index) => ({ name: `s${index}`, data: [index] }));
    const { html } = renderBlocks([{ type: 'chart', kind: 'pie', series }]);
    expect(chartSummaries(html)).toEqual(['Pie chart of s0: Item 1 0.']);
    expect(html).not.toContain('<details class="chart-data">');
  });
});
