/**
 * Deliveries that arrive together are recorded together (src/triggers/fire-batch.ts), and each still gets the
 * answer it would get alone: at a full account each fresh fire queues behind the ones before it, a delivery id
 * sent twice at once starts one session, and fires of a `reuse` trigger sent at once go to one session. Repeats of
 * deliveries recorded earlier are found for the whole group at once, each the duplicate of its own fire.
 */
import { randomUUID } from 'node:crypto';
import { CompiledQuery, type Compilable } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { accountsWithQueues, oldestQueuedFire } from '../src/triggers/dispatch-fires.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { deliverSigned, idleRuntimeCommand, webhookProject, type TriggerProject } from './support/trigger-fixtures.js';

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

/**
 * A server of its own for the describe block, `svc` in each of its tests, so that the fires one suite leaves
 * queued never stand ahead of another's on the account's one slot.
 */
function serverPerSuite(): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand() } });
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });
  beforeEach(() => {
    svc = server!;
  });
}

async function newProject(): Promise<TriggerProject> {
  const project = await webhookProject(svc, `Burst ${randomUUID()}`, MANIFEST, SECRET);
  expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers).toHaveLength(2);
  return project;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/**
 * How the database runs a query, as lines a person reads: PostgreSQL's executed plan (each node, the rows it
 * returned per loop) or SQLite's query plan.
 */
async function queryPlan(query: Compilable): Promise<{ lines: string[]; firesRowsPerLoop: number[] }> {
  const { db } = svc.server.services;
  const compiled = query.compile();
  if (testDialect === 'postgres') {
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(CompiledQuery.raw(`explain (analyze, format json) ${compiled.sql}`, [...compiled.parameters]));
    const nodes = planNodes(rows[0]!['QUERY PLAN'][0]!.Plan);
    return {
      lines: nodes.map((node) => `${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}: ${node['Actual Rows']} rows`),
      firesRowsPerLoop: nodes.filter((node) => node['Relation Name'] === 'trigger_fires').map((node) => node['Actual Rows']),
    };
  }
  const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
  return { lines: rows.map((row) => row.detail), firesRowsPerLoop: [] };
}

function deliver(project: TriggerProject, slug: string, n: number, deliveryId: string) {
  return deliverSigned(svc, SECRET, project, slug, n, deliveryId);
}

