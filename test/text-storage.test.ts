import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

/**
 * Text is stored the same on SQLite and PostgreSQL: a lone UTF-16 surrogate, which a JSON `\ud800`
 * escape can spell and UTF-8 cannot, is refused on every JSON route with the path of its string.
 */
let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
});

const json = { 'content-type': 'application/json' };
const LONE = 'must not contain a lone UTF-16 surrogate';

describe(`lone surrogates on ${testDialect}`, () => {
  it('refuses a dashboard holding one with 400 and where it is, and stores nothing', async () => {
    const title = await svc.request('POST', '/api/dashboards', { rawBody: '{"slug":"lone-title","title":"Weekly \\ud800 report"}', headers: json });
    expect(title.status).toBe(400);
    expect(title.body.code).toBe('BAD_REQUEST');
    expect(title.body.error).toBe(
      'The request body is refused at /title: must not contain a lone UTF-16 surrogate (a \\ud800 to \\udfff escape that is not half of a pair), which is no character and which SQLite and PostgreSQL would store differently; send the whole character (both escapes of its pair, or the character itself in UTF-8) or remove it.',
    );
    expect((await svc.request('GET', '/api/dashboards/lone-title')).status).toBe(404);

    // A trailing half, a key of a table row, a value deep in a section.
    const row = await svc.request('POST', '/api/dashboards', {
      rawBody: '{"slug":"lone-row","title":"Rows","sections":[{"blocks":[{"type":"table","rows":[{"ok":"\\ud83d\\ude00","na\\udc00me":1}]}]}]}',
      headers: json,
    });
    expect(row.status).toBe(400);
    expect(row.body.error).toContain(`refused at /sections/0/blocks/0/rows/0/na\udc00me: this key ${LONE}`);
    expect((await svc.request('GET', '/api/dashboards/lone-row')).status).toBe(404);

    // A body large enough to be checked on a worker thread says the same.
    const rows = Array.from({ length: 200 }, (_, index) => `{"name":"row ${index}${index === 150 ? '\\udbff' : ''}","value":${index}}`).join(',');
    const large = await svc.request('POST', '/api/dashboards', { rawBody: `{"slug":"lone-large","title":"Large","sections":[{"blocks":[{"type":"table","rows":[${rows}]}]}]}`, headers: json });
    expect(large.status).toBe(400);
    expect(large.body.error).toContain(`refused at /sections/0/blocks/0/rows/150/name: ${LONE}`);

    // Pairs are characters: stored and read back as sent.
    const paired = await svc.request('POST', '/api/dashboards', { rawBody: '{"slug":"paired","title":"Smile \\ud83d\\ude00 \\uD834\\uDD1E"}', headers: json });
    expect(paired.status).toBe(201);
    expect((await svc.request('GET', '/api/dashboards/paired')).body.spec.title).toBe('Smile 😀 𝄞');
  });

  it('refuses a project, or any other JSON body, holding one with 400 VALIDATION_FAILED and every path', async () => {
    const project = await svc.request('POST', '/v1/projects', { rawBody: '{"name":"Billing \\udfff","slug":"lone-\\ud800"}', headers: json });
    expect(project.status).toBe(400);
    expect(project.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [
        { path: '/name', message: expect.stringContaining(LONE) },
        { path: '/slug', message: expect.stringContaining(LONE) },
      ],
    });
    expect(project.body.error).toContain(`The request is invalid: /name: ${LONE}`);
    expect((await svc.request('GET', '/v1/projects')).body.projects.some((p: { name: string }) => p.name.startsWith('Billing'))).toBe(false);

    const created = await svc.request('POST', '/v1/projects', { rawBody: '{"name":"Billing \\ud83d\\udcb6"}', headers: json });
    expect(created.status).toBe(201);
    expect(created.body.project.name).toBe('Billing 💶');
    const secret = await svc.request('PUT', `/v1/projects/${created.body.project.id}/secrets/API_KEY`, { rawBody: '{"value":"\\ud800abc"}', headers: json });
    expect(secret.status).toBe(400);
    expect(secret.body.issues).toEqual([{ path: '/value', message: expect.stringContaining(LONE) }]);
  });
});
