/**
 * Issue 23's whole loop in Chromium, with the real agent runtime and a scripted model, starting from a
 * signed webhook (test/support/web-loop.ts drives it; scripts/loop-screenshots.ts photographs the same
 * steps): the trigger fires, the session's agent pushes and opens a change request, the person reads the
 * diff and requests changes, the woken agent pushes a fix the page shows, the person merges, and the session
 * page tells the whole story, also once the session is stopped and its runtime is down. `svc session logs`
 * prints that stored conversation too.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from './support/change-request-fixtures.js';
import { adminCliEnv, runCli } from './support/cli-harness.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import type { TriggerProject } from './support/trigger-fixtures.js';
import { openPage, signedInBrowser } from './support/web-app-browser.js';
import { ISSUE, loopProject, runWebLoop } from './support/web-loop.js';

let svc: TestServer;
let model: ScriptedModel;
let browser: Browser;
let cookie: string;
let project: TriggerProject;

beforeAll(async () => {
  model = await startScriptedModel();
  svc = await startTestServer();
  project = await loopProject(svc, model);
  ({ browser, cookie } = await signedInBrowser(svc));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await model?.close();
  removeTempDirs();
});

describe(`the whole loop in Chromium (${testDialect})`, () => {
  it('goes from a signed webhook to a merged change request, and the stopped session still shows the whole conversation', async () => {
    const { context, page, errors } = await openPage(browser, svc, { cookie });
    const loop = await runWebLoop(svc, model, project, page);

    expect(loop.webhook).toEqual({ status: 202, body: { status: 'fired', session_id: expect.any(String), fire_id: expect.any(String) } });
    expect(loop.fireRow).toContain(`webhook · session ${loop.sessionId.slice(0, 8)}`);
    // The agent was given the prompt the trigger rendered from the delivery.
    expect(model.requests.find((request) => request.agentTurn)?.lastUserText).toContain(`Issue #7: ${ISSUE.issue.title}. ${ISSUE.issue.body}`);
    expect(loop.firstReply).toContain('I added hello.txt and opened a change request for issue 7.');
    expect(loop.firstDiff).toContain('hello');
    expect(loop.firstDiff).not.toContain('goodbye');
    expect(loop.feedbackShown).toContain('Also say goodbye.');
    // The feedback reached the agent as a new turn.
    expect(model.requests.filter((request) => request.agentTurn).map((request) => request.lastUserText)).toContainEqual(expect.stringContaining('Also say goodbye.'));
    expect(loop.fixHead).not.toBe(loop.firstHead);
    expect(loop.fixDiff).toContain('goodbye');
    expect(loop.mergedBadge).toBe('merged');
    expect(loop.mainFile).toBe('hello\ngoodbye');

    const whole = ['Issue #7: Greet visitors', 'I added hello.txt and opened a change request for issue 7.', 'Also say goodbye.', 'Pushed a fix that says goodbye.'];
    for (const line of whole) expect(loop.story).toContain(line);
    expect(loop.stoppedNote).toContain('as it stood when the sandbox stopped');
    for (const line of whole) expect(loop.stoppedStory).toContain(line);
    expect(loop.stoppedStory).toContain('svc cr open --title');
    expect(errors).toEqual([]);
    await context.close();

    // The API and `svc session logs` read the same stored conversation while the runtime is down.
    const stored = await svc.request('GET', `/v1/projects/${project.id}/sessions/${loop.sessionId}/conversation`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ source: 'stored', captured_at: expect.any(String), omitted_messages: 0 });
    const logs = await runCli(['session', 'logs', loop.sessionId, '--project', project.id], { env: adminCliEnv(svc) });
    expect(logs.code).toBe(0);
    expect(logs.stderr).toContain(`Session ${loop.sessionId} is stopped; its conversation as it stood when the sandbox stopped`);
    for (const line of whole) expect(logs.stdout).toContain(line);
    expect(logs.stdout).toContain('$ bash');

    // Deleting the session keeps the conversation readable too.
    expect((await svc.request('DELETE', `/v1/projects/${project.id}/sessions/${loop.sessionId}`)).status).toBe(204);
    const archived = await runCli(['session', 'logs', loop.sessionId, '--project', project.id], { env: adminCliEnv(svc) });
    expect(archived.stderr).toContain('was deleted');
    expect(archived.stdout).toContain('Pushed a fix that says goodbye.');
  }, 400_000);
});
