import { describe, expect, it } from 'vitest';
import { mergeOption } from './merge-option.js';

describe('mergeOption', () => {
  it('merges objects key by key and arrays element by element, like ECharts', () => {
    const base = { grid: { left: 4, top: 10 }, series: [{ type: 'line', name: 'a' }, { type: 'bar', name: 'b' }], color: ['#1', '#2'] };
    const merged = mergeOption(base, { grid: { left: 40 }, series: [{ smooth: true }], color: ['#9'] });
    expect(merged).toEqual({
      grid: { left: 40, top: 10 },
      series: [{ type: 'line', name: 'a', smooth: true }, { type: 'bar', name: 'b' }],
      color: ['#9', '#2'],
    });
    expect(base.grid.left).toBe(4);
  });

  it('skips keys that reach prototypes', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "title": {"__proto__": {"x": 1}, "text": "ok"}}') as Record<string, unknown>;
    const merged = mergeOption({ title: { left: 'center' } }, hostile);
    expect(merged).toEqual({ title: { left: 'center', text: 'ok' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });

  it('copies new subtrees without their forbidden keys and bounds the depth', () => {
    const merged = mergeOption({}, JSON.parse('{"legend": {"prototype": 1, "show": true}}') as Record<string, unknown>);
    expect(merged).toEqual({ legend: { show: true } });
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 100; level += 1) deep = { next: deep };
    expect(() => mergeOption({}, deep)).not.toThrow();
  });
});
