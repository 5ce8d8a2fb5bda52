import { describe, expect, it } from 'vitest';
import { highlightToHtml, renderCodeLines, splitHighlightedLines } from './code-highlight.js';

describe('code highlighting', () => {
  it('highlights known languages and escapes everything else', () => {
    const yaml = highlightToHtml('retry:\n  attempts: 3\n', 'yaml');
    expect(yaml.language).toBe('YAML');
    expect(yaml.html).toContain('<span class="hljs-attr">retry:</span>');
    const unknown = highlightToHtml('<script>alert(1)</script>', 'no-such-language');
    expect(unknown).toEqual({ html: '&lt;script&gt;alert(1)&lt;/script&gt;', language: null });
    expect(highlightToHtml('</script><script>alert(1)</script>', 'html').html).not.toContain('<script');
  });

  it('splits highlighted HTML into balanced lines', () => {
    const lines = splitHighlightedLines('<span class="a">one\ntwo<span class="b">x\ny</span></span>\nthree');
    expect(lines).toEqual(['<span class="a">one</span>', '<span class="a">two<span class="b">x</span></span>', '<span class="a"><span class="b">y</span></span>', 'three']);
  });

  it('numbers and marks lines', () => {
    const html = renderCodeLines('a\nb\nc\n', { lineNumbers: true, highlight: new Set([2]) });
    expect(html.match(/class="line/g)).toHaveLength(3);
    expect(html).toContain('<span class="line hl"><span class="ln" data-n="2"></span><span class="lc">b</span></span>');
  });
});
