/**
 * Dashboard pages over real HTTP for documents that are valid but extreme: what the server answers
 * and what reaches the browser (status, headers, HTML).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
});

async function publishAndGet(spec: { slug: string; [field: string]: unknown }): Promise<{ status: number; headers: Headers; text: string }> {
  const published = await svc.request('POST', '/api/dashboards', { body: spec });
  expect(published.status).toBe(201);
  const response = await fetch(`${svc.url}/d/${spec.slug}`, { headers: { authorization: `Bearer ${svc.adminToken}` } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

describe(`extreme dashboards over HTTP on ${testDialect}`, () => {
  it('keeps the Content-Security-Policy small when html blocks hold thousands of scripts, and says which did not run', async () => {
    const scripts = Array.from({ length: 9000 }, (_, index) => `<script>${index}</script>`).join('');
    const repeated = '<script>same()</script>'.repeat(500);
    const response = await publishAndGet({
      slug: 'many-scripts',
      title: 'Many scripts',
      sections: [{ blocks: [{ type: 'html', html: repeated }, { type: 'html', html: scripts }, { type: 'html', html: '<script>9000</script><script>0</script>' }] }],
    });
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp.length).toBeLessThan(4500);
    const hashes = csp.match(/'sha256-[^']+'/g) ?? [];
    // The theme bootstrap, `same()` once for its 500 copies, and the first 63 of the numbered scripts.
    expect(hashes).toHaveLength(65);
    expect(new Set(hashes).size).toBe(65);
    expect(hashes).toEqual(expect.arrayContaining([sha256('same()'), sha256('0'), sha256('62')]));
    expect(hashes).not.toContain(sha256('63'));
    const notes = [...response.text.matchAll(/<p class="html-note">([^<]*)<\/p>/g)].map((match) => match[1]);
    expect(notes).toEqual([
      '8,937 scripts of this block did not run: a page runs at most 64 different inline scripts.',
      '1 script of this block did not run: a page runs at most 64 different inline scripts.',
    ]);
  });
});
