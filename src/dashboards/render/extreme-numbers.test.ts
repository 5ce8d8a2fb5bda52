/** Blocks with the largest, smallest and signed-zero numbers JSON can carry: short, finite, escaped text. */
import { describe, expect, it } from 'vitest';
import type { Block } from '../spec-schema.js';
import { compactNumber } from './chart-options.js';
import { renderDashboard } from './render-dashboard.js';
import { renderSparkline } from './sparkline.js';

function renderBlocks(blocks: Block[]): string {
  return renderDashboard({ slug: 'numbers', title: 'Numbers', sections: [{ blocks }] }, { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' }).html;
}

describe('extreme numbers', () => {
  it('shows a stat of 5e-324 with an exponent and -0 as 0', () => {
    const html = renderBlocks([
      { type: 'stat', label: 'Tiny', value: 5e-324 },
      { type: 'stat', label: 'Signed zero', value: -0, delta: { value: -0, direction: 'flat' } },
    ]);
    expect(html).toContain('<span class="stat-value" data-fit style="--chars:9">4.94E-324</span>');
    expect(html).toContain('<span class="stat-value" data-fit style="--chars:1">0</span>');
    expect(html).toContain('<span class="sr-only">unchanged</span> 0</span>');
  });

  it('shows a progress value of -1e308 as a finite percentage', () => {
    const html = renderBlocks([{ type: 'progressList', items: [{ label: 'Far below', value: -1e308 }] }]);
    expect(html).toContain('<span class="prog-value">-1E310%</span>');
    expect(html).toContain('<span style="width:0%"></span>');
  });

  it('draws a sparkline from 1e308 to -1e308', () => {
    expect(renderSparkline([1e308, -1e308], 'trend')).toContain('<polyline class="spark-line" points="2,2 98,26"');
    const html = renderBlocks([{ type: 'stat', label: 'Swing', value: 1, spark: [1e308, -1e308] }]);
    expect(html).not.toContain('NaN');
    expect(html).toContain('aria-label="Trend of 2 values from 1E308 to -1E308, low -1E308, high 1E308"');
  });

  it('labels heatmap cells and chart axes of 1e308 with an exponent', () => {
    expect(compactNumber(1e308)).toBe('1E308');
    expect(compactNumber(-2.5e12)).toBe('-2.5T');
    expect(compactNumber(12_345)).toBe('12.3k');
    const html = renderBlocks([{ type: 'heatmap', xLabels: ['a', 'b'], yLabels: ['c'], values: [[1, 1e308]] }]);
    const texts = [...html.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);
    expect(texts).toEqual(expect.arrayContaining(['1', '1E308']));
    expect(html).toContain('<span>1E308</span></div>');
    expect(html).not.toMatch(/\de[+-]\d+B/);
  });

  it('escapes the "<1%" of a thin segment, and shares segments of 1e308 without overflowing', () => {
    const html = renderBlocks([
      { type: 'segments', segments: [{ label: 'Most', value: 1000 }, { label: 'Sliver', value: 1 }] },
      { type: 'segments', segments: [{ label: 'Half', value: 1e308 }, { label: 'Other half', value: 1e308 }] },
    ]);
    expect(html).toContain('<span class="seg-pct">&lt;1%</span>');
    expect(html).not.toContain('<1%');
    expect(html.match(/<span class="seg-pct">50%<\/span>/g)).toHaveLength(2);
    expect(html).toContain('style="width:50%;--t:var(--series-1)"');
  });
});
