/**
 * A project's settings in Chromium: secrets (set, replace, delete; a reserved name refused where it was
 * typed), project tokens (created with chosen capabilities, shown once with a copy button, revoked) and
 * members; a member who is not a project admin sees no controls and is refused; the variables the manifest
 * expects, each with whether it is set.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { projectWithFiles, type TriggerProject } from './support/trigger-fixtures.js';
import { axeAcross, openPage, signInCookie, signedInBrowser } from './support/web-app-browser.js';

let svc: TestServer;
let browser: Browser;
let cookie: string;
let project: TestProject;
/** A project whose svc.yaml says which variables its sessions expect. */
let expecting: TriggerProject;

const settings = () => `${svc.url}/projects/${project.slug}/settings`;

beforeAll(async () => {
  svc = await startTestServer();
  project = await createProject(svc);
  expecting = await projectWithFiles(svc, `Expecting ${Date.now()}`, {
    'svc.yaml': 'env:\n  - name: GITHUB_WEBHOOK_SECRET\n    required: true\n    description: signs <GitHub> deliveries\n  - DEPLOY_KEY\n',
  });
  ({ browser, cookie } = await signedInBrowser(svc));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('project settings in Chromium', () => {
  it('sets, replaces and deletes a secret, and refuses a reserved name where it was typed', async () => {
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await page.goto(settings());
    await page.fill('#secret-name', 'SVC_TOKEN');
    await page.fill('#secret-value', 'x');
    await page.click('#secrets button:text-is("Set secret")');
    await expect(page.locator('#secrets .form-error').textContent()).resolves.toContain('The prefix SVC_ is reserved');
    await expect(page.locator('#secret-name').inputValue()).resolves.toBe('SVC_TOKEN');
    await page.fill('#secret-name', 'DEPLOY_KEY');
    await page.fill('#secret-value', 'first');
    // Each set redirects back to the settings: read the page it lands on, not the one it leaves.
    await Promise.all([page.waitForEvent('load'), page.click('#secrets button:text-is("Set secret")')]);
    await page.fill('#secret-name', 'DEPLOY_KEY');
    await page.fill('#secret-value', 'second');
    await Promise.all([page.waitForEvent('load'), page.click('#secrets button:text-is("Set secret")')]);
    expect(await page.locator('#secrets td code').allTextContents()).toEqual(['DEPLOY_KEY']);
    const stored = await svc.server.services.db.selectFrom('secrets').selectAll().where('project_id', '=', project.id).execute();
    expect(stored.map((row) => row.name)).toEqual(['DEPLOY_KEY']);
    // The value never comes back to the page.
    expect(await page.content()).not.toContain('second');
    await page.click('#secrets form[action$="/secrets/delete"] button');
    await expect(page.locator('#secrets').textContent()).resolves.toContain('No secrets yet.');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates a token with chosen capabilities, shows it once with a copy button, and revokes it', async () => {
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.goto(settings());
    await page.fill('#token-name', 'ci');
    await page.check('input[name=capabilities][value="project.write"]');
    await page.click('#tokens button:text-is("Create token")');
    const token = (await page.locator('.new-token pre').textContent()) ?? '';
    expect(token).toMatch(/^svc_p_/);
    await page.click('.new-token [data-copy]');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    const works = await svc.request('GET', `/v1/projects/${project.id}/change-requests`, { token });
    expect(works.status).toBe(200);
    await expect(page.locator('#tokens tbody tr').textContent()).resolves.toContain('project.write');
    await page.goto(settings());
    expect(await page.content()).not.toContain(token);
    await page.click('#tokens form[action$="/tokens/revoke"] button');
    await expect(page.locator('#tokens').textContent()).resolves.toContain('No project tokens.');
    expect((await svc.request('GET', `/v1/projects/${project.id}/change-requests`, { token })).status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('adds a member, who sees the members but no controls and is refused', async () => {
    const user = await svc.request('POST', '/v1/users', { body: { name: `ada-${Date.now()}`, password: 'correct horse battery' } });
    expect(user.status).toBe(201);
    const { context, page } = await openPage(browser, svc, { cookie });
    await page.goto(settings());
    await page.fill('#member-user', user.body.user.name);
    await page.click('#members button:text-is("Add or change member")');
    await expect(page.locator('#members tbody').textContent()).resolves.toContain(user.body.user.name);
    await context.close();

    const memberCookie = await signInCookie(svc, user.body.token);
    const member = await openPage(browser, svc, { cookie: memberCookie });
    await member.page.goto(settings());
    await expect(member.page.locator('.notice').textContent()).resolves.toContain('Only admins');
    expect(await member.page.locator('#secrets, #tokens, #members form').count()).toBe(0);
    // The form token of the member's own session (from a page where they have a form), so only access is refused.
    const html = await (await fetch(`${svc.url}/projects/${project.slug}/sessions`, { headers: { cookie: `svc_session=${memberCookie}` } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(csrf).not.toBe('');
    const refused = await fetch(`${settings()}/secrets`, {
      method: 'POST',
      headers: { cookie: `svc_session=${memberCookie}`, 'content-type': 'application/x-www-form-urlencoded', origin: svc.url },
      body: new URLSearchParams({ _csrf: csrf, name: 'X', value: 'y' }).toString(),
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('not one of its admins');
    await member.context.close();
  });

  it('lists the variables the manifest expects, each with whether its secret is set', async () => {
    expect((await svc.request('PUT', `/v1/projects/${expecting.id}/secrets/DEPLOY_KEY`, { body: { value: 'k' } })).status).toBeLessThan(300);
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}/projects/${expecting.slug}/settings`);
    await expect(page.locator('#secrets h3').textContent()).resolves.toBe('Expected by svc.yaml');
    const rows = await page.locator('#secrets table.expected-env tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual([
      ['GITHUB_WEBHOOK_SECRET', 'required', 'signs <GitHub> deliveries', 'not set'],
      ['DEPLOY_KEY', 'optional', '', 'set'],
    ]);
    expect(errors).toEqual([]);
    await context.close();
    // A project without a manifest has no such table.
    expect((await svc.request('GET', `/projects/${project.slug}/settings`)).text).not.toContain('expected-env');
  });

  it('passes axe-core in both themes and at phone width', async () => {
    expect(await axeAcross(browser, svc, cookie, ['/projects/' + project.slug + '/settings', '/projects/' + expecting.slug + '/settings'])).toEqual([]);
  }, 60_000);
});