describe(`webhook deliveries that arrive together (${testDialect})`, () => {
  serverPerSuite();

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

// Repeated deliveries (X-GitHub-Delivery) are looked up for a whole group of deliveries at once (record-fire.ts).
describe(`repeated webhook deliveries (${testDialect})`, () => {
  serverPerSuite();

  it('answers repeats of recorded deliveries arriving in one burst as duplicates of each, and fires an id last seen over 24 hours ago again', async () => {
    const project = await newProject();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const first = await Promise.all(ids.map((id, n) => deliver(project, 'fresh', n, id)));
    expect(first.map((answer) => answer.status)).toEqual([202, 202, 202]);
    for (const answer of first) expect(['fired', 'queued']).toContain(answer.body.status);

    const burst = await Promise.all([...ids.map((id, n) => deliver(project, 'fresh', n, id)), ...Array.from({ length: 3 }, (_, n) => deliver(project, 'fresh', 10 + n, randomUUID()))]);
    expect(burst.slice(0, 3).map((answer) => answer.body)).toEqual(first.map((answer) => ({ status: 'duplicate', session_id: answer.body.session_id, fire_id: expect.any(String) })));
    expect(burst.slice(3).map((answer) => answer.body.status).filter((status) => status === 'duplicate')).toEqual([]);

    // A day and an hour later the id may be used again: it fires, and a repeat of it is the new fire's duplicate.
    const dayAgo = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await svc.server.services.db.updateTable('trigger_fires').set({ fired_at: dayAgo }).where('id', '=', first[0]!.body.fire_id).execute();
    const later = await deliver(project, 'fresh', 0, ids[0]!);
    expect(later.body.status).not.toBe('duplicate');
    expect(later.body.session_id).not.toBe(first[0]!.body.session_id);
    expect((await deliver(project, 'fresh', 0, ids[0]!)).body).toMatchObject({ status: 'duplicate', session_id: later.body.session_id });
  });


  it("counts an id per trigger: the same id sent to another project's trigger fires there", async () => {
    const [one, other] = [await newProject(), await newProject()];
    const id = randomUUID();
    const first = await deliver(one, 'fresh', 1, id);
    const elsewhere = await deliver(other, 'fresh', 1, id);
    expect(first.body.status).not.toBe('duplicate');
    expect(elsewhere.body.status).not.toBe('duplicate');
    expect(elsewhere.body.session_id).not.toBe(first.body.session_id);
    expect((await deliver(other, 'fresh', 1, id)).body).toMatchObject({ status: 'duplicate', session_id: elsewhere.body.session_id });
  });
});

// On PostgreSQL a delivery is decided from what the last group left and written by
// one statement, which writes only if the database still holds that (fire-batch.ts); else it is decided again.
describe(`webhook deliveries one after another (${testDialect})`, () => {
  serverPerSuite();

  it('queues each delivery behind every fire before it, also one recorded meanwhile by another route, and behind none once the queue is gone', async () => {
    const project = await newProject();
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).status).toBe(201);
    const reasons: string[] = [];
    const deliverOne = async (n: number) => {
      const answer = await deliver(project, 'fresh', n, randomUUID());
      expect(answer.status).toBe(202);
      expect(answer.body.status).toBe('queued');
      reasons.push(answer.body.reason);
    };
    for (const n of [0, 1, 2]) await deliverOne(n);
    // A fire the receiver did not record: the next delivery finds the queue it last left changed.
    const manual = await svc.request('POST', `/v1/projects/${project.id}/triggers/fresh/fire`, { body: { message: 'by hand' } });
    expect(manual.status).toBe(202);
    expect(manual.body.reason).toBe('3 earlier fires wait for a session slot of this account; this one starts after them');
    for (const n of [3, 4]) await deliverOne(n);
    const waits = (count: number) => `${count} earlier ${count === 1 ? 'fire waits' : 'fires wait'} for a session slot of this account; this one starts after them`;
    expect(reasons).toEqual(['the account has 1 sessions provisioning or running, its limit (SVC_MAX_SESSIONS); the fire starts when one stops', waits(1), waits(2), waits(4), waits(5)]);

    // The queue emptied behind the receiver's back (every waiting fire started elsewhere): the next one waits for none.
    await svc.server.services.db.updateTable('trigger_fires').set({ started_at: new Date().toISOString(), status: 'fired' }).where('project_id', '=', project.id).execute();
    await deliverOne(5);
    expect(reasons.at(-1)).toBe('the account has 1 sessions provisioning or running, its limit (SVC_MAX_SESSIONS); the fire starts when one stops');
    await deliverOne(6);
    expect(reasons.at(-1)).toBe(waits(1));
    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/fresh/fires`)).body.fires as Array<{ status: string }>;
    expect(fires).toHaveLength(8);
  });
});

// A server of its own: the queue this suite leaves would stand ahead of the other suites' fires.
describe(`the dispatcher's reads of a long queue (${testDialect})`, () => {
  serverPerSuite();

  it("finds the accounts with a queue and an account's next fire from one entry each, however long the queue", async () => {
    const project = await newProject();
    expect([201, 429]).toContain((await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).status);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => deliver(project, 'fresh', n, randomUUID())));
    expect(answers.map((answer) => answer.body.status)).toEqual(Array(40).fill('queued'));
    const { account_id: accountId } = await svc.server.services.db.selectFrom('projects').select('account_id').where('id', '=', project.id).executeTakeFirstOrThrow();

    const next = await oldestQueuedFire(svc.server.services, accountId).execute();
    const oldest = await svc.server.services.db.selectFrom('trigger_fires').select('id').where('account_id', '=', accountId).where('status', '=', 'queued').orderBy('fired_at').orderBy('id').limit(1).execute();
    expect(next.map((fire) => fire.id)).toEqual(oldest.map((fire) => fire.id));
    expect((await accountsWithQueues(svc.server.services).execute()).map((account) => account.id)).toContain(accountId);

    // A queue read whole (a sort of every queued fire, or a join over them) costs each dispatch pass as much as
    // the queue is long: each plan reads at most one fire at a time.
    for (const query of [oldestQueuedFire(svc.server.services, accountId), accountsWithQueues(svc.server.services)]) {
      const plan = await queryPlan(query);
      const shown = plan.lines.join('\n');
      expect(shown).not.toMatch(/sort|hashaggregate|temp b-tree|scan (f|trigger_fires)\b/i);
      expect(shown).toMatch(/trigger_fires/);
      for (const rows of plan.firesRowsPerLoop) expect(rows, shown).toBeLessThanOrEqual(1);
    }
  });
});
