import { describe, expect, it } from 'vitest';
import { validBlocks } from '../fixtures/valid-blocks.js';
import { BLOCK_KINDS, type Block, type ChartBlock, type DashboardSpec, type Section } from '../spec-schema.js';
import { renderDashboard } from './render-dashboard.js';

const META = { version: 3, updatedAt: '2024-05-03T09:00:00.000Z' };

function render(spec: Partial<DashboardSpec> & { sections?: Section[] }): string {
  return renderDashboard({ slug: 'test', title: 'Test dashboard', ...spec }, META).html;
}

function renderBlock(block: Block): string {
  return render({ sections: [{ blocks: [block] }] });
}

/** The frame of the one block on the page: its opening tag. */
function frameTag(html: string, kind: string): string {
  const match = new RegExp(`<div class="blk k-${kind}[^>]*>`).exec(html);
  if (!match) throw new Error(`no ${kind} block in the page`);
  return match[0];
}

const expectations: { [Kind in Block['type']]: string[] } = {
  banner: ['Release 4.2 is ready to ship', 'the rollout starts Monday', 'class="banner t-positive"', '<dt>Owner</dt><dd>release-bot</dd>', '<dd>4,182</dd>'],
  stat: ['Build health', 'Last 30 days', 'Passing builds', '97.4%', 'of 1,284 runs', 'd-up t-positive', '+1.2 pts', 'width:97.4%', '<svg class="spark"'],
  stats: ['--stat-cols:4', 'Open CRs', '4h 12m', 'business hours', 'class="stat only-screen" id="cost"', 'align-self:start', 'd-down t-positive'],
  bignumber: ['99.98%', 'API availability this quarter', 'Target 99.95%', 'bignum t-positive'],
  gauge: ['role="img"', 'aria-label="Test coverage (gauge)"', 'Test coverage: 72% on a scale from 0% to 100%', '<svg'],
  segments: ['width:82.1%', '151', 'change requests this month', 'Merged', '82%', 'aria-label="Merged 124 (82%), Open 18 (12%), Closed 9 (6%)"'],
  progressList: ['Migrate storage', '8 of 10', 'aria-valuenow="8"', 'width:80%', '3 / 12', 'Docs', '40%', 'prog t-warning'],
  scorecard: ['B+', 'Security posture', 'Two medium findings remain open.', '×2', 'Two repositories allow force pushes.', 'crit t-warning', '<span class="crit-max"> / 10</span>'],
  chart: ['aria-label="Sessions per day (line chart)"', 'Line chart of 2 series over 7 categories, Mon to Sun', 'Started', '<details class="chart-data">', '<th scope="row">Wed</th><td class="r">101 sessions</td><td class="r">no value</td>'],
  heatmap: ['aria-label="Heatmap"', 'Heatmap of 3 rows by 4 columns; values from 0 runs to 12 runs, highest at Tue, 12h', 'heat-scale'],
  statusMatrix: ['<abbr title="Linux">LNX</abbr>', 'Integration tests', 'Windows runner is flaky', 'title="timeout in git clone"', 'sm-cell t-danger labelled', 'aria-label="no status"', '<ul class="legend">', 'Failing'],
  comparison: ['Before', 'v4.1', 'After', 'v4.2', 'p95 latency (ms)', '-110', 'delta-pill t-positive', 'New cache', 'aria-label="no value"', '1.2 s'],
  table: [
    'Slowest endpoints',
    'class="tbl striped numbered"',
    'style="width:40%"',
    'class="tbl-scroll capped" style="max-height:600px"',
    'type="search"',
    'Filter 3 rows…',
    '<th class="rn" scope="col">',
    'href="https://example.com/routes/dashboards" rel="noopener noreferrer nofollow"',
    'class="badge t-positive">91</span>',
    'class="cell-bar t-warning"',
    '<svg class="spark"',
    '<tfoot>',
    'All routes',
    '<td class="r num">38</td>',
  ],
  list: ['<ol class="item-list ordered">', 'Upgrade Node to 22', 'Needed for the new test runner.', 'li-meta">infra', 'li t-info'],
  timeline: ['<ol class="timeline">', '2024-05-01 09:00', 'Incident opened', 'Error rate above 5%.', 'tl-event t-danger'],
  fields: ['--field-cols:3', '<dt>Repository</dt><dd>acme/api</dd>', 'field t-info'],
  pills: ['class="pills solid"', 'typescript', '<span class="pill-value">142</span>', 'pill t-danger'],
  people: ['Ada Lovelace', 'Release manager', 'Approves the rollout.', 'src="https://example.com/avatars/ada.png"', '>AL<', 'on call', 'review-agent', 'avatar-initials">RA<', '--people-cols:2'],
  title: ['Weekly report', '<h2 class="headline">Platform health, week 18</h2>', 'review latency is the new bottleneck', 'report-agent', '3 May 2024', 'doc-title t-accent rule', 'ta-left'],
  heading: ['<h2 class="heading-text">Reliability</h2>', 'Section 1', 'heading h-2 t-neutral rule'],
  paragraph: ['class="para lead t-neutral"', 'Builds passed 97.4% of the time'],
  prose: ['<h3>What changed</h3>', '<strong>Faster</strong>', 'href="https://example.com/runbook" rel="noopener noreferrer nofollow"', 'prose size-base'],
  callout: ['callout t-warning', 'Action needed', '<strong>force pushes</strong>', '<code>main</code>', 'callout-icon i-warning'],
  quote: ['<blockquote><p>The retry policy alone removed a third of our red builds.</p></blockquote>', '<cite class="quote-who">Grace Hopper</cite>', 'Build lead', 'Retro, week 18', 'ta-center'],
  code: ['.ci/retry.yaml', '>YAML<', 'The retry policy', 'style="max-height:400px"', 'class="code numbered"', '<span class="line line-marked"><span class="ln" data-n="2">', '<span class="line line-marked"><span class="ln" data-n="3">', 'hljs-attr'],
  steps: ['<ol class="steps" start="1">', 'step s-done', 'aria-current="step"', 'step s-blocked', 'No merges to main.', 'Full rollout'],
  checklist: ['<strong>1 of 2</strong> done', 'width:50%', 'check c-done', 'check c-na', 'Needs a fresh snapshot.', 'check-meta">db'],
  figure: ['src="https://example.com/images/architecture.png"', 'alt="Architecture diagram of the control plane"', 'Figure 1', 'The control plane and one sandbox.', 'Platform team', 'style="height:360px"'],
  links: ['href="https://example.com/runbook"', 'Runbook', 'What to do when builds fail', 'link-source">wiki', 'link t-info', '--link-cols:2', 'link-source">example.com'],
  footnotes: ['<span class="fn-label">1</span>', 'Business hours, Monday to Friday.', '<span class="fn-label">2</span>', 'Excludes weekends.'],
  html: ['<iframe class="html-frame" sandbox="allow-scripts"', 'style="height:160px"', 'title="Custom widget"', 'srcdoc="&lt;!doctype html&gt;&lt;meta name=&quot;color-scheme&quot; content=&quot;light dark&quot;&gt;', '&lt;p style=&quot;font:14px sans-serif&quot;&gt;'],
};

