/**
 * The webhook receiver, status by status (spec 3 "Errors", contract §7): malformed URL 400, absent or
 * disabled or non-webhook trigger 404, unset secret 409, missing or wrong signature or token 401, a body over
 * 1 MiB 413 (a body of exactly 1 MiB, or nested deeper than the stack allows, is recorded), and 202 `fired` /
 * `queued` / `duplicate`, with GitHub's published HMAC example end to end.
 */
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { pruneOldFires } from '../src/triggers/dispatch-fires.js';
import { FIRES_KEPT_MS } from '../src/triggers/trigger-row.js';
import { runTriggerFires } from '../src/cli/trigger/fires.js';
import { adminCliEnv, captureDeps, runCli } from './support/cli-harness.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, until, type TriggerProject } from './support/trigger-fixtures.js';

const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

let svc: TestServer;
let project: TriggerProject;

const MANIFEST = `
triggers:
  - slug: github
    type: webhook
    secret_env: GH_SECRET
    session_mode: reuse
    prompt: "{{ body.action }}"
  - slug: unset-secret
    type: webhook
    secret_env: NOT_SET
    prompt: x
  - slug: paused
    type: webhook
    secret_env: GH_SECRET
    enabled: false
    prompt: x
  - slug: nightly
    type: cron
    cron: "0 0 3 * * *"
    prompt: x
  - slug: fresh-hook
    type: webhook
    secret_env: GH_SECRET
    prompt: x
`;

