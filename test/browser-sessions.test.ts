/**
 * Sessions in Chromium with the real agent runtime and a scripted model (one session for the file: starting
 * a sandbox is the expensive part). A person starts a session from a prompt, watches it run and its
 * conversation arrive (a tool call, the agent's text), sees the change request it opened, talks to it, requests
 * changes on the change request (the agent wakes to them and pushes a fix, which the page shows), merges it, and
 * stops and deletes the session; the page is whole without script after a reload. (Issue 23's loop as it starts
 * from a signed webhook is test/browser-loop.test.ts; here a person starts the session.) Refusals: a form without its token,
 * and a token without sessions.write, which sees no controls and is refused.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clone, bareGit, createProject, hostedRepoPath, removeTempDirs, withToken, type TestProject } from './support/change-request-fixtures.js';
import { scriptedRuntimeConfig } from './support/runtime-fixture.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { axeAcross, openPage, signedInBrowser } from './support/web-app-browser.js';

let svc: TestServer;
let model: ScriptedModel;
let browser: Browser;
let cookie: string;
let project: TestProject;

beforeAll(async () => {
  model = await startScriptedModel();
  svc = await startTestServer();
  project = await createProject(svc);
  const clone = await Clone.of(withToken(project.clone_url, svc.adminToken));
  clone.commit({ '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(model.baseUrl), null, 2), 'README.md': '# agents\n' }, 'Start');
  await clone.push('main');
  ({ browser, cookie } = await signedInBrowser(svc));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const session of await svc.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) {
    await svc.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
  }
  await svc?.close();
  await model?.close();
  removeTempDirs();
});

const sessionsPath = () => `/projects/${project.slug}/sessions`;

describe('sessions in Chromium', () => {
  it('starts a session from a prompt, follows it live, talks to it, requests changes that the agent pushes, merges, then stops and deletes it', async () => {
    model.push(
      { tool: 'bash', input: { command: 'echo hello > hello.txt && git add hello.txt && git commit -q -m "Add hello" && git push -q origin HEAD && svc cr open --title "Add hello"', description: 'Add hello and open a change request' } },
      { text: 'I added hello.txt and opened a change request.' },
    );
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}${sessionsPath()}`);
    await page.fill('#prompt', 'Add a hello file and open a change request.');
    await page.click('#new-session button[type=submit]');
    await page.waitForURL(new RegExp(`${sessionsPath()}/[0-9a-f-]{36}$`));
    const sessionUrl = page.url();
    // Status, the tool call and the agent's words arrive without the person reloading.
    await page.locator('[data-session-status] .badge:text-is("running")').waitFor({ timeout: 90_000 });
    await page.locator('.tool .tool-name:text-is("bash")').waitFor({ timeout: 90_000 });
    await page.locator('.turn-agent:has-text("I added hello.txt and opened a change request.")').waitFor({ timeout: 90_000 });
    expect(await page.locator('.turn-user').first().textContent()).toContain('Add a hello file and open a change request.');
    await page.locator('.tool summary').first().click();
    await expect(page.locator('.tool .tool-io').first().textContent()).resolves.toContain('svc cr open --title');

    // The page drawn again shows the change request of its branch and the whole conversation, without script.
    const plain = await browser.newContext({ javaScriptEnabled: false });
    await plain.addCookies([{ name: 'svc_session', value: cookie, url: svc.url }]);
    const still = await plain.newPage();
    await still.goto(sessionUrl);
    await expect(still.locator('.panel:has-text("Change requests from this session") .row-title').textContent()).resolves.toBe('Add hello');
    await expect(still.locator('.conversation').textContent()).resolves.toContain('I added hello.txt and opened a change request.');
    await plain.close();

    model.push({ text: 'Noted: keep it short.' });
    await page.fill('#message-text', 'Keep it short.');
    await Promise.all([page.waitForURL(/#message$/), page.click('#message button[type=submit]')]);
    // The reply arrives through the events stream: the page is not loaded again for it.
    let loads = 0;
    page.on('load', () => (loads += 1));
    await page.locator('.turn-agent:has-text("Noted: keep it short.")').waitFor({ timeout: 90_000 });
    expect(loads).toBe(0);

    // The loop: the person reads the change request, requests changes, the agent pushes a fix, the person merges.
    model.push(
      { tool: 'bash', input: { command: 'echo goodbye >> hello.txt && git commit -qam "Say goodbye" && git push -q origin HEAD', description: 'Say goodbye' } },
      { text: 'Pushed a fix that says goodbye.' },
    );
    await page.click('.panel:has-text("Change requests from this session") a.row-main');
    await page.locator('.df:has-text("hello.txt") tr.da:has-text("hello")').waitFor();
    const firstHead = await page.locator('.facts code').first().getAttribute('title');
    await page.fill('#feedback', 'Also say goodbye.');
    await page.click('#request-changes button[type=submit]');
    await page.locator('.feedback-list li:has-text("Also say goodbye.")').waitFor();
    const crUrl = page.url().split('#')[0] ?? '';
    const number = crUrl.split('/').pop();
    const deadline = Date.now() + 90_000;
    while ((await svc.request('GET', `/v1/projects/${project.id}/change-requests/${number}`)).body.change_request.head_commit_sha === firstHead) {
      if (Date.now() > deadline) throw new Error('the agent never pushed its fix');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await page.goto(crUrl);
    await expect(page.locator('.df:has-text("hello.txt")').textContent()).resolves.toContain('goodbye');
    await page.click('form[action$="/merge"] button');
    await page.locator('.page-head .badge:text-is("merged")').waitFor();
    expect(bareGit(hostedRepoPath(svc, project.id), ['show', 'main:hello.txt'])).toBe('hello\ngoodbye');
    await page.goto(sessionUrl);
    await page.locator('.turn-agent:has-text("Pushed a fix that says goodbye.")').waitFor({ timeout: 30_000 });
    await expect(page.locator('.conversation').textContent()).resolves.toContain('Also say goodbye.');

    await page.click('form[action$="/stop"] button');
    await page.locator('[data-session-status] .badge:text-is("stopped")').waitFor();
    await expect(page.locator('.conversation-note').textContent()).resolves.toContain('stopped');
    await page.click('form[action$="/delete"] button');
    await page.waitForURL(`${svc.url}${sessionsPath()}`);
    const id = new URL(sessionUrl).pathname.split('/').pop() ?? '';
    expect((await svc.request('GET', `/v1/projects/${project.id}/sessions/${id}`)).body.session.sandbox.state).toBe('archived');
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);

  it('refuses a message without the form token, and hides and refuses controls for a token without sessions.write', async () => {
    // A session that never starts its sandbox is enough here: stored as provisioning by the API.
    const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} });
    expect(created.status).toBe(201);
    const url = `${svc.url}${sessionsPath()}/${created.body.session.id}`;
    const forged = await fetch(`${url}/messages`, { method: 'POST', headers: { cookie: `svc_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'text=hi', redirect: 'manual' });
    expect(forged.status).toBe(403);
    const minted = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'watcher', capabilities: ['project.read'] } });
    const { context, page } = await openPage(browser, svc, { bearer: minted.body.token });
    await page.goto(url);
    await expect(page.locator('h1').textContent()).resolves.toContain(created.body.session.id.slice(0, 8));
    expect(await page.locator('#message, form[action$="/stop"], form[action$="/delete"]').count()).toBe(0);
    await page.goto(`${svc.url}${sessionsPath()}`);
    expect(await page.locator('#new-session').count()).toBe(0);
    await context.close();
    const refused = await fetch(`${url}/stop`, { method: 'POST', headers: { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '', redirect: 'manual' });
    expect(refused.status).toBe(403);
    await svc.request('DELETE', `/v1/projects/${project.id}/sessions/${created.body.session.id}`);
  });

  it('passes axe-core on the sessions list and a session page, in both themes and at phone width', async () => {
    const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} });
    expect(created.status).toBe(201);
    expect(await axeAcross(browser, svc, cookie, [sessionsPath(), `${sessionsPath()}/${created.body.session.id}`])).toEqual([]);
    await svc.request('DELETE', `/v1/projects/${project.id}/sessions/${created.body.session.id}`);
  }, 60_000);
});

