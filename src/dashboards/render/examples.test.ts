import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_KINDS, type DashboardSpec } from '../spec-schema.js';
import { validateDashboardSpec } from '../validate-spec.js';
import { renderDashboard } from './render-dashboard.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples/dashboards');
const files = fs.readdirSync(EXAMPLES).filter((name) => name.endsWith('.json'));

function load(name: string): DashboardSpec {
  return JSON.parse(fs.readFileSync(path.join(EXAMPLES, name), 'utf8')) as DashboardSpec;
}

describe('examples/dashboards', () => {
  it.each(files)('%s is a valid spec that renders without a broken chart', (name) => {
    const result = validateDashboardSpec(load(name));
    expect(result.ok ? [] : result.issues).toEqual([]);
    const html = renderDashboard(load(name), { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' }).html;
    expect(html).not.toContain('chart-error');
  });

  it('has a gallery that uses every block kind and every chart kind', () => {
    const gallery = load('engineering-health.json');
    const blocks = (gallery.sections ?? []).flatMap((section) => section.blocks ?? []);
    expect(new Set(blocks.map((block) => block.type))).toEqual(new Set(BLOCK_KINDS));
    const chartKinds = new Set(blocks.flatMap((block) => (block.type === 'chart' ? [block.kind] : [])));
    expect([...chartKinds].sort()).toEqual(['area', 'bar', 'barHorizontal', 'barStacked', 'donut', 'funnel', 'line', 'pie', 'radar', 'scatter']);
  });

  it('has a long report in the report layout', () => {
    const report = load('q2-platform-review.json');
    expect(report.layout).toBe('report');
    expect((report.sections ?? []).flatMap((section) => section.blocks ?? []).length).toBeGreaterThan(25);
  });
});
