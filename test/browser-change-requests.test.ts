/**
 * Change requests in Chromium: the projects list and overview, the CR list, a CR's page (merge preview,
 * diff with tree, colour, views, collapsed files, anchors) and its actions with their refusals: a token
 * without merge rights sees no Merge button and is refused, and a form without its token is refused.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clone, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { axeAcross, closeBrowserAndServer, openPage, signedInBrowser } from './support/web-app-browser.js';

let svc: TestServer;
let browser: Browser;
let cookie: string;
let project: TestProject;
let clone: Clone;

/** A branch cut from the first commit of main with `files` committed, pushed; each test has its own. */
async function pushBranch(name: string, files: Record<string, string>): Promise<string> {
  clone.git(['checkout', '--quiet', '-b', name, 'initial-main']);
  clone.commit(files, name);
  await clone.push(name);
  return name;
}

async function openCr(head: string, title: string): Promise<number> {
  const response = await svc.request('POST', `/v1/projects/${project.id}/change-requests`, { body: { title, head_ref: head, description: `Why: ${title}` } });
  expect(response.status).toBe(201);
  return response.body.change_request.number as number;
}

const crPath = (number: number, rest = '') => `/projects/${project.slug}/change-requests/${number}${rest}`;

beforeAll(async () => {
  svc = await startTestServer();
  ({ project, clone } = await projectWithClone(svc, { 'README.md': 'hello\n', 'src/app.ts': 'export const answer = 41;\n' }));
  clone.git(['tag', 'initial-main']);
  ({ browser, cookie } = await signedInBrowser(svc));
}, 60_000);

afterAll(async () => {
  await closeBrowserAndServer(browser, svc);
  removeTempDirs();
});

