/**
 * A trigger's fires in the web UI, on each database: the Triggers page lists the newest five and links to the
 * older ones, which are a page of their own, 50 at a time and newest first, each with the prompt it gave its
 * session, back 30 days. The fires are written straight into the database (started, as a dispatched fire is):
 * firing a trigger 60 times would test the scheduler, not the pages.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInCookie } from './support/web-app-browser.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { projectWithFiles, type TriggerProject } from './support/trigger-fixtures.js';

let svc: TestServer;
let project: TriggerProject;
let cookie: string;

const MANIFEST = 'triggers:\n  - slug: nightly\n    type: cron\n    cron: "0 0 3 1 1 *"\n    timezone: Europe/Berlin\n    prompt: "Review {{ fired_at }}"\n';

beforeAll(async () => {
  svc = await startTestServer();
  project = await projectWithFiles(svc, 'Fire history', { 'svc.yaml': MANIFEST });
  cookie = `svc_session=${await signInCookie(svc, svc.adminToken)}`;
  const listed = await svc.request('GET', `/v1/projects/${project.id}/triggers`);
  expect(listed.body.triggers.map((trigger: { slug: string }) => trigger.slug)).toEqual(['nightly']);
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

interface Page {
  status: number;
  text: string;
  /** The fires listed, by the prompt each gave its session. */
  prompts: string[];
  older: string | null;
  newest: boolean;
}

async function page(path: string): Promise<Page> {
  const response = await fetch(`${svc.url}${path}`, { headers: { cookie } });
  const text = await response.text();
  const older = /<a class="chip"(?: rel="next")? href="([^"]+)">Older fires<\/a>/.exec(text)?.[1] ?? null;
  return {
    status: response.status,
    text,
    prompts: [...text.matchAll(/<pre class="tool-io">([^<]*)<\/pre>/g)].map((match) => match[1]!),
    older: older?.replaceAll('&amp;', '&') ?? null,
    newest: text.includes(`<a class="chip" href="/projects/${project.slug}/triggers/nightly/fires">Newest fires</a>`),
  };
}

