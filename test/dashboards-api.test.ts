import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLargeTableSpec, buildTypicalSpec } from '../src/dashboards/fixtures/specs.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
});

/** Returns once the clock has moved to a later millisecond, so the next publish is stamped later than the last. */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setImmediate(resolve));
}

const spec = (slug: string, extra: Record<string, unknown> = {}) => ({ slug, title: `Dashboard ${slug}`, ...extra });

describe(`dashboard publishing API on ${testDialect}`, () => {
  it('creates with 201, replaces with 200 and keeps every version', async () => {
    const created = await svc.request('POST', '/api/dashboards', { body: spec('weekly', { subtitle: 'first' }) });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      slug: 'weekly',
      version: 1,
      url: `${svc.url}/d/weekly`,
      created: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: created.body.created_at,
    });
    expect(created.headers.get('etag')).toBe(`"1.${Date.parse(created.body.updated_at).toString(36)}"`);

    const replaced = await svc.request('POST', '/api/dashboards', { body: spec('weekly', { subtitle: 'second' }) });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ slug: 'weekly', version: 2, created: false, created_at: created.body.created_at });

    const current = await svc.request('GET', '/api/dashboards/weekly');
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ slug: 'weekly', version: 2, spec: spec('weekly', { subtitle: 'second' }), url: `${svc.url}/d/weekly` });

    const versions = await svc.request('GET', '/api/dashboards/weekly/versions');
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const first = await svc.request('GET', '/api/dashboards/weekly/versions/1');
    expect(first.body).toMatchObject({ version: 1, spec: { subtitle: 'first' }, url: `${svc.url}/d/weekly/versions/1` });
    expect((await svc.request('GET', '/api/dashboards/weekly/versions/9')).status).toBe(404);
    expect((await svc.request('GET', '/api/dashboards/weekly/versions/zero')).status).toBe(400);
    expect((await svc.request('GET', '/api/dashboards/weekly/versions/99999999999')).body).toEqual({
      code: 'BAD_REQUEST',
      error: 'The version must be an integer from 1 to 999999999 (got "99999999999").',
    });
    const longSlug = 'a'.repeat(600);
    expect((await svc.request('GET', `/api/dashboards/${longSlug}`)).body).toEqual({
      code: 'BAD_REQUEST',
      error: 'A part of the URL is longer than 500 characters, longer than any slug, id or name in svc; check the URL.',
    });
    const longPage = await svc.request('GET', `/d/${longSlug}`);
    expect(longPage.status).toBe(400);
    expect(longPage.headers.get('content-type')).toMatch(/^text\/html/);
    expect(longPage.text).toContain('A part of the URL is longer than 500 characters');

    const notModified = await svc.request('GET', '/api/dashboards/weekly', { headers: { 'if-none-match': current.headers.get('etag') ?? '' } });
    expect(notModified.status).toBe(304);
    expect(current.headers.get('etag')).toBe(replaced.headers.get('etag'));
  });

  it('stores the document exactly as sent', async () => {
    const text = '{\n  "slug": "verbatim",\n  "title": "Ünïcode ✓ \\u2603"\n}';
    expect((await svc.request('POST', '/api/dashboards', { rawBody: text, headers: { 'content-type': 'application/json' } })).status).toBe(201);
    const read = await svc.request('GET', '/api/dashboards/verbatim');
    expect(read.body.spec.title).toBe('Ünïcode ✓ ☃');
  });

  it('lets no shared cache keep an answer, and no browser sniff one as a page', async () => {
    await svc.request('POST', '/api/dashboards', { body: spec('cached') });
    const read = await svc.request('GET', '/api/dashboards/cached');
    expect(read.headers.get('cache-control')).toBe('private, no-cache');
    expect(read.headers.get('vary')).toContain('Authorization');
    for (const route of ['/api/dashboards', '/api/dashboards/cached/versions', '/api/dashboards/%3Cb%3Emissing%3C%2Fb%3E', '/v1/projects']) {
      const response = await svc.request('GET', route);
      expect(response.headers.get('cache-control'), route).toBe('no-store');
      expect(response.headers.get('x-content-type-options'), route).toBe('nosniff');
    }
  });

  it('tags each version by when it was published, so a copy read before a delete matches nothing after it', async () => {
    await svc.request('POST', '/api/dashboards', { body: spec('reborn', { subtitle: 'old' }) });
    const before = await svc.request('GET', '/api/dashboards/reborn');
    const etag = before.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"1\.[0-9a-z]+"$/);
    expect((await svc.request('GET', '/api/dashboards/reborn', { headers: { 'if-none-match': etag } })).status).toBe(304);
    for (const listed of [`"0.abc", ${etag}`, `W/${etag}`, '*']) {
      expect((await svc.request('GET', '/api/dashboards/reborn', { headers: { 'if-none-match': listed } })).status, listed).toBe(304);
    }
    expect((await svc.request('GET', '/api/dashboards/reborn/versions/1')).headers.get('etag')).toBe(etag);

    expect((await svc.request('DELETE', '/api/dashboards/reborn')).status).toBe(204);
    await nextMillisecond();
    await svc.request('POST', '/api/dashboards', { body: spec('reborn', { subtitle: 'new' }) });
    const after = await svc.request('GET', '/api/dashboards/reborn', { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ version: 1, spec: { subtitle: 'new' } });
    expect(after.headers.get('etag')).not.toBe(etag);

    // The old tag in If-Match is refused; the new one, or the bare version (contract §3), is taken.
    const stale = await svc.request('POST', '/api/dashboards', { body: spec('reborn', { subtitle: 'lost' }), headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toContain('was deleted since');
    expect((await svc.request('GET', '/api/dashboards/reborn')).body).toMatchObject({ version: 1, spec: { subtitle: 'new' } });
    const current = await svc.request('POST', '/api/dashboards', { body: spec('reborn', { subtitle: 'newer' }), headers: { 'if-match': after.headers.get('etag') ?? '' } });
    expect(current.status).toBe(200);
    expect(current.body.version).toBe(2);
    expect(current.headers.get('etag')).toBe((await svc.request('GET', '/api/dashboards/reborn')).headers.get('etag'));
    expect((await svc.request('POST', '/api/dashboards', { body: spec('reborn'), headers: { 'if-match': '"2"' } })).status).toBe(200);
  });

  it('honours If-Match for optimistic concurrency', async () => {
    await svc.request('POST', '/api/dashboards', { body: spec('guarded') });
    const stale = await svc.request('POST', '/api/dashboards', { body: spec('guarded', { subtitle: 'x' }), headers: { 'if-match': '"5"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('VERSION_MISMATCH');
    expect(stale.body.error).toContain('version 1');
    const fresh = await svc.request('POST', '/api/dashboards', { body: spec('guarded', { subtitle: 'y' }), headers: { 'if-match': '"1"' } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.version).toBe(2);
    const missing = await svc.request('POST', '/api/dashboards', { body: spec('never-published'), headers: { 'if-match': '"1"' } });
    expect(missing.status).toBe(412);
    const garbage = await svc.request('POST', '/api/dashboards', { body: spec('guarded'), headers: { 'if-match': 'banana' } });
    expect(garbage.status).toBe(400);
    const tooLarge = await svc.request('POST', '/api/dashboards', { body: spec('guarded'), headers: { 'if-match': '"9999999999"' } });
    expect(tooLarge.body.error).toBe('If-Match must be a dashboard version (1 to 999999999) in quotes, such as If-Match: "3" (got "\\"9999999999\\"").');
    expect((await svc.request('GET', '/api/dashboards/guarded')).body.version).toBe(2);
  });

  it('answers each of many publishes sent at once on its own, refused ones leaving nothing behind', async () => {
    await svc.request('POST', '/api/dashboards', { body: spec('burst-shared') });
    const sends = Array.from({ length: 24 }, (_, index) => {
      if (index % 6 === 0) return svc.request('POST', '/api/dashboards', { body: spec(`burst-stale-${index}`), headers: { 'if-match': '"3"' } });
      if (index % 6 === 1) return svc.request('POST', '/api/dashboards', { body: spec('burst-shared', { subtitle: `update ${index}` }) });
      return svc.request('POST', '/api/dashboards', { body: spec(`burst-${index}`, { subtitle: `body ${index}` }) });
    });
    const answers = await Promise.all(sends);
    answers.forEach((answer, index) => {
      if (index % 6 === 0) expect(answer.body).toMatchObject({ code: 'VERSION_MISMATCH', error: expect.stringContaining(`no dashboard "burst-stale-${index}" exists yet`) });
      else if (index % 6 === 1) expect(answer.status).toBe(200);
      else expect(answer.body).toMatchObject({ slug: `burst-${index}`, version: 1, created: true });
    });
    // The four replacements of one slug took versions 2 to 5, one each.
    const sharedVersions = answers.filter((_, index) => index % 6 === 1).map((answer) => answer.body.version as number);
    expect(sharedVersions.sort()).toEqual([2, 3, 4, 5]);
    const listed = (await svc.request('GET', '/api/dashboards')).body.dashboards.map((d: { slug: string }) => d.slug);
    expect(listed.filter((slug: string) => slug.startsWith('burst-stale'))).toEqual([]);
    expect(listed.filter((slug: string) => slug.startsWith('burst-'))).toHaveLength(17);
    const created = await svc.request('GET', '/api/dashboards/burst-2');
    expect(created.body).toMatchObject({ version: 1, spec: spec('burst-2', { subtitle: 'body 2' }) });
  });

  it('lists dashboards ordered by groupOrder, group, order, title', async () => {
    const fresh = await startTestServer();
    try {
      const docs = [
        spec('c', { title: 'Charlie', group: 'Ops', groupOrder: 2, order: 1 }),
        spec('a', { title: 'Alpha', group: 'Eng', groupOrder: 1, order: 2 }),
        spec('b', { title: 'Bravo', group: 'Eng', groupOrder: 1, order: 1 }),
        spec('d', { title: 'delta', group: 'Eng', groupOrder: 1, order: 1 }),
        spec('e', { title: 'Echo' }),
      ];
      for (const doc of docs) expect((await fresh.request('POST', '/api/dashboards', { body: doc })).status).toBe(201);
      const list = await fresh.request('GET', '/api/dashboards');
      expect(list.body.dashboards.map((d: { slug: string }) => d.slug)).toEqual(['b', 'd', 'a', 'c', 'e']);
      expect(list.body.dashboards[0]).toEqual({
        slug: 'b',
        title: 'Bravo',
        subtitle: null,
        group: 'Eng',
        groupOrder: 1,
        order: 1,
        tone: null,
        layout: null,
        version: 1,
        updated_at: expect.any(String),
        url: `${fresh.url}/d/b`,
      });
    } finally {
      await fresh.close();
    }
  });

  it('deletes a dashboard with its versions', async () => {
    await svc.request('POST', '/api/dashboards', { body: spec('doomed') });
    await svc.request('POST', '/api/dashboards', { body: spec('doomed') });
    expect((await svc.request('DELETE', '/api/dashboards/doomed')).status).toBe(204);
    expect((await svc.request('GET', '/api/dashboards/doomed')).status).toBe(404);
    expect((await svc.request('GET', '/api/dashboards/doomed/versions')).status).toBe(404);
    expect((await svc.request('DELETE', '/api/dashboards/doomed')).status).toBe(404);
    const again = await svc.request('POST', '/api/dashboards', { body: spec('doomed') });
    expect(again.body).toMatchObject({ version: 1, created: true });
    expect((await svc.request('GET', '/api/dashboards/Not_A_Slug')).body).toEqual({
      code: 'BAD_REQUEST',
      error: '"Not_A_Slug" is not a dashboard slug: use lower-case letters and digits separated by single hyphens.',
    });
    expect((await svc.request('GET', `/api/dashboards/${'a'.repeat(81)}`)).body.error).toBe(
      `A dashboard slug has at most 80 characters; this one has 81 ("${'a'.repeat(40)}…").`,
    );
  });

  it('serves the new page, not the old one, when a deleted slug is published again', async () => {
    const page = async (headers: Record<string, string> = {}) => {
      const response = await fetch(`${svc.url}/d/reborn-page`, { headers: { authorization: `Bearer ${svc.adminToken}`, ...headers } });
      return { status: response.status, etag: response.headers.get('etag') ?? '', text: await response.text() };
    };
    await svc.request('POST', '/api/dashboards', { body: spec('reborn-page', { title: 'The old dashboard' }) });
    const old = await page();
    expect(old.text).toContain('The old dashboard');
    expect((await svc.request('DELETE', '/api/dashboards/reborn-page')).status).toBe(204);
    expect((await page()).status).toBe(404);
    // Still version 1, published in a later millisecond.
    await nextMillisecond();
    expect((await svc.request('POST', '/api/dashboards', { body: spec('reborn-page', { title: 'The new dashboard' }) })).body).toMatchObject({ version: 1, created: true });
    const fresh = await page({ 'if-none-match': old.etag });
    expect(fresh.status).toBe(200);
    expect(fresh.text).toContain('The new dashboard');
    expect(fresh.text).not.toContain('The old dashboard');
    expect(fresh.etag).not.toBe(old.etag);
  });

  it('rejects an invalid spec with 422 and every issue, leaving the stored version served', async () => {
    await svc.request('POST', '/api/dashboards', { body: spec('stable', { subtitle: 'good' }) });
    const invalid = await svc.request('POST', '/api/dashboards', {
      body: spec('stable', { subtitle: 'x'.repeat(401), tone: 'green', sections: [{ blocks: [{ type: 'stat', label: 'Users' }, { type: 'sparkle' }] }] }),
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('DASHBOARD_INVALID');
    expect(invalid.body.issues).toEqual(
      expect.arrayContaining([
        { path: '/subtitle', message: expect.stringContaining('at most 400') },
        { path: '/tone', message: expect.stringContaining('neutral, positive, warning, danger, info, accent') },
        { path: '/sections/0/blocks/0/value', message: expect.stringContaining('"value"') },
        { path: '/sections/0/blocks/1/type', message: expect.stringContaining('"sparkle" is not a block kind') },
      ]),
    );
    const current = await svc.request('GET', '/api/dashboards/stable');
    expect(current.body).toMatchObject({ version: 1, spec: { subtitle: 'good' } });
    expect((await svc.request('GET', '/api/dashboards/stable/versions')).body.versions).toHaveLength(1);
  });

  it('reports at most 100 of 10,000 violations, with the true total', async () => {
    const items = Array.from({ length: 10_000 }, () => ({ title: 5 }));
    const response = await svc.request('POST', '/api/dashboards', { body: spec('many', { sections: [{ blocks: [{ type: 'list', items }] }] }) });
    expect(response.status).toBe(422);
    expect(response.body.issues).toHaveLength(100);
    expect(response.body.total).toBeGreaterThanOrEqual(10_000);
  });

  it('survives hostile documents: deep nesting, huge strings, wrong types', async () => {
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const nested = await svc.request('POST', '/api/dashboards', {
      rawBody: `{"slug":"deep","title":"Deep","sections":[{"blocks":[{"type":"chart","option":${deep}}]}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(nested.status).toBe(422);
    expect(nested.body.issues[0].path).toMatch(/^\/sections\/0\/blocks\/0\/option/);

    const hugeString = await svc.request('POST', '/api/dashboards', { body: spec('huge', { title: 'x'.repeat(5_000_000) }) });
    expect(hugeString.status).toBe(422);
    expect(hugeString.body.issues[0]).toEqual({ path: '/title', message: expect.stringContaining('at most 200 characters') });

    for (const body of [[], 'text', 42, null]) {
      const response = await svc.request('POST', '/api/dashboards', { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('DASHBOARD_INVALID');
    }
    expect((await svc.request('GET', '/api/dashboards/deep')).status).toBe(404);
  });

  it('answers transport errors with their contract status', async () => {
    const malformed = await svc.request('POST', '/api/dashboards', { rawBody: '{"slug": "x",', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('BAD_REQUEST');
    const wrongType = await svc.request('POST', '/api/dashboards', { rawBody: '{}', headers: { 'content-type': 'text/yaml' } });
    expect(wrongType.status).toBe(400);
    const bytes = Buffer.concat([Buffer.from('{"slug":"bytes","title":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const notUtf8 = await svc.request('POST', '/api/dashboards', { rawBody: bytes, headers: { 'content-type': 'application/json' } });
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body.error).toContain('UTF-8');
    const tooBig = await svc.request('POST', '/api/dashboards', { rawBody: `{"slug":"big","title":"${'x'.repeat(17 * 1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: expect.stringContaining('16 MiB') });
    expect((await svc.request('GET', '/api/dashboards/big')).status).toBe(404);
  });

  it('takes a charset parameter and a byte order mark, and says where a refused key is', async () => {
    const withCharset = await svc.request('POST', '/api/dashboards', { rawBody: JSON.stringify(spec('charset')), headers: { 'content-type': 'application/json; charset=UTF-8' } });
    expect(withCharset.status).toBe(201);
    const latin1 = await svc.request('POST', '/api/dashboards', { rawBody: JSON.stringify(spec('latin')), headers: { 'content-type': 'application/json;charset="iso-8859-1"' } });
    expect(latin1.status).toBe(400);
    expect(latin1.body).toEqual({ code: 'BAD_REQUEST', error: expect.stringContaining('charset=iso-8859-1, but JSON bodies are read as UTF-8') });
    const project = await svc.request('POST', '/v1/projects', { rawBody: JSON.stringify({ name: 'Charset Project' }), headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(project.status).toBe(201);

    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(spec('bom', { subtitle: 'from a Windows editor' })))]);
    expect((await svc.request('POST', '/api/dashboards', { rawBody: withBom, headers: { 'content-type': 'application/json' } })).status).toBe(201);
    const read = await svc.request('GET', '/api/dashboards/bom');
    expect(read.status).toBe(200);
    expect(read.body.spec).toEqual(spec('bom', { subtitle: 'from a Windows editor' }));
    const page = await fetch(`${svc.url}/d/bom`, { headers: { authorization: `Bearer ${svc.adminToken}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('from a Windows editor');

    const poisoned = '{"slug":"rows","title":"Rows","sections":[{"blocks":[{"type":"table","rows":[{"a":1},{"\\u005f_proto__":{"admin":true}}]}]}]}';
    const refused = await svc.request('POST', '/api/dashboards', { rawBody: poisoned, headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'DASHBOARD_INVALID', total: 1, issues: [{ path: '/sections/0/blocks/0/rows/1/__proto__', message: expect.stringContaining('rename the key') }] });
    const constructorKey = await svc.request('POST', '/v1/projects', { rawBody: '{"name":"x","extra":{"constructor":{"prototype":{}}}}', headers: { 'content-type': 'application/json' } });
    expect(constructorKey.status).toBe(400);
    expect(constructorKey.body.error).toContain('/extra/constructor/prototype');
    expect((await svc.request('GET', '/api/dashboards/rows')).status).toBe(404);
  });

  it('stores any JSON integer as order and groupOrder, and refuses NUL characters, on either database', async () => {
    const huge = await svc.request('POST', '/api/dashboards', { body: spec('far-order', { order: 3_000_000_000, groupOrder: 1e300, group: 'Far' }) });
    expect(huge.status).toBe(201);
    const small = await svc.request('POST', '/api/dashboards', { body: spec('near-order', { order: -3_000_000_000, groupOrder: 1e300, group: 'Far' }) });
    expect(small.status).toBe(201);
    const listed = (await svc.request('GET', '/api/dashboards')).body.dashboards.filter((d: { group: string | null }) => d.group === 'Far');
    expect(listed.map((d: { slug: string; order: number; groupOrder: number }) => [d.slug, d.order, d.groupOrder])).toEqual([
      ['near-order', -3_000_000_000, 1e300],
      ['far-order', 3_000_000_000, 1e300],
    ]);
    const nul = await svc.request('POST', '/api/dashboards', { body: spec('nul-title', { title: 'Weekly\u0000report', subtitle: '\u0000' }) });
    expect(nul.status).toBe(422);
    expect(nul.body.issues).toEqual([
      { path: '/title', message: expect.stringContaining('must not contain the NUL character') },
      { path: '/subtitle', message: expect.stringContaining('must not contain the NUL character') },
    ]);
    expect((await svc.request('GET', '/api/dashboards/nul-title')).status).toBe(404);

    // Every other JSON body too: a project name, a secret value.
    const project = await svc.request('POST', '/v1/projects', { body: { name: 'Nul\u0000Project' } });
    expect(project.status).toBe(400);
    expect(project.body).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: '/name', message: expect.stringContaining('NUL character') }] });
    const id = (await svc.request('POST', '/v1/projects', { body: { name: 'Nul Free Project' } })).body.project.id as string;
    const secret = await svc.request('PUT', `/v1/projects/${id}/secrets/API_KEY`, { body: { value: 'abc\u0000def' } });
    expect(secret.status).toBe(400);
    expect(secret.body.issues).toEqual([{ path: '/value', message: expect.stringContaining('NUL character') }]);
  });

  it('publishes the largest legal document and a typical one', async () => {
    const large = await svc.request('POST', '/api/dashboards', { body: buildLargeTableSpec(5000, 16) });
    expect(large.status).toBe(201);
    const typical = buildTypicalSpec();
    const response = await svc.request('POST', '/api/dashboards', { body: typical });
    expect(response.status).toBe(201);
    const read = await svc.request('GET', `/api/dashboards/${typical.slug}`);
    expect(read.body.spec).toEqual(typical);
  });

  it('enforces dashboards.publish and account scope', async () => {
    const project = (await svc.request('POST', '/v1/projects', { body: { name: 'Dash Scope' } })).body.project;
    const mint = async (capabilities: string[]) =>
      (await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 't', capabilities } })).body.token as string;
    const publisher = await mint(['dashboards.publish']);
    const reader = await mint(['project.read']);
    const writer = await mint(['project.write']);
    expect((await svc.request('POST', '/api/dashboards', { token: publisher, body: spec('by-agent') })).status).toBe(201);
    const denied = await svc.request('POST', '/api/dashboards', { token: reader, body: spec('by-reader') });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toContain('dashboards.publish');
    expect((await svc.request('GET', '/api/dashboards/by-agent', { token: reader })).status).toBe(200);
    expect((await svc.request('GET', '/api/dashboards', { token: writer })).status).toBe(403);
    expect((await svc.request('DELETE', '/api/dashboards/by-agent', { token: reader })).status).toBe(403);
    expect((await svc.request('POST', '/api/dashboards', { token: null, body: spec('anon') })).status).toBe(401);
  });
});