describe('change requests in Chromium', () => {
  it('lands on the projects, opens the overview and the list, and shows a CR with its preview and diff', async () => {
    const head = await pushBranch('answer', { 'src/app.ts': 'export const answer = 42;\nexport function greet(name: string): string {\n  return `hi ${name}`;\n}\n', 'package-lock.json': '{\n  "lockfileVersion": 3\n}\n' });
    const number = await openCr(head, 'Answer the question');
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}/`);
    await page.click(`a.card:has-text("${project.slug}")`);
    expect(new URL(page.url()).pathname).toBe(`/projects/${project.slug}`);
    await page.click('a.row-main:has-text("Answer the question")');
    expect(new URL(page.url()).pathname).toBe(crPath(number));
    await expect(page.locator('h1').textContent()).resolves.toContain('Answer the question');
    // A fast-forward while main has not moved; a clean merge once another test merged into it.
    await expect(page.locator('.preview').textContent()).resolves.toMatch(/^(Fast-forward|Merges cleanly)\./);
    // The tree lists both files; the code is coloured; the lock file is generated, so it starts collapsed.
    expect(await page.locator('.tree a.tree-file').allTextContents()).toEqual(['app.ts', 'package-lock.json']);
    const source = page.locator('.df:has-text("src/app.ts")');
    expect(await source.locator('details').getAttribute('open')).toBe('');
    expect(await source.locator('.hljs-keyword').count()).toBeGreaterThan(0);
    await expect(source.locator('tr.da').first().textContent()).resolves.toContain('export const answer = 42;');
    expect(await page.locator('.df:has-text("package-lock.json") details').getAttribute('open')).toBeNull();
    // Each file has an anchor; following it scrolls to the file.
    const anchor = await source.getAttribute('id');
    await page.click(`.tree a[href="#${anchor}"]`);
    expect(new URL(page.url()).hash).toBe(`#${anchor}`);
    // Side by side puts the old line beside the new one.
    await page.click('a.chip:has-text("Side by side")');
    const pair = page.locator('.dt-split tr:has(td.side.dd)').first();
    await expect(pair.locator('td.side.dd').textContent()).resolves.toContain('answer = 41');
    await expect(pair.locator('td.side.da').textContent()).resolves.toContain('answer = 42');
    // The list filters by status.
    await page.goto(`${svc.url}/projects/${project.slug}/change-requests?status=merged`);
    expect(await page.locator('a.row-main:has-text("Answer the question")').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('requests changes, closes, reopens and merges, each answered on the page', async () => {
    const head = await pushBranch('merge-me', { 'docs/merge.md': 'merged\n' });
    const number = await openCr(head, 'Merge me');
    const { context, page, errors, dialogs } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}${crPath(number)}`);
    await page.fill('#feedback', 'Name the constant');
    await page.click('#request-changes button[type=submit]');
    await expect(page.locator('.feedback-list').textContent()).resolves.toContain('Name the constant');
    await page.click('form[action$="/close"] button');
    await page.locator('.page-head .badge:text-is("closed")').waitFor();
    expect(await page.locator('form[action$="/merge"]').count()).toBe(0);
    await page.click('form[action$="/reopen"] button');
    await page.locator('.page-head .badge:text-is("open")').waitFor();
    await page.click('form[action$="/merge"] button');
    await page.locator('.page-head .badge:text-is("merged")').waitFor();
    expect(dialogs).toEqual([`Merge #${number} into main?`]);
    await clone.fetch();
    expect(clone.git(['show', 'origin/main:docs/merge.md'])).toBe('merged');
    // A merged CR has no actions left, and its diff is the captured one.
    expect(await page.locator('.actions form').count()).toBe(0);
    expect(await page.locator('.tree a.tree-file').allTextContents()).toEqual(['merge.md']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('lets a keyboard alone request changes and merge', async () => {
    const number = await openCr(await pushBranch('keyboard', { 'docs/keyboard.md': 'typed\n' }), 'By keyboard');
    const { context, page } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}${crPath(number)}`);
    /** Tabs forward until `selector` has the focus (at most 60 stops). */
    const tabTo = async (selector: string) => {
      for (let stop = 0; stop < 60; stop += 1) {
        if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await tabTo('#feedback');
    await page.keyboard.type('Say why');
    await tabTo('#request-changes button');
    await page.keyboard.press('Enter');
    await page.locator('.feedback-list li:has-text("Say why")').waitFor();
    await tabTo('form[action$="/merge"] button');
    await page.keyboard.press('Enter');
    await page.locator('.page-head .badge:text-is("merged")').waitFor();
    await context.close();
  });

  it('shows the conflicting paths in the preview and the merge error where Merge was pressed', async () => {
    const first = await openCr(await pushBranch('clash', { 'README.md': 'clash side\n' }), 'Clash');
    const second = await openCr(await pushBranch('other', { 'README.md': 'other side\n' }), 'Other');
    // The preview the open page asks for again changes once base moves under it.
    const preview = async () => (await fetch(`${svc.url}${crPath(second, '/merge-preview')}`, { headers: { cookie: `svc_session=${cookie}` } })).text();
    expect(await preview()).toMatch(/Fast-forward|Merges cleanly/);
    expect((await svc.request('POST', `/v1/projects/${project.id}/change-requests/${first}/merge`, { body: {} })).status).toBe(200);
    expect(await preview()).toContain('Conflicts with main');
    const { context, page } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}${crPath(second)}`);
    await expect(page.locator('.preview').textContent()).resolves.toContain('Conflicts with main');
    expect(await page.locator('.preview code').allTextContents()).toEqual(['README.md']);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/merge')), page.click('form[action$="/merge"] button')]);
    expect(answer.status()).toBe(409);
    const error = page.locator('#actions .form-error');
    await expect(error.textContent()).resolves.toContain('resolve the conflicts before merging');
    await expect(error.textContent()).resolves.toContain('Conflicting file: README.md');
    await context.close();
  });

  it('refuses to merge an invalid manifest and lists its issues beside Merge', async () => {
    const yaml = 'triggers:\n  - slug: nightly\n    type: cron\n    cron: "every night"\n    prompt: p\n';
    const number = await openCr(await pushBranch('bad-manifest', { 'svc.yaml': yaml }), 'Bad manifest');
    const { context, page } = await openPage(browser, svc, { cookie });
    await page.goto(`${svc.url}${crPath(number)}`);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/merge')), page.click('form[action$="/merge"] button')]);
    expect(answer.status()).toBe(422);
    const error = page.locator('#actions .form-error');
    await expect(error.textContent()).resolves.toContain('svc.yaml');
    await expect(error.locator('li').allTextContents()).resolves.toEqual(expect.arrayContaining([expect.stringMatching(/^\/triggers\/0\/cron: /)]));
    await page.locator('.page-head .badge:text-is("open")').waitFor();
    await context.close();
  });

  it('hides Merge from a token without merge rights, and the route refuses it', async () => {
    const number = await openCr(await pushBranch('not-yours', { 'docs/not-yours.md': 'x\n' }), 'Not yours to merge');
    const minted = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'reviewer', capabilities: ['project.read', 'project.write', 'project.gitops.push'] } });
    expect(minted.status).toBe(201);
    const { context, page } = await openPage(browser, svc, { bearer: minted.body.token });
    await page.goto(`${svc.url}${crPath(number)}`);
    await expect(page.locator('h1').textContent()).resolves.toContain('Not yours to merge');
    expect(await page.locator('form[action$="/merge"]').count()).toBe(0);
    expect(await page.locator('form[action$="/close"]').count()).toBe(1);
    await context.close();
    const refused = await fetch(`${svc.url}${crPath(number, '/merge')}`, { method: 'POST', headers: { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '', redirect: 'manual' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('project.gitops.merge');
    expect((await svc.request('GET', `/v1/projects/${project.id}/change-requests/${number}`)).body.change_request.status).toBe('open');
  });

  it('refuses a form post without the page’s token or from another site', async () => {
    const number = await openCr(await pushBranch('forged', { 'docs/forged.md': 'x\n' }), 'Forged');
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${svc.url}${crPath(number, '/close')}`, { method: 'POST', headers: { cookie: `svc_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString(), redirect: 'manual' });
    const page = await (await fetch(`${svc.url}${crPath(number)}`, { headers: { cookie: `svc_session=${cookie}` } })).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(token).not.toBe('');
    const missing = await post({});
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain('reload the page and send it again');
    expect((await post({ _csrf: 'x'.repeat(token.length) })).status).toBe(403);
    expect((await post({ _csrf: token }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await svc.request('GET', `/v1/projects/${project.id}/change-requests/${number}`)).body.change_request.status).toBe('open');
    const sent = await post({ _csrf: token }, { origin: svc.url });
    expect(sent.status).toBe(303);
    expect((await svc.request('GET', `/v1/projects/${project.id}/change-requests/${number}`)).body.change_request.status).toBe('closed');
  });

  it('sends a visitor to sign in and back, and answers an unknown project or change request with a 404 page', async () => {
    const visitor = await fetch(`${svc.url}${crPath(1)}`, { redirect: 'manual' });
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get('location')).toBe(`/login?next=${encodeURIComponent(crPath(1))}`);
    for (const route of ['/projects/no-such-project', `/projects/${project.slug}/change-requests/9999`]) {
      const missing = await fetch(`${svc.url}${route}`, { headers: { cookie: `svc_session=${cookie}` } });
      expect(missing.status).toBe(404);
      const html = await missing.text();
      expect(html).toContain('<a class="btn" href="/">Your projects</a>');
    }
  });

  it('passes axe-core on the projects, overview, list and CR pages, in both themes and at phone width', async () => {
    const number = await openCr(await pushBranch('accessible', { 'src/accessible.ts': 'export const a = 1;\n', 'README.md': 'changed\n' }), 'Accessible');
    const found = await axeAcross(browser, svc, cookie, ['/', `/projects/${project.slug}`, `/projects/${project.slug}/change-requests`, crPath(number), `${crPath(number)}?view=split`]);
    expect(found).toEqual([]);
  }, 120_000);
});
