import { describe, expect, it } from 'vitest';
import type { Block } from '../spec-schema.js';
import { HighlightBudget, highlightToHtml, renderCodeLines, splitHighlightedLines } from './code-highlight.js';
import { renderDashboard } from './render-dashboard.js';

function renderBlocks(blocks: Block[]): string {
  return renderDashboard({ slug: 'code', title: 'Code', sections: [{ blocks }] }, { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' }).html;
}

describe('code highlighting', () => {
  it('highlights known languages and escapes everything else', () => {
    const budget = new HighlightBudget();
    const yaml = highlightToHtml('retry:\n  attempts: 3\n', 'yaml', budget);
    expect(yaml.language).toBe('YAML');
    expect(yaml.html).toContain('<span class="hljs-attr">retry:</span>');
    const unknown = highlightToHtml('<script>alert(1)</script>', 'no-such-language', budget);
    expect(unknown).toEqual({ html: '&lt;script&gt;alert(1)&lt;/script&gt;', language: null });
    expect(highlightToHtml('</script><script>alert(1)</script>', 'html', budget).html).not.toContain('<script');
  });

  it('splits highlighted HTML into balanced lines', () => {
    const lines = splitHighlightedLines('<span class="a">one\ntwo<span class="b">x\ny</span></span>\nthree');
    expect(lines).toEqual(['<span class="a">one</span>', '<span class="a">two<span class="b">x</span></span>', '<span class="a"><span class="b">y</span></span>', 'three']);
  });

  it('numbers and marks lines', () => {
    const html = renderCodeLines('a\nb\nc\n', { lineNumbers: true, highlight: new Set([2]) });
    expect(html.match(/class="line/g)).toHaveLength(3);
    expect(html).toContain('<span class="line line-marked"><span class="ln" data-n="2"></span><span class="lc">b</span></span>');
  });
});

describe('bounded highlighting', () => {
  // One identifier: highlight.js takes seconds over it (quadratic), so it is shown as plain text.
  const longLine = `const ${'a'.repeat(19_990)} = 1;<b>`;

  it('shows a code block with a 20,000-character line as plain text, still numbered, marked and wrapped', () => {
    const html = renderBlocks([{ type: 'code', language: 'js', code: `${longLine}\nlet b = 2;`, lineNumbers: true, highlight: [2], wrap: true }]);
    expect(html).not.toContain('hljs-');
    expect(html).toContain('<pre class="code wrap numbered" tabindex="0"><code data-lang="JavaScript">');
    expect(html).toContain(`<span class="line"><span class="ln" data-n="1"></span><span class="lc">const ${'a'.repeat(19_990)} = 1;&lt;b&gt;</span></span>`);
    expect(html).toContain('<span class="line line-marked"><span class="ln" data-n="2"></span><span class="lc">let b = 2;</span></span>');
  });

  it('shows a 40,000-character one-line fence as plain text and still highlights a short one', () => {
    const fence = `${'x'.repeat(40_000)}<b>`;
    const html = renderBlocks([{ type: 'prose', markdown: `\`\`\`js\n${fence}\n\`\`\`\n\n\`\`\`js\nlet b = 2;\n\`\`\`` }]);
    expect(html).toContain(`<pre class="md-code"><code>${'x'.repeat(40_000)}&lt;b&gt;\n</code></pre>`);
    expect(html).toContain('<pre class="md-code"><code><span class="hljs-keyword">let</span> b = <span class="hljs-number">2</span>;\n</code></pre>');
  });

  it('stops highlighting once the page has spent its time', () => {
    const spent = new HighlightBudget(0);
    expect(highlightToHtml('let b = 2;', 'js', spent)).toEqual({ html: 'let b = 2;', language: 'JavaScript' });
    expect(highlightToHtml('let b = 2;', 'js', new HighlightBudget()).html).toContain('hljs-keyword');
  });
});
