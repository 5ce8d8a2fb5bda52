import { describe, expect, it } from 'vitest';
import { escapeAttr, escapeHtml, escapeScalar, formatNumber, formatPercent, safeUrl } from './escape.js';

describe('escaping', () => {
  it('escapes the five HTML specials in text and attributes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(escapeAttr('"><img src=x onerror=alert(1)>')).toBe('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeHtml('plain text')).toBe('plain text');
  });

  it('isolates text that carries bidi overrides', () => {
    expect(escapeHtml('\u202Egnp.exe')).toBe('<bdi>\u202Egnp.exe</bdi>');
    expect(escapeHtml('\u2067x<y\u2069')).toBe('<bdi>\u2067x&lt;y\u2069</bdi>');
  });

  it('formats numbers with separators and keeps strings as written', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(0.12345)).toBe('0.123');
    expect(formatNumber(12.3456)).toBe('12.35');
    expect(escapeScalar('1,204 <b>')).toBe('1,204 &lt;b&gt;');
    expect(escapeScalar(null)).toBe('');
  });

  it('writes extreme magnitudes with an exponent, and zero without a sign', () => {
    expect(formatNumber(5e-324)).toBe('4.94E-324');
    expect(formatNumber(-1.5e-7)).toBe('-1.5E-7');
    expect(formatNumber(0.000001)).toBe('0.000001');
    expect(formatNumber(999_999_999_999_999)).toBe('999,999,999,999,999');
    expect(formatNumber(1e15)).toBe('1E15');
    expect(formatNumber(1e308)).toBe('1E308');
    expect(formatNumber(-1.7976931348623157e308)).toBe('-1.8E308');
    expect(formatNumber(-0)).toBe('0');
    expect(escapeScalar(-0)).toBe('0');
  });

  it('writes percentages of any finite ratio', () => {
    expect(formatPercent(0.974)).toBe('97%');
    expect(formatPercent(-0.001)).toBe('0%');
    expect(formatPercent(-1e308)).toBe('-1E310%');
    expect(formatPercent(1e13)).toBe('1E15%');
  });
});

describe('safeUrl', () => {
  it.each(['https://example.com/a?b=c#d', 'http://example.com', 'mailto:ops@example.com', '/d/weekly', 'relative/path', '#section', '?q=1', 'HTTPS://EXAMPLE.COM'])(
    'keeps %s',
    (url) => {
      expect(safeUrl(url)).not.toBeNull();
    },
  );

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    '\u0001javascript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'file:///etc/passwd',
    'ftp://example.com',
    '',
  ])('refuses %j', (url) => {
    expect(safeUrl(url)).toBeNull();
  });
});
