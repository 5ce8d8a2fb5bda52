import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, startTestServer, testDialect, type TestServer } from './support/test-server.js';

/** Contract §3: a dashboard belongs to a project (or, without one, to its publisher); others may read it, not replace or delete it. */
let svc: TestServer;
let alpha: { id: string; slug: string };
let beta: { id: string; slug: string };
let alphaToken: string;
let betaToken: string;
/** Member of alpha. */
let alice: string;
/** Member of beta only. */
let bob: string;
/** Member of no project. */
let carol: string;

const unique = () => randomBytes(4).toString('hex');
const spec = (slug: string, extra: Record<string, unknown> = {}) => ({ slug, title: `Dashboard ${slug}`, ...extra });

async function createUser(name: string): Promise<{ id: string; token: string }> {
  const response = await svc.request('POST', '/v1/users', { body: { name } });
  expect(response.status).toBe(201);
  return { id: response.body.user.id, token: response.body.token };
}

async function createProject(name: string, members: string[]): Promise<{ id: string; slug: string }> {
  const project = (await svc.request('POST', '/v1/projects', { body: { name } })).body.project as { id: string; slug: string };
  for (const userId of members) expect((await svc.request('PUT', `/v1/projects/${project.id}/members/${userId}`)).status).toBe(201);
  return project;
}

async function mintPublisher(projectId: string): Promise<string> {
  const response = await svc.request('POST', `/v1/projects/${projectId}/tokens`, { body: { name: 'agent', capabilities: ['dashboards.publish', 'project.read'] } });
  expect(response.status).toBe(201);
  return response.body.token;
}

const publish = (token: string, body: unknown) => svc.request('POST', '/api/dashboards', { token, body });
const remove = (token: string, slug: string) => svc.request('DELETE', `/api/dashboards/${slug}`, { token });
const read = async (slug: string) => (await svc.request('GET', `/api/dashboards/${slug}`)).body;

beforeAll(async () => {
  svc = await startTestServer();
  const [a, b, c] = [await createUser('alice'), await createUser('bob'), await createUser('carol')];
  alice = a.token;
  bob = b.token;
  carol = c.token;
  alpha = await createProject('Alpha', [a.id]);
  beta = await createProject('Beta', [b.id]);
  alphaToken = await mintPublisher(alpha.id);
  betaToken = await mintPublisher(beta.id);
});
afterAll(async () => {
  await svc.close();
});

