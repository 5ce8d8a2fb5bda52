/**
 * Issue 23's whole loop, driven as a person and a webhook sender would, shared by its browser test
 * (test/browser-loop.test.ts, which asserts what this records) and the script that photographs each step for
 * the README (scripts/loop-screenshots.ts). A signed webhook fires the manifest's trigger → a session starts →
 * the agent (the real runtime, the scripted model) edits a file, commits, pushes and opens a change request →
 * the person finds the session from the trigger's page, opens the change request, reads the diff and requests
 * changes → the agent's session wakes to the feedback and pushes a fix → the page shows the new commit → the
 * person merges → the default branch holds the work, the session page shows the whole story, and after the
 * person stops the session its page still does.
 */
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { bareGit, hostedRepoPath } from './change-request-fixtures.js';
import { poll } from './poll.js';
import { scriptedRuntimeConfig } from './runtime-fixture.js';
import type { ScriptedModel } from './scripted-model.js';
import type { TestServer } from './test-server.js';
import { projectWithFiles, type TriggerProject } from './trigger-fixtures.js';

export const LOOP_SECRET_NAME = 'ISSUE_HOOK_SECRET';
const LOOP_SECRET = 'a secret only the issue tracker and svc know';
const TRIGGER = 'issue-opened';
const MANIFEST = `triggers:
  - slug: ${TRIGGER}
    type: webhook
    secret_env: ${LOOP_SECRET_NAME}
    prompt: "Issue #{{ body.issue.number }}: {{ body.issue.title }}. {{ body.issue.body }}"
`;
export const ISSUE = { action: 'opened', issue: { number: 7, title: 'Greet visitors', body: 'Add hello.txt saying hello, and open a change request.' } };
/** How long one agent turn may take on a loaded machine (the runtime boots on the first). */
const TURN_MS = 120_000;