// Each test has a server of its own: the account's one session slot (SVC_MAX_SESSIONS=1) is free at its start.
beforeEach(async () => {
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand() } });
  project = await projectWithFiles(svc, `Webhooks ${Date.now()}`, { 'svc.yaml': MANIFEST });
  expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/GH_SECRET`, { body: { value: GITHUB_SECRET } })).status).toBeLessThan(300);
  expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers).toHaveLength(5);
});
afterEach(async () => {
  await svc.close();
});
afterAll(() => removeTempDirs());

function deliver(slug: string, body: string | Buffer, headers: Record<string, string> = {}, projectId = project.id) {
  return svc.request('POST', `/v1/webhooks/projects/${projectId}/${slug}`, { token: null, rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
}

function sign(body: string): string {
  return `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`;
}

describe(`the webhook receiver (${testDialect})`, () => {
  it('records a body of exactly 1 MiB and one nested deeper than the stack allows, rendering what each holds', async () => {
    const prefix = '{"action":"all of it","pad":"';
    const exact = `${prefix}${'a'.repeat(1024 * 1024 - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    const full = await deliver('github', exact, { 'x-hub-signature-256': sign(exact) });
    expect(full.status).toBe(202);
    expect(full.body).toMatchObject({ status: 'fired', session_id: expect.any(String) });
    // body.action is 100,000 arrays deep: too deep to print as JSON, so its placeholder is empty.
    const deep = `{"action":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const nested = await deliver('github', deep, { 'x-hub-signature-256': sign(deep) });
    expect(nested.status).toBe(202);
    expect(nested.body).toMatchObject({ status: 'fired', session_id: full.body.session_id });
    const after = await deliver('github', '{"action":"after"}', { 'x-hub-signature-256': sign('{"action":"after"}') });
    expect(after.body).toMatchObject({ status: 'fired', session_id: full.body.session_id });
    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/github/fires`)).body.fires;
    expect(fires.map((fire: { status: string }) => fire.status)).toEqual(['fired', 'fired', 'fired']);
    // The fires page shows what each asked (an empty prompt shows none).
    const page = await svc.request('GET', `/projects/${project.slug}/triggers/github/fires`);
    expect(page.status).toBe(200);
    expect(page.text.match(/<summary>Prompt: [^<]*<\/summary>/g)).toEqual(['<summary>Prompt: after</summary>', '<summary>Prompt: all of it</summary>']);
  });

  it("fires on GitHub's published example, answering before the session starts; a repeated delivery is a duplicate", async () => {
    const fired = await deliver('github', 'Hello, World!', { 'x-hub-signature-256': GITHUB_SIGNATURE, 'x-github-delivery': 'delivery-1', 'content-type': 'text/plain' });
    expect(fired.status).toBe(202);
    expect(fired.body).toEqual({ status: 'fired', session_id: expect.any(String), fire_id: expect.any(String) });
    const sessionId = fired.body.session_id;
    const session = await until(
      'the fired session exists',
      async () => svc.request('GET', `/v1/projects/${project.id}/sessions/${sessionId}`),
      (response) => response.status === 200,
    );
    expect(session.body.session).toMatchObject({ id: sessionId, trigger_slug: 'github', base_ref: 'main' });

    const again = await deliver('github', 'Hello, World!', { 'x-hub-signature-256': GITHUB_SIGNATURE, 'x-github-delivery': 'delivery-1', 'content-type': 'text/plain' });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'duplicate', session_id: sessionId });

    // Standard Webhooks' webhook-id counts the same way; X-Svc-Signature without the prefix, upper case.
    const body = JSON.stringify({ action: 'opened' });
    const bare = sign(body).slice('sha256='.length).toUpperCase();
    const viaId = await deliver('github', body, { 'x-svc-signature': bare, 'webhook-id': 'msg_1' });
    // reuse: the trigger's running session is re-prompted, no new slot needed.
    expect(viaId.body).toMatchObject({ status: 'fired', session_id: sessionId });
    expect((await deliver('github', body, { 'x-svc-signature': bare, 'webhook-id': 'msg_1' })).body).toMatchObject({ status: 'duplicate', session_id: sessionId });

    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/github/fires`)).body.fires;
    expect(fires.map((fire: { status: string; source: string }) => `${fire.source}:${fire.status}`)).toEqual(['webhook:duplicate', 'webhook:fired', 'webhook:duplicate', 'webhook:fired']);
    expect(fires.every((fire: { session_id: string }) => fire.session_id === sessionId)).toBe(true);
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers[0].last_fired_at).not.toBeNull();
  });

  it("lists a webhook trigger's last fire as its latest delivery, duplicates aside, and keeps it once its fires are pruned", async () => {
    const body = JSON.stringify({ action: 'opened' });
    const delivery = (id: string) => ({ 'x-hub-signature-256': sign(body), 'x-github-delivery': id });
    const listed = async (slug: string) => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.find((trigger: { slug: string }) => trigger.slug === slug);
    expect((await listed('github')).last_fired_at).toBeNull();
    expect((await deliver('github', body, delivery('first'))).body.status).toBe('fired');
    expect((await deliver('github', body, delivery('second'))).body.status).toBe('fired');
    expect((await deliver('github', body, delivery('first'))).body.status).toBe('duplicate');
    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/github/fires`)).body.fires as Array<{ status: string; fired_at: string }>;
    expect(fires.map((fire) => fire.status)).toEqual(['duplicate', 'fired', 'fired']);
    expect((await listed('github')).last_fired_at).toBe(fires[1]!.fired_at);
    expect((await listed('fresh-hook')).last_fired_at).toBeNull();

    // Fires are kept 30 days; a trigger's last fire outlives them.
    const { db } = svc.server.services;
    await until(
      'every fire has started its session',
      () => db.selectFrom('trigger_fires').select('id').where('project_id', '=', project.id).where('started_at', 'is', null).execute(),
      (waiting) => waiting.length === 0,
    );
    await pruneOldFires(svc.server.services, new Date(Date.now() + FIRES_KEPT_MS + 60_000));
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers/github/fires`)).body.fires).toEqual([]);
    expect((await listed('github')).last_fired_at).toBe(fires[1]!.fired_at);
  });

  it("lists a trigger's fires a page at a time, newest first, in the API and the CLI, and says what to pass for before", async () => {
    const body = JSON.stringify({ action: 'opened' });
    for (let index = 1; index <= 5; index += 1) {
      expect((await deliver('fresh-hook', body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': `page-${index}` })).status).toBe(202);
    }
    const base = `/v1/projects/${project.id}/triggers/fresh-hook/fires`;
    // Fires recorded before the first session took the account's one slot are queued once it has: listed when settled.
    const all = await until(
      'one fire holds the slot and four wait for it',
      async () => (await svc.request('GET', base)).body as { fires: Array<{ id: string; status: string }>; next_before: string | null },
      (listing) => listing.fires.filter((fire) => fire.status === 'queued').length === 4,
    );
    expect(all.fires).toHaveLength(5);
    expect(all.next_before).toBeNull();
    // Each page's next_before leads on to the next, older one; the page holding the oldest has none.
    const first = (await svc.request('GET', `${base}?limit=2`)).body;
    expect(first).toEqual({ fires: all.fires.slice(0, 2), next_before: all.fires[1]!.id });
    const second = (await svc.request('GET', `${base}?limit=2&before=${first.next_before}`)).body;
    expect(second).toEqual({ fires: all.fires.slice(2, 4), next_before: all.fires[3]!.id });
    expect((await svc.request('GET', `${base}?limit=2&before=${second.next_before}`)).body).toEqual({ fires: all.fires.slice(4), next_before: null });
    // Past the oldest fire the page is empty, not a 404.
    expect((await svc.request('GET', `${base}?before=${all.fires[4]!.id}`)).body).toEqual({ fires: [], next_before: null });

    // A before that names no fire of this trigger (another trigger's, or none at all) is refused where it is.
    expect((await deliver('github', body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'elsewhere' })).status).toBe(202);
    const othersFire = (await svc.request('GET', `/v1/projects/${project.id}/triggers/github/fires`)).body.fires[0].id as string;
    for (const before of [othersFire, 'nope']) {
      const refused = await svc.request('GET', `${base}?before=${before}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        issues: [{ path: '/before', message: `"${before}" names no fire of trigger "fresh-hook"; pass the next_before of the page before, or leave before out for the newest fires.` }],
      });
    }
    expect((await svc.request('GET', `${base}?limit=1001`)).body.issues[0]).toMatchObject({ path: '/limit' });

    // The CLI names the next page on standard error, so a script reading the JSON still learns how to go on.
    const env = adminCliEnv(svc);
    const page = await runCli(['trigger', 'fires', 'fresh-hook', '--project', project.id, '--limit', '3', '--json'], { env });
    expect(page.code).toBe(0);
    expect(JSON.parse(page.stdout)).toEqual(all.fires.slice(0, 3));
    expect(page.stderr).toBe(`Older fires are not listed; the next page: svc trigger fires fresh-hook --limit 3 --before ${all.fires[2]!.id} --project ${project.id} --json\n`);
    const rest = await runCli(['trigger', 'fires', 'fresh-hook', '--limit', '3', '--before', all.fires[2]!.id, '--project', project.id, '--json'], { env });
    expect(rest).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(rest.stdout)).toEqual(all.fires.slice(3));
    // At a terminal, a page past the oldest fire says so, not that the trigger never fired.
    const terminal = captureDeps({ env, isTTY: true });
    await runTriggerFires('fresh-hook', { project: project.id, before: all.fires[4]!.id }, terminal);
    expect(terminal.out()).toBe('');
    expect(terminal.err()).toBe(`Trigger fresh-hook has no fires older than ${all.fires[4]!.id} in the last 30 days.\n`);
  });

  it('takes the secret as a token in three forms when no signature is sent, and queues at the cap', async () => {
    // The account's one slot is taken.
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).status).toBe(201);
    const basic = `Basic ${Buffer.from(`github:${GITHUB_SECRET}`).toString('base64')}`;
    const forms: Array<Record<string, string>> = [{ 'x-svc-token': GITHUB_SECRET }, { authorization: `Bearer ${GITHUB_SECRET}` }, { authorization: basic }];
    for (const headers of forms) {
      const answer = await deliver('fresh-hook', '{}', headers);
      expect(answer.status).toBe(202);
      // A fresh session waits for the slot, saying why.
      expect(answer.body).toEqual({ status: 'queued', reason: expect.stringMatching(/its limit \(SVC_MAX_SESSIONS\)|earlier fire/), session_id: expect.any(String), fire_id: expect.any(String) });
    }
    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/fresh-hook/fires`)).body.fires;
    expect(fires.map((fire: { status: string }) => fire.status)).toEqual(['queued', 'queued', 'queued']);
    expect(fires[0].reason).toBe('2 earlier fires wait for a session slot of this account; this one starts after them');
  });

  it('answers every refusal with its status and a sentence that says what to fix', async () => {
    const body = JSON.stringify({ action: 'closed' });
    const signature = { 'x-hub-signature-256': sign(body) };

    const badProject = await deliver('github', body, signature, 'not-a-uuid');
    expect(badProject.status).toBe(400);
    expect(badProject.body).toEqual({ code: 'BAD_REQUEST', error: 'The project id "not-a-uuid" in the webhook URL is not a UUID; copy the URL from svc trigger ls.' });
    expect((await deliver('Bad!Slug', body, signature)).status).toBe(400);

    for (const [slug, projectId] of [
      ['nope', project.id],
      ['github', '00000000-0000-4000-8000-000000000000'],
      ['paused', project.id],
      ['nightly', project.id],
    ] as const) {
      const missing = await deliver(slug, body, signature, projectId);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 'NOT_FOUND', error: `No enabled webhook trigger "${slug}" in this project's manifest on its default branch.` });
    }

    const unset = await deliver('unset-secret', body, signature);
    expect(unset.status).toBe(409);
    expect(unset.body.error).toBe(`The secret NOT_SET named by this trigger's secret_env is not set; set it with svc secret set NOT_SET --project ${project.id}, or PUT /v1/projects/${project.id}/secrets/NOT_SET.`);

    const unsigned = await deliver('github', body);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.stringContaining('The webhook is not signed') });
    const wrong = await deliver('github', body, { 'x-hub-signature-256': sign('{}') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("X-Hub-Signature-256 does not match the body: sign the exact bytes sent with the secret in the trigger's secret_env.");
    expect((await deliver('github', body, { 'x-svc-signature': 'sha256=abc' })).status).toBe(401);
    expect((await deliver('github', body, { 'x-svc-token': 'guess' })).status).toBe(401);
    // A signature header present: the right token beside a wrong signature does not pass.
    expect((await deliver('github', body, { 'x-svc-token': GITHUB_SECRET, 'x-svc-signature': sign('{}') })).status).toBe(401);

    const huge = Buffer.alloc(1024 * 1024 + 1, 'a');
    const tooLarge = await deliver('github', huge, { 'x-svc-token': GITHUB_SECRET });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('PAYLOAD_TOO_LARGE');

    // A webhook URL checked with another method says what a sender does instead.
    const looked = await svc.request('GET', `/v1/webhooks/projects/${project.id}/github`);
    expect(looked.status).toBe(404);
    expect(looked.body).toEqual({
      code: 'NOT_FOUND',
      error: "A webhook URL takes POST only: the sender posts its body there, signed with the trigger's secret (X-Hub-Signature-256 or X-Svc-Signature); got GET.",
    });

    // A secret deleted after the trigger was declared.
    expect((await svc.request('DELETE', `/v1/projects/${project.id}/secrets/GH_SECRET`)).status).toBe(204);
    expect((await deliver('github', body, signature)).status).toBe(409);
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/GH_SECRET`, { body: { value: GITHUB_SECRET } })).status).toBeLessThan(300);
    // No refusal was recorded as a fire.
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers/github/fires`)).body.fires).toEqual([]);
  });
});
