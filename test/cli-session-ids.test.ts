/**
 * `svc session <command> <id>` takes a session's id or its beginning, as the web pages show it ("session
 * 5c040991"), on each database: one session begins with it, else the CLI says none does or which ones do. The
 * sessions are written straight into the database (stopped, as an idle sweep leaves them), 600 of them, so the
 * one looked for is past the listing's first page: the API finds it by the id's beginning (`id_prefix`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from './support/change-request-fixtures.js';
import { adminCliEnv, runCli } from './support/cli-harness.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let project: TestProject;

/** Ids that share their beginnings on purpose; the rest are random. */
const OLDEST = 'abcd1111-0000-4000-8000-000000000001';
const TWIN = 'abcd2222-0000-4000-8000-000000000002';
/** Twelve sessions beginning alike: more than an ambiguous beginning lists. */
const CROWD = Array.from({ length: 12 }, (_, i) => `abce${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);

beforeAll(async () => {
  svc = await startTestServer();
  project = await createProject(svc);
  const db = svc.server.services.db;
  const { account_id, created_by } = await db.selectFrom('projects').select(['account_id', 'created_by']).where('id', '=', project.id).executeTakeFirstOrThrow();
  const start = Date.parse('2026-11-01T00:00:00.000Z');
  const ids = [OLDEST, ...CROWD, ...Array.from({ length: 586 }, () => randomUUID().replace(/^abc[de]/, '0bcd')), TWIN];
  const sessions = ids.map((id, i) => {
    const at = new Date(start + i * 60_000).toISOString();
    return { id, project_id: project.id, account_id, status: 'stopped' as const, base_ref: 'main', branch: id, created_by, created_at: at, updated_at: at };
  });
  for (let i = 0; i < sessions.length; i += 100) await db.insertInto('sessions').values(sessions.slice(i, i + 100)).execute();
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

const show = (id: string) => runCli(['session', 'show', id, '--project', project.id], { env: adminCliEnv(svc) });

describe(`session ids in the CLI on ${testDialect}`, () => {
  it('takes the beginning of an id that only one session has, even past the first page of the listing', async () => {
    const found = await show('abcd1');
    expect(found.stderr).toBe('');
    expect(found.code).toBe(0);
    expect(found.stdout).toContain(`session       ${OLDEST}\n`);
    const twin = await show(' ABCD2222 ');
    expect(twin.stdout).toContain(`session       ${TWIN}\n`);
    const whole = await show(OLDEST.toUpperCase());
    expect(whole.stdout).toContain(`session       ${OLDEST}\n`);
  });

  it('says which sessions a shared beginning names, that none has one, and what an id looks like', async () => {
    const shared = await show('abcd');
    expect(shared.code).toBe(2);
    expect(shared.stderr).toBe(`svc: "abcd" begins the ids of more than one session (${TWIN}, ${OLDEST}); give more of the id.\n`);
    const crowded = await show('abce');
    expect(crowded.code).toBe(2);
    expect(crowded.stderr).toBe(`svc: "abce" begins the ids of more than one session (${CROWD.slice(2).reverse().join(', ')}, …); give more of the id.\n`);
    const none = await show('abcd3');
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('svc: No session of this project has an id beginning with "abcd3"; svc session ls lists them.\n');
    for (const id of ['abc', 'nightly', 'abcd%']) {
      const bad = await show(id);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe(`svc: "${id}" is not a session id, nor the beginning of one (at least 4 of its characters); svc session ls lists them.\n`);
    }
  });
});

describe(`the sessions listing by an id's beginning on ${testDialect}`, () => {
  it('lists only the sessions whose id begins with id_prefix, in any case, and refuses what no id begins with', async () => {
    const list = (query: string) => svc.request('GET', `/v1/projects/${project.id}/sessions?${query}`);
    const ids = (response: { body: { sessions: { id: string }[] } }) => response.body.sessions.map((session) => session.id);
    const found = await list('id_prefix=ABCD');
    expect(found.status).toBe(200);
    expect(ids(found)).toEqual([TWIN, OLDEST]);
    const paged = await list(`id_prefix=abce&limit=5&before=${CROWD[7]}`);
    expect(ids(paged)).toEqual(CROWD.slice(2, 7).reverse());
    for (const [bad, got] of [['abcd%25', 'abcd%'], ['abcd_', 'abcd_'], ['ab%20cd', 'ab cd'], ['', '']]) {
      const refused = await list(`id_prefix=${bad}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', error: `The querystring request is invalid: /id_prefix: must be the beginning of a session id: 1 to 36 hex digits and dashes (got ${JSON.stringify(got)}).` });
    }
  });
});