describe('every block kind', () => {
  it('has expectations for all 31 kinds', () => {
    expect(Object.keys(expectations).sort()).toEqual([...BLOCK_KINDS].sort());
  });

  it.each(BLOCK_KINDS)('%s renders its fields', (kind) => {
    const html = renderBlock(validBlocks[kind]);
    for (const expected of expectations[kind]) expect(html).toContain(expected);
    expect(html).toContain(`data-kind="${kind}"`);
  });

  it('never lets an html block reach the page origin', () => {
    const html = renderBlock(validBlocks.html);
    expect(html).not.toContain('allow-same-origin');
    expect(html).not.toContain('<!doctype html><p');
  });
});

describe('charts', () => {
  const kinds: NonNullable<ChartBlock['kind']>[] = ['bar', 'barStacked', 'barHorizontal', 'line', 'area', 'pie', 'donut', 'scatter', 'radar', 'funnel'];

  it.each(kinds)('draws a %s chart as SVG with a phone variant when wide', (kind) => {
    const html = render({ sections: [{ blocks: [{ ...validBlocks.chart, kind, span: 24, option: undefined }] }] });
    expect(html).toContain('<div class="chart-svg v-wide"><svg');
    expect(html).toContain('<div class="chart-svg v-narrow"><svg');
    expect(html).not.toContain('chart-error');
  });

  it('merges the option over the generated one and honours height, legend and unit', () => {
    const html = renderBlock({ ...validBlocks.chart, height: 333, legend: true, unit: 'ms', option: { title: { text: 'Merged title' } } });
    expect(html).toContain('Merged title');
    expect(html).toMatch(/viewBox="0 0 \d+ 333"/);
    expect(html).toContain('>ms</text>');
  });

  it('stacks series when asked', () => {
    const stacked = renderBlock({ ...validBlocks.chart, kind: 'area', stacked: true });
    expect(stacked).toContain(', stacked.');
  });

  it('shows a placeholder instead of markup when an option produces unsafe SVG', () => {
    const html = renderBlock({ ...validBlocks.chart, option: { title: { text: 'x', textStyle: { fontFamily: 'x"><script>alert(1)</script>' } } } });
    expect(html).toContain('This chart could not be drawn: its option produced unsafe SVG');
    expect(html).not.toContain('<script>');
    const colours = renderBlock({ ...validBlocks.chart, option: { series: [{ itemStyle: { color: 'x"><img src=x onerror=alert(1)>' } }] } });
    expect(colours).toContain('This chart could not be drawn');
    expect(colours).not.toMatch(/<img src=x/);
  });
});

