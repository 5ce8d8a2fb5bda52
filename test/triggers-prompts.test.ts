/**
 * Prompt templates as the agent receives them (spec 3 "Template variables"): a webhook fire, a manual fire
 * and a cron fire each render exactly their variables, seen by a scripted model behind the real agent
 * runtime. The webhook's session starts with its prompt; the manual fire re-prompts it (reuse); the cron
 * fires start their own, and a 6-field schedule's later fire names the fire before it.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { scriptedRuntimeConfig } from './support/runtime-fixture.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { mergeFiles, projectWithFiles, until, type TriggerProject } from './support/trigger-fixtures.js';

const EVERY_VARIABLE =
  'slug={{ trigger.slug }} type={{ trigger.type }} kind={{ trigger.kind }} fired_at=[{{ fired_at }}] ' +
  'action=[{{ body.action }}] pr=[{{ body.pull_request }}] raw=[{{ body.raw }}] ' +
  'ct=[{{ headers.content_type }}] ua=[{{ headers.user_agent }}] ff=[{{ headers.forwarded_for }}] ' +
  'source=[{{ source }}] actor=[{{ actor }}] message=[{{ message.text }}|{{ message.source }}] ' +
  'cron=[{{ cron.schedule }}|{{ cron.timezone }}|{{ cron.fired_at }}|{{ cron.last_fired_at }}] missing=[{{ nothing.here }}]';

let svc: TestServer;
let model: ScriptedModel;
let project: TriggerProject;

beforeAll(async () => {
  model = await startScriptedModel([], { exhaustedText: 'Noted.' });
  // A slot each for the webhook's session, the one-off's and the cron trigger's.
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '3' } });
  project = await projectWithFiles(svc, `Prompts ${Date.now()}`, {
    '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(model.baseUrl), null, 2),
    'svc.yaml': `triggers:\n  - slug: hook\n    type: webhook\n    secret_env: HOOK_SECRET\n    session_mode: reuse\n    prompt: "${EVERY_VARIABLE}"\n`,
  });
  await svc.request('PUT', `/v1/projects/${project.id}/secrets/HOOK_SECRET`, { body: { value: 'hook-secret' } });
  await until('the trigger is read', async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 1);
});
afterAll(async () => {
  await svc.close();
  await model.close();
  removeTempDirs();
});

function turnsSeen(): string[] {
  return model.requests.filter((request) => request.agentTurn).map((request) => request.lastUserText);
}

async function turnWith(fragment: string): Promise<string> {
  // A sandbox boots its runtime first: on a loaded machine (CI runs two files at once) that took over a minute.
  const turns = await until(`the agent received a prompt with ${fragment}`, async () => turnsSeen(), (list) => list.some((text) => text.includes(fragment)), 120_000).catch(async (error: unknown) => {
    const sessions = (await svc.request('GET', `/v1/projects/${project.id}/sessions`)).body.sessions as Array<{ id: string; status: string; error: string | null }>;
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the project's sessions: ${JSON.stringify(sessions.map(({ id, status, error: why }) => ({ id, status, error: why })))}`);
  });
  return turns.find((text) => text.includes(fragment))!;
}

async function fireAt(slug: string): Promise<string> {
  const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/${slug}/fires`)).body.fires;
  return fires[0].fired_at;
}

describe(`prompt templates per fire kind, as the agent receives them (${testDialect})`, () => {
  it('renders the webhook, manual and cron variables exactly, nothing HTML-escaped, missing values empty', async () => {
    const body = JSON.stringify({ action: 'opened <now> & "then"', pull_request: { number: 7, labels: ['a'] } });
    const delivered = await svc.request('POST', `/v1/webhooks/projects/${project.id}/hook`, {
      token: null,
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/abc',
        'x-forwarded-for': '203.0.113.9',
        'x-hub-signature-256': `sha256=${createHmac('sha256', 'hook-secret').update(body).digest('hex')}`,
      },
    });
    expect(delivered.body.status).toBe('fired');
    const webhookPrompt = await turnWith('action=[opened');
    expect(webhookPrompt).toBe(
      `slug=hook type=webhook kind=git fired_at=[${await fireAt('hook')}] action=[opened <now> & "then"] pr=[{"number":7,"labels":["a"]}] raw=[] ` +
        'ct=[application/json] ua=[GitHub-Hookshot/abc] ff=[203.0.113.9] source=[] actor=[] message=[|] cron=[|||] missing=[]',
    );

    const manual = await svc.request('POST', `/v1/projects/${project.id}/triggers/hook/fire`, { body: { message: 'look at <this>' } });
    expect(manual.body).toMatchObject({ status: 'fired', session_id: delivered.body.session_id });
    const admin = (await svc.request('GET', `/v1/projects/${project.id}/sessions/${delivered.body.session_id}`)).body.session.created_by;
    const manualPrompt = await turnWith('message=[look at');
    expect(manualPrompt).toBe(
      `slug=hook type=webhook kind=git fired_at=[${await fireAt('hook')}] action=[] pr=[] raw=[] ct=[] ua=[] ff=[] ` +
        `source=[manual] actor=[${admin}] message=[look at <this>|api] cron=[|||] missing=[]`,
    );

    // A body that is not JSON arrives as body.raw, every character as sent (PostgreSQL takes the fires' rows as
    // JSON, where braces, quotes and backslashes mean something).
    const text = 'plain <text> {a,"b"} \\ NULL';
    await svc.request('POST', `/v1/webhooks/projects/${project.id}/hook`, {
      token: null,
      rawBody: text,
      headers: { 'content-type': 'text/plain', 'x-svc-token': 'hook-secret' },
    });
    expect(await turnWith('raw=[plain')).toContain(`action=[] pr=[] raw=[${text}] ct=[text/plain]`);

    // NUL and a lone surrogate, sent as JSON escapes, which no PostgreSQL text can hold: the fire is recorded on
    // either database and the agent finds U+FFFD in their place; a surrogate pair stays the character it encodes.
    const escapes = '{"action":"nul\\u0000 lone\\ud800 pair\\ud83d\\ude00"}';
    const unusual = await svc.request('POST', `/v1/webhooks/projects/${project.id}/hook`, {
      token: null,
      rawBody: escapes,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', 'hook-secret').update(escapes).digest('hex')}` },
    });
    expect(unusual.status).toBe(202);
    expect(await turnWith('action=[nul')).toContain('action=[nul\uFFFD lone\uFFFD pair\u{1F600}] pr=[]');

    await mergeFiles(svc, project, {
      'svc.yaml': `triggers:\n  - slug: tick\n    type: cron\n    run_at: "2020-02-02T02:02:02Z"\n    timezone: Europe/Paris\n    prompt: "${EVERY_VARIABLE}"\n`,
    });
    const cronPrompt = await turnWith('slug=tick');
    expect(cronPrompt).toBe(
      'slug=tick type=cron kind=git fired_at=[] action=[] pr=[] raw=[] ct=[] ua=[] ff=[] source=[] actor=[] message=[|] ' +
        `cron=[2020-02-02T02:02:02.000Z|Europe/Paris|${await fireAt('tick')}|] missing=[]`,
    );

    // A 6-field expression from its second fire on: cron.schedule is the expression, cron.last_fired_at the fire before.
    await mergeFiles(svc, project, {
      'svc.yaml': `triggers:\n  - slug: every3\n    type: cron\n    cron: "*/3 * * * * *"\n    session_mode: reuse\n    prompt: "${EVERY_VARIABLE}"\n`,
    });
    const laterFire = /^slug=every3 .* cron=\[\*\/3 \* \* \* \* \*\|UTC\|([^|]+)\|([^\]]+)\] missing=\[\]$/;
    const again = await until('a later fire of every3 reached the agent', async () => turnsSeen().find((text) => laterFire.test(text)), (text) => text !== undefined, 120_000).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; every3's turns: ${JSON.stringify(turnsSeen().filter((text) => text.startsWith('slug=every3')))}`);
    });
    const firedAt = laterFire.exec(again ?? '')?.[1] ?? '';
    const everyFire = ((await svc.request('GET', `/v1/projects/${project.id}/triggers/every3/fires`)).body.fires as Array<{ fired_at: string }>).map((fire) => fire.fired_at);
    const at = everyFire.indexOf(firedAt);
    expect(at).toBeGreaterThanOrEqual(0);
    // Fires are listed newest first: the one before it comes next.
    expect(again).toBe(
      'slug=every3 type=cron kind=git fired_at=[] action=[] pr=[] raw=[] ct=[] ua=[] ff=[] source=[] actor=[] message=[|] ' +
        `cron=[*/3 * * * * *|UTC|${everyFire[at]}|${everyFire[at + 1]}] missing=[]`,
    );
  }, 240_000);
});
