import { describe, expect, it } from 'vitest';
import { renderEChartsSvg } from './echarts-ssr.js';
import { checkSvg } from './svg-guard.js';

describe('the SVG guard', () => {
  it('accepts what ECharts draws', () => {
    const result = renderEChartsSvg(
      { animation: false, xAxis: { type: 'category', data: ['a<b', 'c'] }, yAxis: {}, series: [{ type: 'bar', name: '"x"', data: [1, 2] }] },
      { width: 300, height: 200 },
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.svg).toContain('a&lt;b');
  });

  it.each([
    ['a script element', '<svg><script>alert(1)</script></svg>'],
    ['an event handler', '<svg><rect onload="alert(1)"></rect></svg>'],
    ['a javascript link', '<svg><image href="javascript:alert(1)"></image></svg>'],
    ['a broken attribute', '<svg><text style="font-family:x" "><b>hi</b></text></svg>'],
    ['an unquoted attribute', '<svg><rect x=1></rect></svg>'],
    ['a foreign object', '<svg><foreignObject></foreignObject></svg>'],
    ['a stylesheet import', '<svg><rect style="background:url(https://evil.example/x)"></rect></svg>'],
    ['a URL spelled with a character reference', '<svg><text style="font-family:a;fill:u&#114;l(http://evil.example/x)">t</text></svg>'],
    ['a URL spelled with a named reference', '<svg><rect fill="url&lpar;http://evil.example/x)"></rect></svg>'],
  ])('refuses %s', (_name, svg) => {
    expect(checkSvg(svg).ok).toBe(false);
  });

  it('accepts the references ECharts writes when it escapes a value', () => {
    expect(checkSvg('<svg><text style="font-family:&quot;A &amp; B&quot;, &lt;x&gt;, &#39;y&#39;">t</text></svg>')).toEqual({ ok: true });
  });

  it('refuses a font family that spells url( with a character reference', () => {
    const result = renderEChartsSvg(
      { animation: false, title: { text: 'T', textStyle: { fontFamily: 'a;fill:u&#114;l(http://127.0.0.1:8299/css-fill)' } } },
      { width: 300, height: 200 },
    );
    expect(result).toEqual({ ok: false, reason: 'its option produced unsafe SVG (a character reference in an attribute (style))' });
  });

  it('turns a hostile option into a refusal instead of markup', () => {
    const result = renderEChartsSvg(
      {
        animation: false,
        textStyle: { fontFamily: 'x"><script>alert(1)</script>' },
        xAxis: { type: 'category', data: ['a'] },
        yAxis: {},
        series: [{ type: 'bar', data: [1], itemStyle: { color: 'red" onload="alert(1)' } }],
      },
      { width: 300, height: 200 },
    );
    expect(result.ok).toBe(false);
  });
});
