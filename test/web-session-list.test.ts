/**
 * The web UI's sessions list, a page of 50 at a time, newest first, on each database: a project that a
 * minutely cron trigger has run for a few hours still shows its oldest sessions, two links away, and the sessions
 * one trigger started are a list of their own, linked from that trigger's fires page.
 * The sessions are written straight into the database (stopped, as an idle sweep leaves them): booting
 * 120 sandboxes would test the sandboxes, not the list.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from './support/change-request-fixtures.js';
import { signInCookie } from './support/web-app-browser.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let project: TestProject;
let cookie: string;

beforeAll(async () => {
  svc = await startTestServer();
  project = await createProject(svc);
  cookie = `svc_session=${await signInCookie(svc, svc.adminToken)}`;
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

async function page(query = '', of: TestProject = project): Promise<{ status: number; text: string; listed: string[]; older: string | null; newest: boolean }> {
  const response = await fetch(`${svc.url}/projects/${of.slug}/sessions${query}`, { headers: { cookie } });
  const text = await response.text();
  const older = /<a class="chip" rel="next" href="([^"]+)">Older sessions<\/a>/.exec(text)?.[1] ?? null;
  return {
    status: response.status,
    text,
    listed: [...text.matchAll(/<span class="row-title"><code>([0-9a-f]{8})<\/code>/g)].map((match) => match[1]!),
    older: older?.replaceAll('&amp;', '&') ?? null,
    newest: /<a class="chip" href="[^"]+">Newest sessions<\/a>/.test(text),
  };
}

describe(`the web sessions list on ${testDialect}`, () => {
  it('shows 50 sessions a page, newest first, linking to the older ones and back to the newest', async () => {
    const { account_id, created_by } = await svc.server.services.db.selectFrom('projects').select(['account_id', 'created_by']).where('id', '=', project.id).executeTakeFirstOrThrow();
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    // Oldest first; two share each minute, so the order within one instant is the id's.
    const sessions = Array.from({ length: 120 }, (_, i) => {
      const id = randomUUID();
      const at = new Date(start + Math.floor(i / 2) * 60_000).toISOString();
      return { id, project_id: project.id, account_id, status: 'stopped' as const, base_ref: 'main', branch: id, trigger_slug: 'minutely', created_by, created_at: at, updated_at: at };
    });
    await svc.server.services.db.insertInto('sessions').values(sessions).execute();
    const newestFirst = [...sessions].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).map((session) => session.id.slice(0, 8));

    const first = await page();
    expect(first.status).toBe(200);
    expect(first.text).toContain('<p class="muted">120 sessions</p>');
    expect(first.listed).toEqual(newestFirst.slice(0, 50));
    expect(first.newest).toBe(false);
    expect(first.older).toMatch(/^\/projects\/[^/]+\/sessions\?before=[0-9a-f-]{36}$/);

    const second = await page(first.older!.slice(first.older!.indexOf('?')));
    expect(second.text).toContain('<p class="muted">120 sessions, older ones</p>');
    expect(second.listed).toEqual(newestFirst.slice(50, 100));
    expect(second.newest).toBe(true);

    const last = await page(second.older!.slice(second.older!.indexOf('?')));
    expect(last.listed).toEqual(newestFirst.slice(100));
    expect(last.older).toBeNull();
    expect(last.newest).toBe(true);

    // An address that names no session of the project is a 400 page that says what to do.
    const wrong = await page(`?before=${randomUUID()}`);
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('names no session of this project; pass the next_before of the page before, or leave before out for the newest sessions.');
  });

  it("lists the sessions one trigger started, a page at a time, linked from the trigger's fires page", async () => {
    const other = await createProject(svc, { name: `Triggered ${Date.now()}` });
    const { account_id, created_by } = await svc.server.services.db.selectFrom('projects').select(['account_id', 'created_by']).where('id', '=', other.id).executeTakeFirstOrThrow();
    const start = Date.parse('2026-11-02T00:00:00.000Z');
    const slugs = [...Array.from({ length: 55 }, () => 'hourly'), null, null, 'daily'];
    const sessions = slugs.map((trigger_slug, i) => {
      const id = randomUUID();
      const at = new Date(start + i * 3_600_000).toISOString();
      return { id, project_id: other.id, account_id, status: 'stopped' as const, base_ref: 'main', branch: id, trigger_slug, created_by, created_at: at, updated_at: at };
    });
    await svc.server.services.db.insertInto('sessions').values(sessions).execute();
    const hourly = sessions.filter((session) => session.trigger_slug === 'hourly').reverse().map((session) => session.id.slice(0, 8));

    // One fire of the trigger, so that its fires page has something to show (the project has no manifest).
    const fired = sessions[54]!;
    await svc.server.services.db
      .insertInto('trigger_fires')
      .values({ id: randomUUID(), project_id: other.id, account_id, trigger_slug: 'hourly', source: 'cron', status: 'fired', session_id: fired.id, session_mode: 'fresh', target: 'new', prompt: 'Hourly', actor_user_id: created_by, fired_at: new Date().toISOString(), started_at: new Date().toISOString(), attempts: 1 })
      .execute();
    const fires = await (await fetch(`${svc.url}/projects/${other.slug}/triggers/hourly/fires`, { headers: { cookie } })).text();
    expect(fires).toContain(`<a href="/projects/${other.slug}/sessions?trigger=hourly">the sessions it started</a>`);

    const first = await page('?trigger=hourly', other);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`<p class="muted">Started by trigger <code>hourly</code>; <a href="/projects/${other.slug}/sessions">all 58 sessions</a></p>`);
    expect(first.listed).toEqual(hourly.slice(0, 50));
    // A trigger's sessions are a view of what it did: no form to start one here.
    expect(first.text).not.toContain('id="new-session"');
    expect(first.older).toBe(`/projects/${other.slug}/sessions?trigger=hourly&before=${sessions[5]!.id}`);

    const rest = await page(first.older!.slice(first.older!.indexOf('?')), other);
    expect(rest.listed).toEqual(hourly.slice(50));
    expect(rest.text).toContain('Started by trigger <code>hourly</code>, older ones');
    expect(rest.text).toContain(`<a class="chip" href="/projects/${other.slug}/sessions?trigger=hourly">Newest sessions</a>`);
    expect(rest.older).toBeNull();

    const none = await page('?trigger=weekly', other);
    expect(none.status).toBe(200);
    expect(none.listed).toEqual([]);
    expect(none.text).toContain('<p>Trigger <code>weekly</code> has started none.</p>');
  });
});
