/**
 * A reply the model refused: the real agent runtime, pointed at a model server that answers 401 as OpenAI does,
 * records the failure on its assistant message and writes no part. `svc session logs`, the session page and
 * svc's copy of a stopped session's conversation all say why the agent said nothing, and with which model.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSessionLogs } from '../src/cli/session/logs.js';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { adminCliEnv, captureDeps } from './support/cli-harness.js';
import { scriptedRuntimeConfig } from './support/runtime-fixture.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { projectWithFiles, until, type TriggerProject } from './support/trigger-fixtures.js';
import { axeAcross, closeBrowserAndServer, openPage, signedInBrowser } from './support/web-app-browser.js';

/** OpenAI's answer to a wrong key, status and body as its API sends them. */
const REFUSAL = { error: { message: 'Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };

let svc: TestServer;
let modelServer: http.Server;
let modelUrl: string;
let project: TriggerProject;
let browser: Browser;
let cookie: string;
/** While set, the model server holds every request until it settles (a page opened before the reply fails). */
let hold: Promise<void> | null = null;
let held = 0;

beforeAll(async () => {
  modelServer = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      held += 1;
      void (hold ?? Promise.resolve()).then(() => {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify(REFUSAL));
      });
    });
  });
  await new Promise<void>((resolve) => modelServer.listen(0, '127.0.0.1', resolve));
  modelUrl = `http://127.0.0.1:${(modelServer.address() as AddressInfo).port}/v1`;
  svc = await startTestServer();
  ({ browser, cookie } = await signedInBrowser(svc));
  project = await projectWithFiles(svc, `Model errors ${Date.now()}`, { '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(modelUrl, 'gpt-test'), null, 2) });
});
afterAll(async () => {
  await closeBrowserAndServer(browser, svc);
  await new Promise((resolve) => modelServer.close(resolve));
  removeTempDirs();
});

describe(`a reply the model refused (${testDialect})`, () => {
  it('is shown with its reason and model by svc session logs and the session page, live and once the session stopped', async () => {
    const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: { prompt: 'Say hello' } });
    expect(created.status).toBe(201);
    const id: string = created.body.session.id;
    // A sandbox boots its runtime first: on a loaded machine that took over a minute.
    await until(
      'the runtime recorded the failed reply',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/sessions/${id}/conversation`)).body.messages ?? [],
      (messages: Array<{ info?: { error?: unknown } }>) => messages.some((message) => message.info?.error !== undefined),
      120_000,
    );
    const expected = `APIError (model scripted/gpt-test at ${modelUrl}/chat/completions): ${REFUSAL.error.message}`;

    const logs = captureDeps({ env: adminCliEnv(svc) });
    await runSessionLogs(id, { project: project.id }, logs);
    expect(logs.out()).toBe(`you: Say hello\nagent error: ${expected}\n`);

    const page = await svc.request('GET', `/projects/${project.slug}/sessions/${id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<div class="turn-who">The agent's reply failed</div><div class="turn-text">${expected.replaceAll('&', '&amp;')}</div>`);

    // Stopped, the session's conversation is svc's copy: the failure is kept with it.
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions/${id}/stop`)).status).toBe(200);
    const stored = await svc.request('GET', `/v1/projects/${project.id}/sessions/${id}/conversation`);
    expect(stored.body.source).toBe('stored');
    const afterStop = captureDeps({ env: adminCliEnv(svc) });
    await runSessionLogs(id, { project: project.id }, afterStop);
    expect(afterStop.out()).toBe(`you: Say hello\nagent error: ${expected}\n`);
  }, 180_000);

  it('appears on a session page that was open when the reply failed, readable in both themes', async () => {
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const before = held;
    try {
      const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: { prompt: 'Say hello again' } });
      expect(created.status).toBe(201);
      const id: string = created.body.session.id;
      const { context, page, errors } = await openPage(browser, svc, { cookie });
      await page.goto(`${svc.url}/projects/${project.slug}/sessions/${id}`);
      await until('the runtime asked the model', async () => held, (count) => count > before, 120_000);
      // The page is open and live before the model answers.
      await page.locator('.turn-user').first().waitFor();
      expect(await page.locator('.turn-error').count()).toBe(0);
      release();
      await page.locator('.turn-error').waitFor({ timeout: 30_000 });
      await expect(page.locator('.turn-error .turn-text').textContent()).resolves.toBe(`APIError (model scripted/gpt-test at ${modelUrl}/chat/completions): ${REFUSAL.error.message}`);
      expect(errors).toEqual([]);
      await context.close();
      expect(await axeAcross(browser, svc, cookie, [`/projects/${project.slug}/sessions/${id}`])).toEqual([]);
    } finally {
      release();
      hold = null;
    }
  }, 180_000);
});
