/**
 * A replica that dies in the middle of a merge (issue 17, item 7): two servers share one database and data
 * directory, and a third process journals a merge intent with the server's own code and renews it, as a
 * replica does while base moves, until it is killed with SIGKILL. While it lives nobody takes the intent
 * from it; once it is dead a survivor settles it within seconds, from what base holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGit, hostedRepoPath, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { createTestDatabase, startTestServer, testDialect, type TestDatabase, type TestServer } from './support/test-server.js';

/** Short, so the test waits seconds rather than the default's tens of seconds. */
const HEARTBEAT_TIMEOUT_MS = 2_000;
const holderScript = path.resolve(import.meta.dirname, 'support/merge-intent-holder.ts');

let database: TestDatabase;
let dataDir: string;
let first: TestServer;
let second: TestServer;
const holders: ChildProcess[] = [];

const env = { SVC_MERGE_HEARTBEAT_TIMEOUT_MS: String(HEARTBEAT_TIMEOUT_MS) };
const shared = () => ({ adminToken: 'svc_u_takeover_admin', dataDir, env, ...(database.url ? { databaseUrl: database.url } : {}) });

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-takeover-'));
  first = await startTestServer(shared());
  second = await startTestServer(shared());
});
afterAll(async () => {
  for (const holder of holders) holder.kill('SIGKILL');
  await first.server.close();
  await second.server.close();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;

/** A CR whose head and base diverged, and the merge commit a replica would have built for it. */
async function crWithMergeCommit() {
  const { project, clone } = await projectWithClone(first);
  const root = clone.head();
  clone.checkout('feature');
  const headSha = clone.commit({ 'feature.txt': 'f\n' });
  clone.checkout('elsewhere', root);
  const mainTip = clone.commit({ 'main.txt': 'm\n' });
  await clone.push('feature', 'elsewhere');
  const repo = hostedRepoPath(first, project.id);
  // main moved on by another merge (pushes to the default branch are refused).
  bareGit(repo, ['update-ref', 'refs/heads/main', mainTip, root]);
  const created = await first.request('POST', crs(project), { body: { title: 'dies mid-merge', head_ref: 'feature' } });
  expect(created.status, created.text).toBe(201);
  const tree = bareGit(repo, ['merge-tree', '--write-tree', mainTip, headSha]);
  const mergeSha = bareGit(repo, ['-c', 'user.name=svc', '-c', 'user.email=svc@noreply.invalid', 'commit-tree', tree, '-p', mainTip, '-p', headSha, '-m', 'Merge CR #1: dies mid-merge']);
  return { project, repo, crId: created.body.change_request.cr_id as string, headSha, mainTip, mergeSha };
}

/** The dying replica: a process holding the CR's merge intent. Resolves with the intent's owner once written. */
async function holdIntentInAnotherProcess(cr: Awaited<ReturnType<typeof crWithMergeCommit>>): Promise<{ holder: ChildProcess; owner: string }> {
  const input = {
    dataDir,
    ...(database.url ? { databaseUrl: database.url } : {}),
    heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
    intent: {
      cr_id: cr.crId,
      project_id: cr.project.id,
      base_ref: 'main',
      base_sha_before: cr.mainTip,
      head_sha: cr.headSha,
      merge_commit_sha: cr.mergeSha,
      fast_forward: false,
      merged_by: 'dying-replica',
      created_at: new Date().toISOString(),
    },
  };
  const holder = spawn(process.execPath, ['--import', 'tsx', holderScript, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'pipe'] });
  holders.push(holder);
  let output = '';
  let errors = '';
  holder.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const owner = await new Promise<string>((resolve, reject) => {
    holder.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const held = /^held (\S+)\n/.exec(output);
      if (held?.[1]) resolve(held[1]);
    });
    holder.once('exit', (code) => reject(new Error(`the intent holder exited (${code}) before holding: ${output} ${errors}`)));
  });
  return { holder, owner };
}