describe(`dashboards and projects on ${testDialect}`, () => {
  it('puts a dashboard published with a project token in that project, whatever svc.projectId says', async () => {
    const claimed = `claims-beta-${unique()}`;
    const body = spec(claimed, { svc: { agent: 'builder', projectId: beta.id, context: 'nightly' }, meta: [{ label: 'Owner', value: 'Team α' }] });
    expect((await publish(alphaToken, body)).status).toBe(201);
    expect((await read(claimed)).spec).toEqual({ ...body, svc: { agent: 'builder', projectId: alpha.id, context: 'nightly' } });

    // A spec without svc gets it; the rest of the document is stored as sent.
    const bare = `bare-${unique()}`;
    const raw = `{ "slug": "${bare}",\n  "title": "Bare" }`;
    expect((await svc.request('POST', '/api/dashboards', { token: alphaToken, rawBody: raw, headers: { 'content-type': 'application/json' } })).status).toBe(201);
    const stored = await svc.request('GET', `/api/dashboards/${bare}`);
    expect(stored.body.spec).toEqual({ svc: { projectId: alpha.id }, slug: bare, title: 'Bare' });
    expect(stored.text).toContain(`"spec":{"svc":{"projectId":"${alpha.id}"}, "slug": "${bare}",\n  "title": "Bare" }`);

    // The token of the project it names was never allowed to replace it.
    const hijack = await publish(betaToken, spec(claimed, { title: 'Hijacked' }));
    expect(hijack.status).toBe(403);
    expect(hijack.body).toEqual({
      code: 'FORBIDDEN',
      error: `Dashboard "${claimed}" belongs to project ${alpha.slug}, and this token is of another project, so it cannot replace it; use a token of project ${alpha.slug} with dashboards.publish (or a user token of one of its members), or publish under another slug.`,
    });
    const deleted = await remove(betaToken, claimed);
    expect(deleted.status).toBe(403);
    expect(deleted.body.error).toBe(
      `Dashboard "${claimed}" belongs to project ${alpha.slug}, and this token is of another project, so it cannot delete it; use a token of project ${alpha.slug} with dashboards.publish (or a user token of one of its members).`,
    );
    expect(await read(claimed)).toMatchObject({ version: 1, spec: { title: body.title } });
    // Any token of the account still reads it.
    expect((await svc.request('GET', `/api/dashboards/${claimed}`, { token: betaToken })).status).toBe(200);

    expect((await publish(alphaToken, spec(claimed, { title: 'Second' }))).status).toBe(200);
    expect((await remove(alphaToken, claimed)).status).toBe(204);
  });

  it('lists the dashboards a project published on its overview page, and no other project’s', async () => {
    const gamma = await createProject(`Gamma ${unique()}`, []);
    const gammaToken = await mintPublisher(gamma.id);
    const own = [`gamma-first-${unique()}`, `gamma-second-${unique()}`];
    for (const slug of own) expect((await publish(gammaToken, spec(slug))).status).toBe(201);
    const other = `beta-only-${unique()}`;
    expect((await publish(betaToken, spec(other))).status).toBe(201);

    const overview = await fetch(`${svc.url}/projects/${gamma.slug}`, { headers: { authorization: `Bearer ${svc.adminToken}` } });
    expect(overview.status).toBe(200);
    const html = await overview.text();
    const panel = html.slice(html.indexOf('Recent dashboards'));
    for (const slug of own) expect(panel).toContain(`<a class="row-main" href="/d/${slug}"><span class="row-title">Dashboard ${slug}</span>`);
    expect(html).not.toContain(other);
  });

  it('lets only members of a dashboard’s project, and administrators, replace or delete it', async () => {
    const slug = `alpha-board-${unique()}`;
    expect((await publish(alphaToken, spec(slug))).status).toBe(201);

    const outsider = await publish(bob, spec(slug, { title: 'By Bob' }));
    expect(outsider.status).toBe(403);
    expect(outsider.body.error).toBe(
      `Dashboard "${slug}" belongs to project ${alpha.slug}, which you are not a member of, so you cannot replace it; ask an administrator to add you to project ${alpha.slug}, or publish under another slug.`,
    );
    expect((await remove(carol, slug)).status).toBe(403);
    expect((await read(slug)).version).toBe(1);

    const member = await publish(alice, spec(slug, { title: 'By Alice', svc: { projectId: alpha.id } }));
    expect(member.status).toBe(200);
    expect(member.body.version).toBe(2);
    // Still alpha's: its token replaces it, Bob still may not.
    expect((await publish(alphaToken, spec(slug))).status).toBe(200);
    expect((await publish(bob, spec(slug))).status).toBe(403);
    expect((await remove(svc.adminToken, slug)).status).toBe(204);

    // Nor may a user publish into a project of which they are not a member.
    const intrude = await publish(carol, spec(`into-alpha-${unique()}`, { svc: { projectId: alpha.id } }));
    expect(intrude.status).toBe(403);
    expect(intrude.body.error).toBe(
      `svc.projectId names project ${alpha.slug}, which you are not a member of, so you cannot publish a dashboard into it; ask an administrator to add you to project ${alpha.slug}, or leave svc.projectId out.`,
    );
  });

  it('leaves a dashboard without a project to its publisher and administrators', async () => {
    const slug = `carols-${unique()}`;
    expect((await publish(carol, spec(slug))).status).toBe(201);

    const other = await publish(alice, spec(slug, { title: 'By Alice' }));
    expect(other.status).toBe(403);
    expect(other.body.error).toBe(`Dashboard "${slug}" belongs to no project, so only its publisher (carol) or an administrator may replace it; publish under another slug.`);
    const agent = await remove(alphaToken, slug);
    expect(agent.status).toBe(403);
    expect(agent.body.error).toBe(
      `Dashboard "${slug}" belongs to no project, so only its publisher (carol) or an administrator may delete it, with a user token: a project token acts only on its own project’s dashboards.`,
    );

    expect((await publish(carol, spec(slug, { title: 'Second' }))).status).toBe(200);
    expect((await publish(svc.adminToken, spec(slug, { title: 'Third' }))).status).toBe(200);
    // An administrator's replace leaves it Carol's.
    expect((await publish(carol, spec(slug, { title: 'Fourth' }))).body.version).toBe(4);
    // An svc.projectId of no project of the account is a context link only.
    const linked = await publish(carol, spec(slug, { svc: { projectId: '5f0c6f5e-8f4b-4c1e-9d53-2a6f1b0e7c11' } }));
    expect(linked.status).toBe(200);
    expect((await publish(alice, spec(slug))).status).toBe(403);
    expect((await remove(carol, slug)).status).toBe(204);
  });

  it('makes the member who takes a dashboard out of its project its publisher', async () => {
    const slug = `moved-out-${unique()}`;
    expect((await publish(alphaToken, spec(slug))).status).toBe(201);
    expect((await publish(alice, spec(slug))).status).toBe(200);
    expect((await publish(alphaToken, spec(slug))).status).toBe(403);
    expect((await publish(alice, spec(slug, { svc: { projectId: alpha.id } }))).status).toBe(200);
    expect((await publish(alphaToken, spec(slug))).status).toBe(200);
  });

  it('keeps the project of dashboards published before projects owned them, and leaves the others to administrators', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
    const database = await createTestDatabase();
    const options = { dataDir, ...(database.url ? { databaseUrl: database.url } : {}) };
    const before = await startTestServer(options);
    try {
      const project = (await before.request('POST', '/v1/projects', { body: { name: 'Legacy' } })).body.project as { id: string };
      const other = (await before.request('POST', '/v1/projects', { body: { name: 'Elsewhere' } })).body.project as { id: string };
      const user = (await before.request('POST', '/v1/users', { body: { name: 'dora' } })).body.token as string;
      expect((await before.request('POST', '/api/dashboards', { body: spec('legacy-linked', { svc: { projectId: project.id } }) })).status).toBe(201);
      expect((await before.request('POST', '/api/dashboards', { body: spec('legacy-plain') })).status).toBe(201);
      // The database as the version before this one left it: no owner columns, migration 0006 not run.
      const db = before.server.services.db;
      await sql`ALTER TABLE dashboards DROP COLUMN project_id`.execute(db);
      await sql`ALTER TABLE dashboards DROP COLUMN published_by`.execute(db);
      await sql`DELETE FROM kysely_migration WHERE name = '0006_dashboard_owners'`.execute(db);
      await before.server.close();

      const after = await startTestServer({ ...options, adminToken: before.adminToken });
      try {
        const mint = async (projectId: string) =>
          (await after.request('POST', `/v1/projects/${projectId}/tokens`, { body: { name: 'agent', capabilities: ['dashboards.publish'] } })).body.token as string;
        const republish = (token: string, slug: string) => after.request('POST', '/api/dashboards', { token, body: spec(slug, { svc: { projectId: project.id } }) });
        expect((await republish(await mint(other.id), 'legacy-linked')).status).toBe(403);
        expect((await republish(await mint(project.id), 'legacy-linked')).status).toBe(200);
        const plain = await after.request('POST', '/api/dashboards', { token: user, body: spec('legacy-plain') });
        expect(plain.status).toBe(403);
        expect(plain.body.error).toBe('Dashboard "legacy-plain" belongs to no project, so only an administrator may replace it; publish under another slug.');
        expect((await after.request('DELETE', '/api/dashboards/legacy-plain')).status).toBe(204);
      } finally {
        await after.server.close();
      }
    } finally {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
