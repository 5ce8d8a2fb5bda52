/**
 * Deliveries that arrive together are recorded together (src/triggers/fire-batch.ts), and each still gets the
 * answer it would get alone: at a full account each fresh fire queues behind the ones before it, a delivery id
 * sent twice at once starts one session, and fires of a `reuse` trigger sent at once go to one session.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, type TriggerProject } from './support/trigger-fixtures.js';

const SECRET = 'burst-secret';
const MANIFEST = `
triggers:
  - slug: fresh
    type: webhook
    secret_env: HOOK_SECRET
    prompt: "{{ body.n }}"
  - slug: reused
    type: webhook
    secret_env: HOOK_SECRET
    session_mode: reuse
    prompt: "{{ body.n }}"
`;

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand() } });
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

async function newProject(): Promise<TriggerProject> {
  const project = await projectWithFiles(svc, `Burst ${randomUUID()}`, { 'svc.yaml': MANIFEST });
  expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/HOOK_SECRET`, { body: { value: SECRET } })).status).toBeLessThan(300);
  expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers).toHaveLength(2);
  return project;
}

function deliver(project: TriggerProject, slug: string, n: number, deliveryId: string) {
  const body = JSON.stringify({ n });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return svc.request('POST', `/v1/webhooks/projects/${project.id}/${slug}`, {
    token: null,
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, 'x-github-delivery': deliveryId },
  });
}

describe(`webhook deliveries that arrive together (${testDialect})`, () => {
  it('queues each fresh fire at a full account behind the ones before it, and starts a delivery sent twice at once only once', async () => {
    const project = await newProject();
    // The account's one slot is taken: by this session, or already by the other test's.
    expect([201, 429]).toContain((await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).status);
    const repeated = randomUUID();
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, n) => deliver(project, 'fresh', n, randomUUID())),
      ...Array.from({ length: 3 }, () => deliver(project, 'fresh', 99, repeated)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(15).fill(202));

    const copies = answers.slice(12).map((answer) => answer.body);
    const original = copies.filter((body) => body.status !== 'duplicate');
    expect(original).toHaveLength(1);
    for (const copy of copies.filter((body) => body.status === 'duplicate')) expect(copy.session_id).toBe(original[0].session_id);

    const queued = answers.map((answer) => answer.body).filter((body) => body.status === 'queued');
    expect(queued).toHaveLength(13);
    expect(new Set(queued.map((body) => body.session_id)).size).toBe(13);
    // One fire found the cap full; each after it found the ones before it waiting.
    const expected = ['the account has 1 sessions provisioning or running, its limit (SVC_MAX_SESSIONS); the fire starts when one stops', '1 earlier fire waits for a session slot of this account; this one starts after them'];
    for (let waiting = 2; waiting < 13; waiting++) expected.push(`${waiting} earlier fires wait for a session slot of this account; this one starts after them`);
    expect(queued.map((body) => body.reason).sort()).toEqual(expected.sort());

    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/fresh/fires`)).body.fires as Array<{ status: string }>;
    expect(fires.filter((fire) => fire.status === 'queued')).toHaveLength(13);
    expect(fires.filter((fire) => fire.status === 'duplicate')).toHaveLength(2);
    const listed = (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers as Array<{ slug: string; last_fired_at: string | null }>;
    expect(listed.find((trigger) => trigger.slug === 'fresh')?.last_fired_at).not.toBeNull();
  });

  it('sends the fires of a reuse trigger that arrive at once to one session', async () => {
    const project = await newProject();
    const answers = await Promise.all(Array.from({ length: 4 }, (_, n) => deliver(project, 'reused', n, randomUUID())));
    expect(answers.map((answer) => answer.status)).toEqual(Array(4).fill(202));
    const sessions = new Set(answers.map((answer) => answer.body.session_id));
    expect(sessions.size).toBe(1);
    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/reused/fires`)).body.fires as Array<{ session_id: string }>;
    expect(fires).toHaveLength(4);
    expect(new Set(fires.map((fire) => fire.session_id))).toEqual(sessions);
  });
});