describe('placement and sections', () => {
  it('places blocks on the section grid: span, colStart, rowSpan, rowStart, minHeight, align', () => {
    const html = render({
      sections: [{ columns: 12, blocks: [{ ...validBlocks.stat, span: 4, colStart: 3, rowStart: 2, rowSpan: 2, minHeight: 240, align: 'center' }] }],
    });
    const tag = frameTag(html, 'stat');
    expect(tag).toContain('--gc:3 / span 4');
    expect(tag).toContain('--gcm:span 8');
    expect(tag).toContain('--gr:2 / span 2');
    expect(tag).toContain('min-height:240px');
    expect(tag).toContain('align-self:center');
  });

  it('clamps spans to the section and defaults to the full width of 24 columns', () => {
    const html = render({ sections: [{ columns: 6, blocks: [{ ...validBlocks.stat, span: 20 }] }, { blocks: [{ ...validBlocks.list, span: undefined }] }] });
    expect(frameTag(html, 'stat')).toContain('--gc:span 6');
    expect(html).toContain('--cols:24');
    expect(frameTag(html, 'list')).toContain('--gc:span 24');
  });

  it('applies section title, note, columns, rowHeight, gap, align, dense, hidden and only', () => {
    const html = render({
      sections: [
        { id: 'ops', title: 'Operations', note: 'Updated hourly', columns: 8, rowHeight: 120, gap: 'lg', align: 'end', dense: true, only: 'print', blocks: [validBlocks.stat] },
        { title: 'Secret section', hidden: true, blocks: [validBlocks.stat] },
      ],
    });
    expect(html).toContain('<section class="sec only-print" id="ops"');
    expect(html).toContain('<h2 class="sec-title"');
    expect(html).toContain('Updated hourly');
    expect(html).toContain('style="--cols:8;--gap:24px;grid-auto-rows:minmax(120px,auto);align-items:end;grid-auto-flow:row dense"');
    expect(html).not.toContain('Secret section');
  });

  it('leaves hidden blocks out and marks screen-only and print-only blocks', () => {
    const html = render({
      sections: [{ blocks: [{ ...validBlocks.stat, hidden: true, label: 'Hidden figure' }, { ...validBlocks.list, only: 'screen' }, { ...validBlocks.fields, only: 'print' }] }],
    });
    expect(html).not.toContain('Hidden figure');
    expect(frameTag(html, 'list')).toContain('only-screen');
    expect(frameTag(html, 'fields')).toContain('only-print');
  });

  it('lays a report out as a document flow with a contents list', () => {
    const sections: Section[] = ['One', 'Two', 'Three'].map((title, index) => ({ id: `s${index}`, title, blocks: [{ ...validBlocks.paragraph }, { ...validBlocks.chart, span: 8 }] }));
    const html = render({ layout: 'report', sections });
    expect(html).toContain('<article class="dash layout-report" data-version="3">');
    expect(html).toContain('<div class="flow">');
    expect(html).not.toContain('--gc:');
    expect(html).toContain('<nav class="toc only-screen" aria-label="Contents">');
    expect(html).toContain('<a href="#s1">Two</a>');
    expect(html).toContain('viewBox="0 0 722 280"');
    expect(html).toContain('<h2 class="toc-title">Contents</h2><ol><li>');
  });

  it('does not number a contents list again when the section titles carry numbers', () => {
    const sections: Section[] = ['Summary', '1. Reliability', '2. Delivery'].map((title, index) => ({ id: `s${index}`, title, blocks: [{ ...validBlocks.paragraph }] }));
    const html = render({ layout: 'report', sections });
    expect(html).toContain('<h2 class="toc-title">Contents</h2><ol class="self-numbered"><li><a href="#s0">Summary</a></li><li><a href="#s1">1. Reliability</a></li>');
  });
});