describe(`a trigger's fires in the web UI on ${testDialect}`, () => {
  it('links from the recent fires to the older ones, 50 a page, each with its prompt, back 30 days', async () => {
    const db = svc.server.services.db;
    const { account_id, created_by } = await db.selectFrom('projects').select(['account_id', 'created_by']).where('id', '=', project.id).executeTakeFirstOrThrow();
    const start = Date.now() - 10 * 86_400_000;
    // Oldest first, every hour; two share each instant, so the order within one is the id's.
    const fires = Array.from({ length: 60 }, (_, i) => {
      const at = new Date(start + Math.floor(i / 2) * 3_600_000).toISOString();
      return {
        id: randomUUID(),
        project_id: project.id,
        account_id,
        trigger_slug: 'nightly',
        source: 'cron' as const,
        status: 'fired' as const,
        session_id: null,
        session_mode: 'fresh',
        target: 'new' as const,
        fallback: null,
        // The one waiting fire says why, in words a person can act on; every string reaches the page escaped.
        reason: i === 59 ? 'the account has 1 sessions <running>, its limit' : null,
        prompt: `Review #${i} <b>&</b>`,
        agent: null,
        model: null,
        actor_user_id: created_by,
        delivery_id: null,
        fired_at: at,
        due_at: new Date(Date.parse(at) - 400).toISOString(),
        started_at: at,
        claimed_by: null,
        claimed_until: null,
        attempts: 1,
      };
    });
    // Older than the 30 days fires are kept: never listed, even before the dispatch task deletes it.
    const expired = { ...fires[0]!, id: randomUUID(), prompt: 'Review expired', fired_at: new Date(Date.now() - 40 * 86_400_000).toISOString(), due_at: null };
    await db.insertInto('trigger_fires').values([...fires, expired]).execute();
    const newestFirst = [...fires].sort((a, b) => b.fired_at.localeCompare(a.fired_at) || b.id.localeCompare(a.id));
    const escapedPrompt = (fire: { prompt: string }) => fire.prompt.replace('<b>&</b>', '&lt;b&gt;&amp;&lt;/b&gt;');

    // The Triggers page: the newest five, and where the rest continue.
    const triggers = await page(`/projects/${project.slug}/triggers`);
    expect(triggers.status).toBe(200);
    expect(triggers.text.match(/<li class="row fire">/g)).toHaveLength(5);
    expect(triggers.text).toContain('the account has 1 sessions &lt;running&gt;, its limit');
    expect(triggers.older).toBe(`/projects/${project.slug}/triggers/nightly/fires?before=${newestFirst[4]!.id}`);

    const continued = await page(triggers.older!);
    expect(continued.status).toBe(200);
    expect(continued.prompts).toEqual(newestFirst.slice(5, 55).map(escapedPrompt));
    expect(continued.text).toContain('<h1>Fires of <code>nightly</code></h1>');
    expect(continued.text).toContain('Newest first, back 30 days, older ones');
    expect(continued.newest).toBe(true);

    const first = await page(`/projects/${project.slug}/triggers/nightly/fires`);
    expect(first.prompts).toEqual(newestFirst.slice(0, 50).map(escapedPrompt));
    expect(first.newest).toBe(false);
    // A cron fire says how long after its slot it fired.
    expect(first.text).toContain(`<time datetime="${newestFirst[0]!.fired_at}" data-relative>`);
    expect(first.text).toContain('</time> · 400 ms after its slot</span>');
    expect(first.older).toBe(`/projects/${project.slug}/triggers/nightly/fires?before=${newestFirst[49]!.id}`);

    const last = await page(first.older!);
    expect(last.prompts).toEqual(newestFirst.slice(50).map(escapedPrompt));
    expect(last.text).not.toContain('Review expired');
    expect(last.older).toBeNull();
    expect(last.newest).toBe(true);

    // Past the oldest kept fire: an empty page that says why, not an error.
    const past = await page(`/projects/${project.slug}/triggers/nightly/fires?before=${newestFirst[59]!.id}`);
    expect(past.status).toBe(200);
    expect(past.text).toContain('The fires before these are older than 30 days, and svc no longer keeps them.');
  });

  it("shows a webhook fire's delivery id as its sender lists it, and keeps listing the fires of a trigger since removed", async () => {
    const db = svc.server.services.db;
    const { account_id, created_by } = await db.selectFrom('projects').select(['account_id', 'created_by']).where('id', '=', project.id).executeTakeFirstOrThrow();
    const delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
    const fire = (status: 'fired' | 'duplicate', secondsAgo: number) => {
      const at = new Date(Date.now() - secondsAgo * 1000).toISOString();
      return { id: randomUUID(), project_id: project.id, account_id, trigger_slug: 'gh', source: 'webhook' as const, status, session_mode: 'fresh', target: 'new' as const, prompt: status === 'fired' ? 'opened #7' : '', actor_user_id: created_by, delivery_id: status === 'fired' ? delivery : null, fired_at: at, started_at: at, attempts: 1 };
    };
    await db.insertInto('trigger_fires').values([fire('fired', 60), fire('duplicate', 30)]).execute();

    // `gh` is not in the manifest (any more): its fires are still there to read.
    const fires = await page(`/projects/${project.slug}/triggers/gh/fires`);
    expect(fires.status).toBe(200);
    // The duplicate started nothing: no prompt to show.
    expect(fires.prompts).toEqual(['opened #7']);
    expect(fires.text.match(/<details/g)).toHaveLength(1);
    expect(fires.text).toContain(`</time> · delivery ${delivery}</span>`);
    expect(fires.text).toMatch(/<li class="row fire">.*?>duplicate<\/span><\/li><li class="row fire">.*?>fired<\/span><\/li>/);
    expect(fires.text).not.toContain('after its slot');
  });

  it('answers an address that names no fire of the trigger with a 400, and a trigger that does not exist with a 404', async () => {
    const wrong = await page(`/projects/${project.slug}/triggers/nightly/fires?before=${randomUUID()}`);
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('names no fire of trigger &quot;nightly&quot;; pass the next_before of the page before, or leave before out for the newest fires.');

    const missing = await page(`/projects/${project.slug}/triggers/weekly/fires`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No trigger &quot;weekly&quot; in the manifest on main');
  });
});
