import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inlineScriptHashes } from './blocks-media.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('inline scripts of html blocks', () => {
  it('hashes each inline script as the browser reads it, and skips scripts with a src', () => {
    const html = '<p>x</p><script>a()</script><SCRIPT type="module">b()\r\nc()</script ><script src="x.js"></script><script>a()</script>';
    expect(inlineScriptHashes(html)).toEqual([sha256('a()'), sha256('b()\nc()'), sha256('a()')]);
  });

  it('finds nothing after a script that is never closed, however many follow', () => {
    expect(inlineScriptHashes('<script>a()</script><script>b()')).toEqual([sha256('a()')]);
    expect(inlineScriptHashes('<script>'.repeat(25_000))).toEqual([]);
    expect(inlineScriptHashes('<script '.repeat(25_000))).toEqual([]);
  });
});
