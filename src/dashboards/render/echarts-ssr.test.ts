import { afterEach, describe, expect, it } from 'vitest';
import { renderEChartsSvg } from './echarts-ssr.js';

const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
const originals = METHODS.map((method) => console[method]);
afterEach(() => {
  METHODS.forEach((method, i) => {
    console[method] = originals[i] ?? console[method];
  });
});

describe('renderEChartsSvg', () => {
  it('keeps what ECharts prints about an option off the console, and still says why the chart failed', () => {
    const printed: string[] = [];
    for (const method of METHODS) console[method] = (...args: unknown[]) => printed.push(args.map(String).join(' '));
    const result = renderEChartsSvg({ xAxis: { type: 'category' }, yAxis: {}, series: [{ type: 'custom', renderItem: 'x', data: [1, 2] }] }, { width: 400, height: 200 });
    expect(result).toEqual({ ok: false, reason: 'renderItem is not a function' });
    expect(printed).toEqual([]);
    // The console is the caller's again afterwards.
    console.warn('after');
    expect(printed).toEqual(['after']);
  });
});
