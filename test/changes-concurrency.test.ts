/**
 * Change requests under concurrency and faults: ten merges fired at once into one base, merges racing a
 * person pushing to base, concurrent creates on two replicas, the repair of a merge interrupted between
 * the ref update and its record, and the request-changes outbox surviving a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { nowIso } from '../src/db/values.js';
import { databaseClockMs } from '../src/changes/merge-intent-lease.js';
import { bareGit, hostedRepoPath, moveHostedBranch, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { createTestDatabase, startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { startReplicas } from './support/replicas.js';

afterAll(() => {
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;

function isAncestor(repo: string, ancestor: string, descendant: string): boolean {
  try {
    bareGit(repo, ['merge-base', '--is-ancestor', ancestor, descendant]);
    return true;
  } catch {
    return false;
  }
}

/** A server that can be stopped and started again on the same data directory and database. */
async function restartableServer() {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cr-restart-'));
  // A heartbeat timeout of ten minutes keeps the sweeper (every five) out of the way: here a start or a
  // merge settles the journal. test/changes-merge-takeover.test.ts covers the sweeper.
  const env = { SVC_MERGE_HEARTBEAT_TIMEOUT_MS: '600000' };
  const options = { adminToken: 'svc_u_restart_admin', dataDir, env, ...(database.url ? { databaseUrl: database.url } : {}) };
  let current = await startTestServer(options);
  return {
    get svc(): TestServer {
      return current;
    },
    async restart(): Promise<TestServer> {
      await current.close();
      current = await startTestServer(options);
      return current;
    },
    async dispose(): Promise<void> {
      await current.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Ten merges' git work at once: 9–11 s on an idle 2-core machine, three times that while other suites run beside it. */
const CONCURRENT_MERGES_TIMEOUT_MS = 90_000;

describe(`merges under concurrency on ${testDialect}`, () => {
  it('ten merges of different CRs into one base, fired at once: each lands or answers 409 with its conflicts; nothing is lost', { timeout: CONCURRENT_MERGES_TIMEOUT_MS }, async () => {
    const svc = await startTestServer();
    try {
      const { project, clone } = await projectWithClone(svc, { 'shared.txt': 'original\n' });
      const root = clone.head();
      const branches: string[] = [];
      for (let index = 0; index < 8; index += 1) {
        const branch = `clean-${index}`;
        clone.checkout(branch, root);
        clone.commit({ [`files/${branch}.txt`]: `${branch}\n` }, `add ${branch}`);
        branches.push(branch);
      }
      // Two CRs that edit the same line: whichever merges second conflicts.
      for (const branch of ['clash-a', 'clash-b']) {
        clone.checkout(branch, root);
        clone.commit({ 'shared.txt': `${branch}\n` }, `edit shared in ${branch}`);
        branches.push(branch);
      }
      await clone.push(...branches);
      for (const branch of branches) {
        expect((await svc.request('POST', crs(project), { body: { title: branch, head_ref: branch } })).status).toBe(201);
      }

      const responses = await Promise.all(branches.map((_, index) => svc.request('POST', `${crs(project)}/${index + 1}/merge`)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(9);
      const refused = responses.filter((response) => response.status !== 200);
      expect(refused).toHaveLength(1);
      expect(refused[0]?.status).toBe(409);
      expect(refused[0]?.body).toMatchObject({ code: 'MERGE_CONFLICT', conflicts: ['shared.txt'] });

      const repo = hostedRepoPath(svc, project.id);
      const main = bareGit(repo, ['rev-parse', 'refs/heads/main']);
      const listed = (await svc.request('GET', crs(project))).body.change_requests as Array<{ status: string; head_ref: string; head_commit_sha: string; merge_commit_sha: string | null }>;
      const merged = listed.filter((cr) => cr.status === 'merged');
      expect(merged).toHaveLength(9);
      for (const cr of merged) {
        expect(isAncestor(repo, cr.merge_commit_sha ?? '', main), `${cr.head_ref} merge commit on main`).toBe(true);
        expect(isAncestor(repo, cr.head_commit_sha, main), `${cr.head_ref} head on main`).toBe(true);
      }
      for (let index = 0; index < 8; index += 1) {
        expect(bareGit(repo, ['show', `${main}:files/clean-${index}.txt`])).toBe(`clean-${index}`);
      }
      expect(listed.filter((cr) => cr.status === 'open').map((cr) => cr.head_ref)).toHaveLength(1);
      expect(await svc.server.services.db.selectFrom('merge_intents').selectAll().execute()).toEqual([]);
    } finally {
      await svc.close();
    }
  });

  it('merges on two replicas race by compare-and-swap: the losers recompute from the new tip, every merge lands', { timeout: CONCURRENT_MERGES_TIMEOUT_MS }, async () => {
    // The second replica reaches the same files through a symlinked data directory, so the two do not share
    // the in-process merge queue (keyed by path) and really race, as separate processes would.
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cr-race-'));
    const alias = `${dataDir}-alias`;
    fs.symlinkSync(dataDir, alias);
    const shared = { adminToken: 'svc_u_cr_race', ...(database.url ? { databaseUrl: database.url } : {}) };
    const first = await startTestServer({ ...shared, dataDir });
    const second = await startTestServer({ ...shared, dataDir: alias });
    try {
      const { project, clone } = await projectWithClone(first);
      const root = clone.head();
      const branches = Array.from({ length: 10 }, (_, index) => `race-${index}`);
      for (const branch of branches) {
        clone.checkout(branch, root);
        clone.commit({ [`${branch}.txt`]: `${branch}\n` });
      }
      await clone.push(...branches);
      for (const branch of branches) await first.request('POST', crs(project), { body: { title: branch, head_ref: branch } });

      const responses = await Promise.all(branches.map((_, index) => (index % 2 ? first : second).request('POST', `${crs(project)}/${index + 1}/merge`)));
      expect(responses.map((response) => response.status), JSON.stringify(responses.map((response) => response.body))).toEqual(branches.map(() => 200));

      const repo = hostedRepoPath(first, project.id);
      const main = bareGit(repo, ['rev-parse', 'refs/heads/main']);
      for (const response of responses) {
        expect(isAncestor(repo, response.body.merge_commit_sha, main)).toBe(true);
        expect(response.body.change_request.status).toBe('merged');
      }
      // One merge commit per CR on main's first-parent line: none was lost or overwritten.
      expect(bareGit(repo, ['rev-list', '--first-parent', '--count', `${root}..${main}`])).toBe('10');
    } finally {
      await first.server.close();
      await second.server.close();
      await database.drop();
      fs.rmSync(alias, { force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('numbers concurrent creates on two replicas of one database 1..n with no duplicates', async () => {
    const replicas = await startReplicas({ adminToken: 'svc_u_cr_replicas' });
    const { first, second } = replicas;
    try {
      const { project, clone } = await projectWithClone(first);
      const root = clone.head();
      const branches = Array.from({ length: 16 }, (_, index) => `parallel-${index}`);
      for (const branch of branches) {
        clone.checkout(branch, root);
        clone.commit({ [`${branch}.txt`]: 'x\n' });
      }
      await clone.push(...branches);
      const responses = await Promise.all(
        branches.map((branch, index) => (index % 2 ? first : second).request('POST', crs(project), { body: { title: branch, head_ref: branch } })),
      );
      expect(responses.map((response) => response.status)).toEqual(branches.map(() => 201));
      const numbers = responses.map((response) => response.body.change_request.number as number).sort((a, b) => a - b);
      expect(numbers).toEqual(branches.map((_, index) => index + 1));
    } finally {
      await replicas.close();
    }
  });
});

describe(`crash safety on ${testDialect}`, () => {
  async function crReadyToMerge(svc: TestServer) {
    const { project, clone } = await projectWithClone(svc);
    const baseBefore = clone.head();
    clone.checkout('feature');
    const headSha = clone.commit({ 'feature.txt': 'f\n' });
    clone.checkout('main');
    clone.commit({ 'main.txt': 'm\n' });
    await clone.push('feature');
    moveHostedBranch(svc, project, clone, 'main');
    const created = await svc.request('POST', crs(project), { body: { title: 'crashy', head_ref: 'feature' } });
    return { project, crId: created.body.change_request.cr_id as string, baseBefore, headSha, mainTip: clone.head() };
  }

  /**
   * What mergeChangeRequest writes before moving base: the journal row and the merge commit object. The
   * merger's last heartbeat was `heartbeatAgoMs` ago: an hour for a process that died, 0 for one at work.
   */
  async function journalMerge(svc: TestServer, cr: Awaited<ReturnType<typeof crReadyToMerge>>, heartbeatAgoMs = 3_600_000) {
    const repo = hostedRepoPath(svc, cr.project.id);
    const tree = bareGit(repo, ['merge-tree', '--write-tree', cr.mainTip, cr.headSha]);
    const mergeSha = bareGit(repo, ['-c', 'user.name=svc', '-c', 'user.email=svc@noreply.invalid', 'commit-tree', tree, '-p', cr.mainTip, '-p', cr.headSha, '-m', 'Merge CR #1: crashy']);
    await svc.server.services.db
      .insertInto('merge_intents')
      .values({
        cr_id: cr.crId,
        project_id: cr.project.id,
        base_ref: 'main',
        base_sha_before: cr.mainTip,
        head_sha: cr.headSha,
        merge_commit_sha: mergeSha,
        fast_forward: false,
        merged_by: 'crashed-merger',
        created_at: new Date(Date.now() - heartbeatAgoMs).toISOString(),
        owner: 'crashed-merger-process',
        heartbeat_ms: sql<number>`${databaseClockMs(svc.server.services.dialect)} - ${heartbeatAgoMs}`,
      })
      .execute();
    return { repo, mergeSha };
  }

  it('a restart finishes recording a merge whose commit reached base before the process died', async () => {
    const servers = await restartableServer();
    try {
      const cr = await crReadyToMerge(servers.svc);
      const { repo, mergeSha } = await journalMerge(servers.svc, cr);
      // The crash: base moved by compare-and-swap, the record never written.
      bareGit(repo, ['update-ref', 'refs/heads/main', mergeSha, cr.mainTip]);
      expect((await servers.svc.request('GET', `${crs(cr.project)}/1`)).body.change_request.status).toBe('open');

      const svc = await servers.restart();
      const after = await svc.request('GET', `${crs(cr.project)}/1`);
      expect(after.body.change_request).toMatchObject({
        status: 'merged',
        merge_commit_sha: mergeSha,
        head_commit_sha: cr.headSha,
        base_commit_sha: cr.mainTip,
        merged_by: 'crashed-merger',
      });
      expect(await svc.server.services.db.selectFrom('merge_intents').selectAll().execute()).toEqual([]);
    } finally {
      await servers.dispose();
    }
  });

  it('a restart drops the journal of a merge that died before base moved; the CR stays open and merges later', async () => {
    const servers = await restartableServer();
    try {
      const cr = await crReadyToMerge(servers.svc);
      await journalMerge(servers.svc, cr);
      const svc = await servers.restart();
      expect((await svc.request('GET', `${crs(cr.project)}/1`)).body.change_request.status).toBe('open');
      expect(await svc.server.services.db.selectFrom('merge_intents').selectAll().execute()).toEqual([]);
      expect(bareGit(hostedRepoPath(svc, cr.project.id), ['rev-parse', 'refs/heads/main'])).toBe(cr.mainTip);
      expect((await svc.request('POST', `${crs(cr.project)}/1/merge`)).status).toBe(200);
    } finally {
      await servers.dispose();
    }
  });

  it('a merge settles an abandoned journal of an earlier merge first, and answers 409 while one is under way', async () => {
    const servers = await restartableServer();
    try {
      const { svc } = servers;
      // Under way (its heartbeat renewed a moment ago): this merge waits its turn.
      const busy = await crReadyToMerge(svc);
      await journalMerge(svc, busy, 0);
      const refused = await svc.request('POST', `${crs(busy.project)}/1/merge`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('Change request #1 is being merged by another request right now; check it again in a moment.');

      // Abandoned an hour ago before base moved: dropped, and this merge goes on.
      const dropped = await crReadyToMerge(svc);
      await journalMerge(svc, dropped);
      const merged = await svc.request('POST', `${crs(dropped.project)}/1/merge`);
      expect(merged.status, merged.text).toBe(200);
      expect(merged.body.change_request.merged_by).not.toBe('crashed-merger');
      expect(bareGit(hostedRepoPath(svc, dropped.project.id), ['rev-parse', 'refs/heads/main'])).toBe(merged.body.merge_commit_sha);

      // Abandoned an hour ago after base moved: recorded as that merge, and answered as merged.
      const landed = await crReadyToMerge(svc);
      const { repo, mergeSha } = await journalMerge(svc, landed);
      bareGit(repo, ['update-ref', 'refs/heads/main', mergeSha, landed.mainTip]);
      const recorded = await svc.request('POST', `${crs(landed.project)}/1/merge`);
      expect(recorded.status, recorded.text).toBe(200);
      expect(recorded.body).toMatchObject({ merge_commit_sha: mergeSha, fast_forward: false, change_request: { status: 'merged', merged_by: 'crashed-merger' } });
      expect(bareGit(repo, ['rev-parse', 'refs/heads/main'])).toBe(mergeSha);

      const journal = await svc.server.services.db.selectFrom('merge_intents').selectAll().execute();
      expect(journal.map((intent) => intent.cr_id)).toEqual([busy.crId]);
    } finally {
      await servers.dispose();
    }
  });

  it('keeps request-changes feedback for the session agent across a restart', async () => {
    const servers = await restartableServer();
    try {
      const { project, clone } = await projectWithClone(servers.svc);
      const sessionId = randomUUID();
      const now = nowIso();
      await servers.svc.server.services.db
        .insertInto('sessions')
        .values({ id: sessionId, project_id: project.id, status: 'stopped', base_ref: 'main', branch: sessionId, agent: null, model: null, trigger_slug: null, created_by: 'u', created_at: now, updated_at: now })
        .execute();
      clone.checkout(sessionId);
      clone.commit({ 'agent.txt': 'a\n' });
      await clone.push(sessionId);
      await servers.svc.request('POST', crs(project), { body: { title: 'agent', head_ref: sessionId, session_id: sessionId } });
      expect((await servers.svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'Rename the helper.' } })).status).toBe(200);

      // The feedback outlives the restart in the outbox, and the restarted server hands it to the session.
      const svc = await servers.restart();
      const deadline = Date.now() + 20_000;
      let delivery = await svc.server.services.db.selectFrom('feedback_deliveries').selectAll().where('session_id', '=', sessionId).executeTakeFirstOrThrow();
      while (delivery.status === 'pending' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        delivery = await svc.server.services.db.selectFrom('feedback_deliveries').selectAll().where('session_id', '=', sessionId).executeTakeFirstOrThrow();
      }
      expect(delivery).toMatchObject({ text: 'Rename the helper.', status: 'delivered', attempts: 1 });
      const messages = await svc.server.services.db.selectFrom('session_messages').select(['text', 'source']).where('session_id', '=', sessionId).execute();
      expect(messages).toEqual([{ source: 'feedback', text: expect.stringContaining('Rename the helper.') }]);
      const cr = (await svc.request('GET', `${crs(project)}/1`)).body.change_request;
      expect(cr.metadata.requested_changes).toEqual([{ text: 'Rename the helper.', by: cr.created_by, at: expect.any(String) }]);
    } finally {
      await servers.dispose();
    }
  });
});