/** `sha256=<hex>`: GitHub's `X-Hub-Signature-256`, HMAC-SHA256 over the raw body with the trigger's secret. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A project whose default branch holds the webhook trigger and the runtime's configuration, and the trigger's secret. */
export async function loopProject(svc: TestServer, model: ScriptedModel): Promise<TriggerProject> {
  const project = await projectWithFiles(svc, `Loop ${Date.now()}`, { 'svc.yaml': MANIFEST, '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(model.baseUrl), null, 2) });
  const secret = await svc.request('PUT', `/v1/projects/${project.id}/secrets/${LOOP_SECRET_NAME}`, { body: { value: LOOP_SECRET } });
  if (secret.status >= 300) throw new Error(`secret not set: ${secret.status} ${secret.text}`);
  return project;
}

/** Called after each step with the page showing it: the script photographs it, the test does nothing. */
export type StepHook = (name: string, caption: string, page: Page) => Promise<void>;

export interface LoopRecord {
  webhook: { status: number; body: any };
  sessionId: string;
  /** What the trigger's page showed of the fire: source and session. */
  fireRow: string;
  /** The session page's first agent turn, live. */
  firstReply: string;
  crNumber: number;
  /** The diff as the person read it before asking for changes. */
  firstDiff: string;
  firstHead: string;
  feedbackShown: string;
  /** The head commit the CR page shows after the agent's fix, and its diff. */
  fixHead: string;
  fixDiff: string;
  mergedBadge: string;
  mainFile: string;
  /** The session page's conversation after the merge, live from the runtime. */
  story: string;
  /** The same page once the session is stopped: the note, and the conversation svc kept. */
  stoppedNote: string;
  stoppedStory: string;
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent()) ?? '';
}

export async function runWebLoop(svc: TestServer, model: ScriptedModel, project: TriggerProject, page: Page, step: StepHook = async () => undefined): Promise<LoopRecord> {
  model.push(
    { tool: 'bash', input: { command: 'echo hello > hello.txt && git add hello.txt && git commit -q -m "Add hello" && git push -q origin HEAD && svc cr open --title "Greet visitors"', description: 'Add hello.txt and open a change request' } },
    { text: 'I added hello.txt and opened a change request for issue 7.' },
    { tool: 'bash', input: { command: 'echo goodbye >> hello.txt && git commit -qam "Say goodbye" && git push -q origin HEAD', description: 'Say goodbye too' } },
    { text: 'Pushed a fix that says goodbye.' },
  );
  const base = `${svc.url}/projects/${project.slug}`;

  // The issue tracker sends its signed delivery.
  const body = JSON.stringify(ISSUE);
  const delivered = await fetch(`${svc.url}/v1/webhooks/projects/${project.id}/${TRIGGER}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(LOOP_SECRET, body), 'x-github-delivery': `loop-${Date.now()}`, 'user-agent': 'GitHub-Hookshot/loop' },
    body,
  });
  const webhook = { status: delivered.status, body: await delivered.json() };
  const sessionId = String(webhook.body.session_id ?? '');

  // The person finds the fire and its session on the trigger's page.
  await page.goto(`${base}/triggers`);
  const fire = page.locator(`li.fire:has(a[href$="/sessions/${sessionId}"])`);
  await fire.waitFor();
  const fireRow = (await fire.textContent()) ?? '';
  await step('loop-1-webhook-fired', 'A signed webhook fired the trigger; its fire links the session it started.', page);
  await fire.locator('a[href*="/sessions/"]').click();
  await page.locator('[data-session-status] .badge:text-is("running")').waitFor({ timeout: TURN_MS });
  const reply = page.locator('.turn-agent:has-text("I added hello.txt")');
  await reply.waitFor({ timeout: TURN_MS });
  const firstReply = (await reply.textContent()) ?? '';
  await step('loop-2-session-working', 'The session works: the webhook’s prompt, the agent’s shell command and its words arrive live.', page);

  // The change request the agent opened, from the session page drawn again.
  const opened = await poll(
    'the agent opens a change request',
    async () => (await svc.request('GET', `/v1/projects/${project.id}/change-requests?status=open`)).body.change_requests as Array<{ number: number; head_ref: string; head_commit_sha: string }>,
    (list) => list.some((cr) => cr.head_ref === sessionId),
    { withinMs: TURN_MS },
  );
  const cr = opened.find((candidate) => candidate.head_ref === sessionId)!;
  await page.reload();
  await page.click('.panel:has-text("Change requests from this session") a.row-main');
  await page.locator('.df:has-text("hello.txt") tr.da:has-text("hello")').waitFor();
  const firstDiff = await text(page, '.df:has-text("hello.txt")');
  const firstHead = (await page.locator('.facts code').first().getAttribute('title')) ?? '';
  await step('loop-3-change-request', 'The change request: its merge preview and the diff the agent pushed.', page);

  await page.fill('#feedback', 'Also say goodbye.');
  await page.click('#request-changes button[type=submit]');
  await page.locator('.feedback-list li:has-text("Also say goodbye.")').waitFor();
  const feedbackShown = await text(page, '.feedback-list');
  await step('loop-4-changes-requested', 'The person requests changes; the feedback goes to the session, which wakes.', page);

  // The agent's fix lands on the branch; the page drawn again shows the new commit.
  await poll(
    'the agent pushes its fix',
    async () => (await svc.request('GET', `/v1/projects/${project.id}/change-requests/${cr.number}`)).body.change_request.head_commit_sha as string,
    (head) => head !== firstHead,
    { withinMs: TURN_MS },
  );
  const crUrl = `${base}/change-requests/${cr.number}`;
  await page.goto(crUrl);
  const fixHead = (await page.locator('.facts code').first().getAttribute('title')) ?? '';
  const fixDiff = await text(page, '.df:has-text("hello.txt")');
  await step('loop-5-fix-pushed', 'The agent pushed a fix: the page shows the new commit and its diff.', page);

  await page.click('form[action$="/merge"] button');
  await page.locator('.page-head .badge:text-is("merged")').waitFor();
  const mergedBadge = await text(page, '.page-head .badge');
  const mainFile = bareGit(hostedRepoPath(svc, project.id), ['show', 'main:hello.txt']);
  await step('loop-6-merged', 'Merged: the default branch holds the work.', page);

  await page.goto(`${base}/sessions/${sessionId}`);
  await page.locator('.turn-agent:has-text("Pushed a fix that says goodbye.")').waitFor({ timeout: TURN_MS });
  const story = await text(page, '.conversation');
  await step('loop-7-session-story', 'The session page tells the whole story: prompt, work, feedback, fix.', page);

  await page.click('form[action$="/stop"] button');
  await page.locator('[data-session-status] .badge:text-is("stopped")').waitFor();
  await page.reload();
  const stoppedNote = await text(page, '.conversation-note');
  const stoppedStory = await text(page, '.conversation');
  await step('loop-8-session-stopped', 'Stopped, the session’s page still shows the whole conversation, kept by svc.', page);

  return { webhook, sessionId, fireRow, firstReply, crNumber: cr.number, firstDiff, firstHead, feedbackShown, fixHead, fixDiff, mergedBadge, mainFile, story, stoppedNote, stoppedStory };
}
