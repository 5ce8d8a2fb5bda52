/**
 * Triggers in Chromium: a project whose manifest declares a cron trigger (in a zone), a webhook trigger and a
 * bad entry. The overview lists the triggers with their next fire; the Triggers page shows each one's schedule,
 * zone, next and last fire, the bad entry's error, and Fire now, whose fire appears with the session it started.
 * Refusals: a token without triggers.fire sees no button and is refused, and a form without its token is refused.
 * The runtime is an idle process: sessions reach their sandbox and no agent works, which is all the page needs.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, type TriggerProject } from './support/trigger-fixtures.js';
import { axeAcross, closeBrowserAndServer, openPage, signedInBrowser } from './support/web-app-browser.js';

const MANIFEST = `
triggers:
  - slug: paris-morning
    name: Paris morning
    type: cron
    cron: "0 0 9 * * 1-5"
    timezone: Europe/Paris
    prompt: Good morning
  - slug: gh
    type: webhook
    secret_env: GH_SECRET
    prompt: "Asked by hand: {{ message.text }} ({{ message.source }})"
  - slug: bad-zone
    type: cron
    cron: "0 0 9 * * *"
    timezone: Mars/Olympus_Mons
    prompt: never
`;

let svc: TestServer;
let browser: Browser;
let cookie: string;
let project: TriggerProject;

const triggersPath = () => `/projects/${project.slug}/triggers`;

async function firesOf(slug: string): Promise<Array<{ source: string; status: string; session_id: string | null }>> {
  const response = await svc.request('GET', `/v1/projects/${project.id}/triggers/${slug}/fires`);
  expect(response.status).toBe(200);
  return response.body.fires;
}

beforeAll(async () => {
  // The scheduler's interval is long so that only Fire now fires; one session slot for the idle runtime.
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_TRIGGER_SCHEDULER_INTERVAL_MS: '600000' } });
  project = await projectWithFiles(svc, `Triggers page ${Date.now()}`, { 'svc.yaml': MANIFEST });
  ({ browser, cookie } = await signedInBrowser(svc));
}, 60_000);

afterAll(async () => {
  await closeBrowserAndServer(browser, svc);
  removeTempDirs();
});

describe('triggers in Chromium', () => {
  it('lists the triggers on the overview and shows each with its schedule, zone, fires and the manifest’s errors', async () => {
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}/projects/${project.slug}`);
    const panel = page.locator('section.panel:has(h2:has-text("Triggers"))');
    await expect(panel.locator('.row-title').allTextContents()).resolves.toEqual(['Paris morning', 'gh', '1 manifest entry could not be read']);
    await expect(panel.locator('.row-sub').first().textContent()).resolves.toMatch(/^At 09:00, Monday through Friday \(cron 0 0 9 \* \* 1-5\) in Europe\/Paris · next .*\((Mon|Tue|Wed|Thu|Fri)\b.* 09:00 (CET|CEST|GMT\+1|GMT\+2)\)$/);
    await panel.locator('a.panel-more').click();
    expect(new URL(page.url()).pathname).toBe(triggersPath());
    expect(await page.locator('.tab[aria-current="page"]').textContent()).toBe('Triggers');
    await expect(page.locator('.page-head p').textContent()).resolves.toMatch(/^From svc\.yaml on main at [0-9a-f]{8}$/);

    const cron = page.locator('#trigger-paris-morning');
    await expect(cron.locator('h2').textContent()).resolves.toBe('Paris morning paris-morning cron');
    const facts = Object.fromEntries(await cron.locator('.facts > div').evaluateAll((items) => items.map((item) => [item.querySelector('dt')?.textContent, item.querySelector('dd')?.textContent])));
    expect(facts.Schedule).toBe('At 09:00, Monday through Friday · 0 0 9 * * 1-5 in Europe/Paris');
    expect(facts['Next fire']).toMatch(/\((Mon|Tue|Wed|Thu|Fri)\b.* 09:00 (CET|CEST|GMT\+1|GMT\+2)\)$/);
    expect(facts['Last fire']).toBe('Never');
    await expect(cron.textContent()).resolves.toContain('No fires in the last 30 days.');

    const webhook = page.locator('#trigger-gh');
    // (Its last fire depends on whether the Fire now test ran first.)
    const webhookFacts = await webhook.locator('.facts dd').allTextContents();
    expect(webhookFacts.slice(0, 2)).toEqual(['On each signed webhook delivery', 'When a delivery arrives']);
    // Where to point the sender, and the secret that signs; GH_SECRET is not set yet, so the page says what that means.
    await expect(webhook.locator('.webhook-receiver code').first().textContent()).resolves.toBe(`${svc.url}/v1/webhooks/projects/${project.id}/gh`);
    await expect(webhook.locator('.webhook-receiver').textContent()).resolves.toContain('it signs each body with the secret GH_SECRET (HMAC-SHA256 in X-Hub-Signature-256 or X-Svc-Signature)');
    await expect(webhook.locator('.secret-unset').textContent()).resolves.toBe(
      `The secret GH_SECRET is not set, so every delivery is refused (409) until it is: set it in Settings or with svc secret set GH_SECRET --project ${project.slug}.`,
    );
    expect(await webhook.locator('.secret-unset a').getAttribute('href')).toBe(`/projects/${project.slug}/settings#secrets`);
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/GH_SECRET`, { body: { value: 'a webhook secret' } })).status).toBe(201);
    await page.reload();
    expect(await page.locator('#trigger-gh .secret-unset').count()).toBe(0);
    await expect(page.locator('#trigger-gh .webhook-receiver').textContent()).resolves.toContain('the secret GH_SECRET');

    const bad = page.locator('.manifest-errors li');
    expect(await bad.count()).toBe(1);
    await expect(bad.textContent()).resolves.toMatch(/^trigger "bad-zone" \(entry 3\): timezone "Mars\/Olympus_Mons" is not an IANA time zone name/);
    expect(await page.locator('form.fire-now').count()).toBe(2);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fires a trigger now with a message and shows the fire with the session it started', async () => {
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}${triggersPath()}`);
    await page.fill('#fire-message-gh', 'ship <the> fix');
    await page.click('#trigger-gh form.fire-now button[type=submit]');
    await page.waitForURL(`${svc.url}${triggersPath()}#trigger-gh`);
    const fire = page.locator('#trigger-gh li.fire');
    expect(await fire.count()).toBe(1);
    await expect(fire.locator('.badge').textContent()).resolves.toBe('fired');
    await expect(fire.locator('.row-title').textContent()).resolves.toMatch(/^manual · session [0-9a-f]{8}$/);
    expect(await page.locator('#trigger-gh .facts dd').nth(2).textContent()).not.toBe('Never');
    const [recorded] = await firesOf('gh');
    expect(recorded).toMatchObject({ source: 'manual', status: 'fired', session_id: expect.any(String) });
    // The fire's session is linked; its page names the trigger and holds the prompt with the message.
    await fire.locator('a').click();
    expect(new URL(page.url()).pathname).toBe(`/projects/${project.slug}/sessions/${recorded?.session_id}`);
    await expect(page.locator('.page-head .meta').textContent()).resolves.toContain('trigger gh');
    await expect(page.locator('#conversation').textContent()).resolves.toContain('Asked by hand: ship <the> fix (dashboard)');
    // The trigger's fires page shows the same prompt, folded until asked for.
    await page.goto(`${svc.url}${triggersPath()}/gh/fires`);
    const prompt = page.locator('li.fire details.fire-prompt');
    expect(await prompt.locator('pre').isVisible()).toBe(false);
    await prompt.locator('summary').click();
    await expect(prompt.locator('pre').textContent()).resolves.toBe('Asked by hand: ship <the> fix (dashboard)');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('hides Fire now from a token without triggers.fire, and the route refuses it', async () => {
    const minted = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'watcher', capabilities: ['project.read'] } });
    expect(minted.status).toBe(201);
    const { context, page } = await openPage(browser, svc, { bearer: minted.body.token });
    await page.goto(`${svc.url}${triggersPath()}`);
    await page.locator('#trigger-paris-morning').waitFor();
    expect(await page.locator('form.fire-now').count()).toBe(0);
    await context.close();
    const refused = await fetch(`${svc.url}${triggersPath()}/paris-morning/fire`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'message=hi',
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('triggers.fire');
    expect(await firesOf('paris-morning')).toEqual([]);
  });

  it('refuses a Fire now form without the page’s token or from another site', async () => {
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${svc.url}${triggersPath()}/paris-morning/fire`, { method: 'POST', headers: { cookie: `svc_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString(), redirect: 'manual' });
    const html = await (await fetch(`${svc.url}${triggersPath()}`, { headers: { cookie: `svc_session=${cookie}` } })).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(token).not.toBe('');
    const missing = await post({ message: 'forged' });
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain('reload the page and send it again');
    expect((await post({ _csrf: token, message: 'forged' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await firesOf('paris-morning')).toEqual([]);
    // A trigger no longer in the manifest is the page's own 404.
    const unknown = await fetch(`${svc.url}${triggersPath()}/no-such/fire`, { method: 'POST', headers: { cookie: `svc_session=${cookie}`, origin: svc.url, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: token }).toString(), redirect: 'manual' });
    expect(unknown.status).toBe(404);
  });

  it('passes axe-core on the overview, the Triggers page and a fires page, in both themes and at phone width', async () => {
    // A trigger since removed from the manifest: its fires stay listed on its fires page.
    const db = svc.server.services.db;
    const { account_id, created_by } = await db.selectFrom('projects').select(['account_id', 'created_by']).where('id', '=', project.id).executeTakeFirstOrThrow();
    const at = new Date(Date.now() - 3_600_000).toISOString();
    await db
      .insertInto('trigger_fires')
      .values({ id: randomUUID(), project_id: project.id, account_id, trigger_slug: 'retired', source: 'cron', status: 'fired', session_mode: 'fresh', target: 'new', prompt: 'Weekly review', actor_user_id: created_by, fired_at: at, due_at: at, started_at: at, attempts: 1 })
      .execute();
    expect(await axeAcross(browser, svc, cookie, [`/projects/${project.slug}`, triggersPath(), `${triggersPath()}/retired/fires`])).toEqual([]);
  }, 60_000);
});