function killed(holder: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    holder.once('exit', () => resolve());
    holder.kill('SIGKILL');
  });
}

/** Repeats `attempt` until it returns a value, for at most `withinMs`. */
async function eventually<T>(withinMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const journal = (svc: TestServer) => svc.server.services.db.selectFrom('merge_intents').select(['cr_id', 'owner', 'merge_commit_sha']).execute();

describe(`a replica that dies mid-merge, two replicas on ${testDialect}`, () => {
  it('keeps the merge to its live replica however long it runs, then lets a survivor settle and merge within seconds of its death', async () => {
    const cr = await crWithMergeCommit();
    const { holder, owner } = await holdIntentInAnotherProcess(cr);

    // Alive for three heartbeat timeouts: every merge of the CR, on either replica, is refused, and neither
    // replica's sweeper nor a replica starting up takes the intent.
    const aliveUntil = Date.now() + 3 * HEARTBEAT_TIMEOUT_MS;
    const third = await startTestServer(shared());
    try {
      while (Date.now() < aliveUntil) {
        for (const replica of [first, second, third]) {
          const refused = await replica.request('POST', `${crs(cr.project)}/1/merge`);
          expect(refused.status, refused.text).toBe(409);
          expect(refused.body.error).toBe('Change request #1 is being merged by another request right now; check it again in a moment.');
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await third.server.close();
    }
    expect(await journal(first)).toEqual([{ cr_id: cr.crId, owner, merge_commit_sha: cr.mergeSha }]);
    expect(bareGit(cr.repo, ['rev-parse', 'refs/heads/main'])).toBe(cr.mainTip);

    await killed(holder);
    const diedAt = Date.now();
    const merged = await eventually(15_000, async () => {
      const response = await second.request('POST', `${crs(cr.project)}/1/merge`);
      if (response.status === 409) return undefined;
      return response;
    });
    const tookMs = Date.now() - diedAt;
    expect(merged.status, merged.text).toBe(200);
    // The dead replica's commit never reached base: its intent was dropped, and this merge made its own.
    expect(merged.body.merge_commit_sha).not.toBe(cr.mergeSha);
    expect(merged.body.change_request).toMatchObject({ status: 'merged', merge_commit_sha: merged.body.merge_commit_sha, base_commit_sha: cr.mainTip });
    expect(merged.body.change_request.merged_by).not.toBe('dying-replica');
    expect(bareGit(cr.repo, ['rev-parse', 'refs/heads/main'])).toBe(merged.body.merge_commit_sha);
    expect(tookMs).toBeLessThan(HEARTBEAT_TIMEOUT_MS + 5_000);
    expect(await journal(first)).toEqual([]);
  });

  it('records the merge of a replica killed after base moved, within seconds and with nobody merging again', async () => {
    const cr = await crWithMergeCommit();
    const { holder } = await holdIntentInAnotherProcess(cr);
    // The dying replica moved base by compare-and-swap, then died before recording the merge.
    bareGit(cr.repo, ['update-ref', 'refs/heads/main', cr.mergeSha, cr.mainTip]);
    await killed(holder);

    const diedAt = Date.now();
    const recorded = await eventually(15_000, async () => {
      const response = await first.request('GET', `${crs(cr.project)}/1`);
      return response.body.change_request.status === 'merged' ? response.body.change_request : undefined;
    });
    expect(Date.now() - diedAt).toBeLessThan(HEARTBEAT_TIMEOUT_MS + 5_000);
    expect(recorded).toMatchObject({ status: 'merged', merge_commit_sha: cr.mergeSha, head_commit_sha: cr.headSha, base_commit_sha: cr.mainTip, merged_by: 'dying-replica' });
    const again = await second.request('POST', `${crs(cr.project)}/1/merge`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`Change request #1 is already merged (${cr.mergeSha}).`);
    expect(bareGit(cr.repo, ['rev-parse', 'refs/heads/main'])).toBe(cr.mergeSha);
    expect(await journal(second)).toEqual([]);
  });
});