describe('blocks with nothing in them', () => {
  it.each([
    ['stats', 'items', 'figures'],
    ['segments', 'segments', 'segments'],
    ['progressList', 'items', 'items'],
    ['scorecard', 'criteria', 'criteria'],
    ['statusMatrix', 'rows', 'rows'],
    ['comparison', 'rows', 'rows'],
    ['list', 'items', 'items'],
    ['timeline', 'events', 'events'],
    ['fields', 'fields', 'fields'],
    ['pills', 'pills', 'pills'],
    ['people', 'people', 'people'],
    ['steps', 'steps', 'steps'],
    ['checklist', 'items', 'items'],
    ['links', 'links', 'links'],
    ['footnotes', 'notes', 'notes'],
    ['heatmap', 'values', 'values'],
  ] as const)('says a %s block lists nothing instead of showing an empty card', (kind, property, noun) => {
    const html = renderBlock({ ...validBlocks[kind], title: 'Empty one', [property]: [] } as Block);
    expect(html).toContain('Empty one');
    expect(html).toContain(`<p class="blk-empty">No ${noun}.</p>`);
  });

  it('keeps the header of a table with no rows and says it has none', () => {
    const html = renderBlock({ ...validBlocks.table, rows: [] } as Block);
    expect(html).toContain('<thead>');
    expect(html).toContain('<p class="blk-empty">No rows.</p>');
  });
});

describe('the header', () => {
  it('shows title, subtitle, tone, group, meta, highlights and the publishing agent', () => {
    const html = render({
      title: 'Weekly',
      subtitle: 'What happened',
      tone: 'warning',
      group: 'Engineering',
      meta: [{ label: 'Week', value: '18', tone: 'info' }],
      highlights: [
        { label: 'Pass rate', value: '97%', tone: 'positive' },
        { label: 'Sessions', value: 2384 },
      ],
      svc: { agent: 'report-agent', sessionId: 'sess-1', projectId: '5f0c6f5e-8f4b-4c1e-9d53-2a6f1b0e7c11', context: 'From CI data.' },
    });
    expect(html).toContain('<header class="dash-head t-warning">');
    expect(html).toContain('<h1 class="dash-title">Weekly</h1>');
    expect(html).toContain('What happened');
    expect(html).toContain('Engineering');
    expect(html).toContain('<div class="meta-item t-info"><dt>Week</dt><dd>18</dd></div>');
    expect(html).toContain('<div class="hl-value" data-fit style="--chars:5">2,384</div>');
    expect(html).toContain('hl t-positive');
    expect(html).toContain('Published by <strong>report-agent</strong>');
    expect(html).toContain('From CI data.');
    expect(html).toContain('datetime="2024-05-03T09:00:00.000Z"');
    expect(html).toContain('Version 3');
  });
});
