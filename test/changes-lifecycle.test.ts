/**
 * Change requests over the REST API on real repositories: every row of spec 2's state table and error
 * table, create validation, numbering, editing, request-changes with its outbox, and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { generateToken, hashToken } from '../src/accounts/token-secrets.js';
import { nowIso } from '../src/db/values.js';
import { Clone, moveHostedBranch, projectWithClone, removeTempDirs, type TestProject } from './support/change-request-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer();
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const crs = (project: TestProject) => `/v1/projects/${project.id}/change-requests`;

/** A project with `main` and one feature branch a commit ahead of it. */
async function projectWithFeature(branch = 'feature'): Promise<{ project: TestProject; clone: Clone; headSha: string; baseSha: string }> {
  const { project, clone } = await projectWithClone(svc);
  const baseSha = clone.head();
  clone.checkout(branch);
  const headSha = clone.commit({ [`${branch}.txt`]: `${branch}\n` }, `work on ${branch}`);
  await clone.push(branch);
  return { project, clone, headSha, baseSha };
}

async function open(project: TestProject, body: Record<string, unknown>, token?: string) {
  return svc.request('POST', crs(project), { body, token });
}

async function insertSession(projectId: string): Promise<string> {
  const id = randomUUID();
  const now = nowIso();
  await svc.server.services.db
    .insertInto('sessions')
    .values({ id, project_id: projectId, status: 'running', base_ref: 'main', branch: id, agent: 'default', model: null, trigger_slug: null, created_by: 'someone', created_at: now, updated_at: now })
    .execute();
  return id;
}

async function tokenWith(project: TestProject, capabilities: string[]): Promise<string> {
  const response = await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: `t-${capabilities.join('-')}`, capabilities } });
  expect(response.status).toBe(201);
  return response.body.token as string;
}

describe(`change request lifecycle on ${testDialect}`, () => {
  it('creates an open CR with exactly the spec fields, anchor SHAs, number 1 and the default base', async () => {
    const { project, headSha, baseSha } = await projectWithFeature();
    const created = await open(project, { title: '  Add the feature  ', head_ref: 'feature' });
    expect(created.status).toBe(201);
    const cr = created.body.change_request;
    expect(Object.keys(created.body)).toEqual(['change_request']);
    expect(Object.keys(cr).sort()).toEqual(
      [
        'cr_id', 'account_id', 'project_id', 'number', 'title', 'description', 'base_ref', 'head_ref', 'status', 'head_commit_sha',
        'base_commit_sha', 'origin_session_id', 'created_by', 'merged_at', 'merged_by', 'merge_commit_sha', 'closed_at', 'closed_by',
        'metadata', 'created_at', 'updated_at',
      ].sort(),
    );
    expect(cr).toMatchObject({
      project_id: project.id,
      number: 1,
      title: 'Add the feature',
      description: '',
      base_ref: 'main',
      head_ref: 'feature',
      status: 'open',
      head_commit_sha: headSha,
      base_commit_sha: baseSha,
      origin_session_id: null,
      merged_at: null,
      merged_by: null,
      merge_commit_sha: null,
      closed_at: null,
      closed_by: null,
      metadata: {},
    });
    expect(cr.cr_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(cr.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const byNumber = await svc.request('GET', `${crs(project)}/1`);
    const byId = await svc.request('GET', `${crs(project)}/${cr.cr_id}`);
    expect(byNumber.status).toBe(200);
    expect(byNumber.body).toEqual({ change_request: cr });
    expect(byId.body).toEqual({ change_request: cr });
  });

  it('validates create: missing fields, blank or long title, head = base, bad branch names, unknown base', async () => {
    const { project } = await projectWithFeature();
    const missingTitle = await open(project, { head_ref: 'feature' });
    expect(missingTitle.status).toBe(400);
    expect(missingTitle.body.code).toBe('VALIDATION_FAILED');
    expect(missingTitle.body.issues[0].message).toContain('title');
    const missingHead = await open(project, { title: 'x' });
    expect(missingHead.status).toBe(400);
    expect(missingHead.body.code).toBe('VALIDATION_FAILED');

    const blank = await open(project, { title: '   ', head_ref: 'feature' });
    expect(blank.status).toBe(400);
    expect(blank.body.issues).toEqual([{ path: '/title', message: expect.stringContaining('must not be empty') }]);
    for (const length of [257, 5000]) {
      const long = await open(project, { title: 'x'.repeat(length), head_ref: 'feature' });
      expect(long.status).toBe(400);
      expect(long.body.issues).toEqual([{ path: '/title', message: `must be at most 256 characters (got ${length}); put the details in the description` }]);
    }
    expect((await open(project, { title: 'x'.repeat(256), head_ref: 'feature', description: 'd'.repeat(65_537) })).status).toBe(400);

    const same = await open(project, { title: 'x', head_ref: 'main' });
    expect(same.status).toBe(400);
    expect(same.body.error).toContain('both "main"');
    const sameExplicit = await open(project, { title: 'x', head_ref: 'feature', base_ref: 'refs/heads/feature' });
    expect(sameExplicit.status).toBe(400);

    for (const bad of ['-delete', 'a..b', 'x y', 'ends.lock', 'HEAD', 'a:b']) {
      const response = await open(project, { title: 'x', head_ref: bad });
      expect(response.status, bad).toBe(400);
      expect(response.body.issues[0].path, bad).toBe('/head_ref');
    }
    const extra = await open(project, { title: 'x', head_ref: 'feature', sneaky: true });
    expect(extra.status).toBe(400);

    const noBase = await open(project, { title: 'x', head_ref: 'feature', base_ref: 'release' });
    expect(noBase.status).toBe(400);
    expect(noBase.body.error).toContain('"release" does not exist');
  });

  it('answers 422 CR_HEAD_NOT_AHEAD for a never-pushed branch and for a branch behind an advanced base', async () => {
    const { project, clone } = await projectWithFeature('behind');
    const never = await open(project, { title: 'x', head_ref: 'never-pushed' });
    expect(never.status).toBe(422);
    expect(never.body.code).toBe('CR_HEAD_NOT_AHEAD');
    expect(never.body.error).toContain('git push origin HEAD');

    // Land the branch on main and move main on: the branch has nothing main lacks.
    clone.checkout('main');
    clone.git(['merge', '--quiet', '--ff-only', 'behind']);
    clone.commit({ 'more.txt': 'more\n' }, 'main moves on');
    moveHostedBranch(svc, project, clone, 'main');
    const behind = await open(project, { title: 'x', head_ref: 'behind' });
    expect(behind.status).toBe(422);
    expect(behind.body.code).toBe('CR_HEAD_NOT_AHEAD');
  });

  it('numbers CRs per project from 1 and never reuses a number, also after closing', async () => {
    const { project, clone } = await projectWithFeature('one');
    const { project: other } = await projectWithFeature('elsewhere');
    clone.checkout('two', 'main');
    clone.commit({ 'two.txt': '2\n' });
    await clone.push('two');

    expect((await open(project, { title: 'one', head_ref: 'one' })).body.change_request.number).toBe(1);
    expect((await svc.request('POST', `${crs(project)}/1/close`)).status).toBe(200);
    expect((await open(project, { title: 'two', head_ref: 'two' })).body.change_request.number).toBe(2);
    // A new CR for the closed CR's branch gets a new number; #1 stays #1.
    expect((await open(project, { title: 'one again', head_ref: 'one' })).body.change_request.number).toBe(3);
    expect((await open(other, { title: 'other', head_ref: 'elsewhere' })).body.change_request.number).toBe(1);

    const listed = await svc.request('GET', crs(project));
    expect(listed.body.change_requests.map((cr: { number: number }) => cr.number)).toEqual([3, 2, 1]);
    const openOnly = await svc.request('GET', `${crs(project)}?status=open`);
    expect(openOnly.body.change_requests.map((cr: { number: number }) => cr.number)).toEqual([3, 2]);
    const closedOnly = await svc.request('GET', `${crs(project)}?status=closed`);
    expect(closedOnly.body.change_requests.map((cr: { number: number }) => cr.number)).toEqual([1]);
    expect((await svc.request('GET', `${crs(project)}?status=merged`)).body.change_requests).toEqual([]);
    expect((await svc.request('GET', `${crs(project)}?status=bogus`)).status).toBe(400);
  });

  it('refuses a second open CR for the same branch pair, naming the one that exists', async () => {
    const { project } = await projectWithFeature();
    await open(project, { title: 'first', head_ref: 'feature' });
    const second = await open(project, { title: 'second', head_ref: 'feature' });
    expect(second.status).toBe(409);
    expect(second.body.error).toContain('#1 is already open');
    expect(second.body.number).toBe(1);
  });

  it('keeps a known session as origin, drops an unknown one, and nulls it when the session is deleted', async () => {
    const { project, clone } = await projectWithFeature('session-branch');
    const sessionId = await insertSession(project.id);
    const known = await open(project, { title: 'from a session', head_ref: 'session-branch', session_id: sessionId });
    expect(known.body.change_request.origin_session_id).toBe(sessionId);

    clone.checkout('other', 'main');
    clone.commit({ 'other.txt': 'o\n' });
    await clone.push('other');
    const unknown = await open(project, { title: 'unknown session', head_ref: 'other', session_id: randomUUID() });
    expect(unknown.status).toBe(201);
    expect(unknown.body.change_request.origin_session_id).toBeNull();

    await svc.server.services.db.deleteFrom('sessions').where('id', '=', sessionId).execute();
    const after = await svc.request('GET', `${crs(project)}/1`);
    expect(after.status).toBe(200);
    expect(after.body.change_request.origin_session_id).toBeNull();
  });

  it('edits title and description with PATCH and validates them', async () => {
    const { project } = await projectWithFeature();
    await open(project, { title: 'draft', head_ref: 'feature', description: 'first' });
    const edited = await svc.request('PATCH', `${crs(project)}/1`, { body: { title: 'Final title', description: 'Details.' } });
    expect(edited.status).toBe(200);
    expect(edited.body.change_request).toMatchObject({ title: 'Final title', description: 'Details.' });
    expect(edited.body.change_request.updated_at >= edited.body.change_request.created_at).toBe(true);
    const onlyDescription = await svc.request('PATCH', `${crs(project)}/1`, { body: { description: '' } });
    expect(onlyDescription.body.change_request).toMatchObject({ title: 'Final title', description: '' });
    expect((await svc.request('PATCH', `${crs(project)}/1`, { body: { title: '' } })).status).toBe(400);
    expect((await svc.request('PATCH', `${crs(project)}/1`, { body: { status: 'merged' } })).status).toBe(400);
    expect((await svc.request('PATCH', `${crs(project)}/9`, { body: { title: 'x' } })).status).toBe(404);
  });

  it('walks the state table: close, idempotent close, reopen, and the 409s of open, closed and merged CRs', async () => {
    const { project } = await projectWithFeature();
    const base = crs(project);
    await open(project, { title: 'walk', head_ref: 'feature' });

    const reopenOpen = await svc.request('POST', `${base}/1/reopen`);
    expect(reopenOpen.status).toBe(409);
    expect(reopenOpen.body).toMatchObject({ code: 'CONFLICT', reason: 'CR_WRONG_STATUS' });

    const closed = await svc.request('POST', `${base}/1/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.change_request).toMatchObject({ status: 'closed', closed_by: expect.any(String), closed_at: expect.any(String) });
    const closedAgain = await svc.request('POST', `${base}/1/close`);
    expect(closedAgain.status).toBe(200);
    expect(closedAgain.body.change_request.closed_at).toBe(closed.body.change_request.closed_at);

    for (const action of ['merge', 'request-changes']) {
      const response = await svc.request('POST', `${base}/1/${action}`, { body: action === 'merge' ? {} : { feedback: 'x' } });
      expect(response.status, action).toBe(409);
      expect(response.body, action).toMatchObject({ code: 'CONFLICT', reason: 'CR_WRONG_STATUS' });
    }

    const reopened = await svc.request('POST', `${base}/1/reopen`);
    expect(reopened.status).toBe(200);
    expect(reopened.body.change_request).toMatchObject({ status: 'open', closed_at: null, closed_by: null });

    const merged = await svc.request('POST', `${base}/1/merge`);
    expect(merged.status).toBe(200);
    expect(merged.body.change_request.status).toBe('merged');
    for (const action of ['close', 'reopen', 'merge', 'request-changes']) {
      const response = await svc.request('POST', `${base}/1/${action}`, { body: action === 'request-changes' ? { feedback: 'x' } : undefined });
      expect(response.status, action).toBe(409);
      expect(response.body, action).toMatchObject({ code: 'CONFLICT', reason: 'CR_WRONG_STATUS' });
    }
    expect((await svc.request('GET', `${base}/1`)).body.change_request.status).toBe('merged');
  });

  it('reopen is refused while another CR is open for the same branches', async () => {
    const { project } = await projectWithFeature();
    await open(project, { title: 'first', head_ref: 'feature' });
    await svc.request('POST', `${crs(project)}/1/close`);
    await open(project, { title: 'second', head_ref: 'feature' });
    const reopen = await svc.request('POST', `${crs(project)}/1/reopen`);
    expect(reopen.status).toBe(409);
    expect(reopen.body.error).toContain('Another change request is already open');
  });

  it('request-changes appends {text, by, at} and queues delivery only for CRs from a session', async () => {
    const { project, clone } = await projectWithFeature('agent-branch');
    const sessionId = await insertSession(project.id);
    await open(project, { title: 'agent work', head_ref: 'agent-branch', session_id: sessionId });
    const first = await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'Please add tests.' } });
    expect(first.status).toBe(200);
    const second = await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: 'And a changelog entry.' } });
    const entries = second.body.change_request.metadata.requested_changes;
    expect(entries).toEqual([
      { text: 'Please add tests.', by: second.body.change_request.created_by, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) },
      { text: 'And a changelog entry.', by: second.body.change_request.created_by, at: expect.any(String) },
    ]);
    expect(second.body.change_request.status).toBe('open');

    const deliveries = await svc.server.services.db.selectFrom('feedback_deliveries').selectAll().where('session_id', '=', sessionId).orderBy('created_at').execute();
    // Queued for the session, in order; the delivery task may already have taken them on (its own tests say how).
    expect(deliveries.map((row) => [row.text, row.cr_id])).toEqual([
      ['Please add tests.', second.body.change_request.cr_id],
      ['And a changelog entry.', second.body.change_request.cr_id],
    ]);

    clone.checkout('by-hand', 'main');
    clone.commit({ 'hand.txt': 'h\n' });
    await clone.push('by-hand');
    const manual = await open(project, { title: 'by hand', head_ref: 'by-hand' });
    await svc.request('POST', `${crs(project)}/${manual.body.change_request.number}/request-changes`, { body: { feedback: 'nit' } });
    const manualDeliveries = await svc.server.services.db.selectFrom('feedback_deliveries').select('id').where('cr_id', '=', manual.body.change_request.cr_id).execute();
    expect(manualDeliveries).toEqual([]);

    expect((await svc.request('POST', `${crs(project)}/1/request-changes`, { body: { feedback: '' } })).status).toBe(400);
    expect((await svc.request('POST', `${crs(project)}/1/request-changes`, { body: {} })).status).toBe(400);
  });

  it('answers 404 for unknown CRs and projects, 400 for a malformed CR reference', async () => {
    const { project } = await projectWithFeature();
    expect((await svc.request('GET', `${crs(project)}/1`)).status).toBe(404);
    expect((await svc.request('GET', `${crs(project)}/${randomUUID()}`)).status).toBe(404);
    expect((await svc.request('GET', `${crs(project)}/1/diff`)).status).toBe(404);
    expect((await svc.request('POST', `${crs(project)}/1/merge`)).status).toBe(404);
    const unknownProject = await svc.request('GET', `/v1/projects/${randomUUID()}/change-requests`);
    expect(unknownProject.status).toBe(404);
    expect(unknownProject.body.code).toBe('NOT_FOUND');
    expect((await svc.request('POST', `/v1/projects/${randomUUID()}/change-requests`, { body: { title: 'x', head_ref: 'y' } })).status).toBe(404);
    const garbage = await svc.request('GET', `${crs(project)}/not-a-cr`);
    expect(garbage.status).toBe(400);
    expect(garbage.body.code).toBe('BAD_REQUEST');
  });

  it('checks permissions: read, write, gitops.push and gitops.merge, each a 403 when missing', async () => {
    const { project, clone } = await projectWithFeature();
    await open(project, { title: 'perm', head_ref: 'feature' });
    clone.checkout('second', 'main');
    clone.commit({ 's.txt': 's\n' });
    await clone.push('second');

    const none = await tokenWith(project, ['dashboards.publish']);
    const readOnly = await tokenWith(project, ['project.read']);
    const writer = await tokenWith(project, ['project.read', 'project.write']);
    const pusher = await tokenWith(project, ['project.read', 'project.write', 'project.gitops.push']);
    const merger = await tokenWith(project, ['project.read', 'project.write', 'project.gitops.merge']);

    const reads = [`${crs(project)}`, `${crs(project)}/1`, `${crs(project)}/1/diff`, `${crs(project)}/1/merge-preview`];
    for (const route of reads) {
      expect((await svc.request('GET', route, { token: none })).status, route).toBe(403);
      expect((await svc.request('GET', route, { token: readOnly })).status, route).toBe(200);
    }

    const create = { title: 'x', head_ref: 'second' };
    expect((await open(project, create, readOnly)).status).toBe(403);
    const noPush = await open(project, create, writer);
    expect(noPush.status).toBe(403);
    expect(noPush.body.error).toContain('project.gitops.push');
    expect((await svc.request('PATCH', `${crs(project)}/1`, { token: readOnly, body: { title: 'y' } })).status).toBe(403);
    expect((await svc.request('PATCH', `${crs(project)}/1`, { token: writer, body: { title: 'y' } })).status).toBe(200);
    expect((await svc.request('POST', `${crs(project)}/1/request-changes`, { token: writer, body: { feedback: 'f' } })).status).toBe(403);
    expect((await svc.request('POST', `${crs(project)}/1/request-changes`, { token: pusher, body: { feedback: 'f' } })).status).toBe(200);
    expect((await svc.request('POST', `${crs(project)}/1/close`, { token: readOnly })).status).toBe(403);
    expect((await svc.request('POST', `${crs(project)}/1/close`, { token: writer })).status).toBe(200);
    expect((await svc.request('POST', `${crs(project)}/1/reopen`, { token: writer })).status).toBe(200);

    const noMerge = await svc.request('POST', `${crs(project)}/1/merge`, { token: pusher });
    expect(noMerge.status).toBe(403);
    expect(noMerge.body.error).toContain('project.gitops.merge');
    expect((await svc.request('GET', `${crs(project)}/1`)).body.change_request.status).toBe('open');
    expect((await open(project, create, pusher)).status).toBe(201);
    expect((await svc.request('POST', `${crs(project)}/1/merge`, { token: merger })).status).toBe(200);

    // A token of another project sees nothing here.
    const { project: elsewhere } = await projectWithFeature();
    const foreign = await tokenWith(elsewhere, ['project.read']);
    expect((await svc.request('GET', crs(project), { token: foreign })).status).toBe(403);
    expect((await svc.request('GET', crs(project), { token: null })).status).toBe(401);
  });

  it('answers a sandbox token 401 on every CR route (it identifies a sandbox, not a project actor)', async () => {
    const { project } = await projectWithFeature();
    await open(project, { title: 'x', head_ref: 'feature' });
    const token = generateToken('sandbox');
    const admin = await svc.server.services.db.selectFrom('tokens').select(['account_id', 'user_id']).where('kind', '=', 'user').executeTakeFirstOrThrow();
    await svc.server.services.db
      .insertInto('tokens')
      .values({ id: randomUUID(), account_id: admin.account_id, kind: 'sandbox', name: 'sandbox', token_hash: hashToken(token), user_id: admin.user_id, project_id: project.id, capabilities: '[]', created_at: nowIso(), expires_at: null })
      .execute();
    const response = await svc.request('GET', `${crs(project)}/1`, { token });
    expect(response.status).toBe(401);
    expect(response.body.error).toContain('SVC_CLI_TOKEN');
    expect((await svc.request('POST', `${crs(project)}/1/merge`, { token })).status).toBe(401);
  });

  it('deletes a project with its CRs', async () => {
    const { project } = await projectWithFeature();
    await open(project, { title: 'gone soon', head_ref: 'feature' });
    expect((await svc.request('DELETE', `/v1/projects/${project.id}`)).status).toBe(204);
    const left = await svc.server.services.db.selectFrom('change_requests').select('id').where('project_id', '=', project.id).execute();
    expect(left).toEqual([]);
  });
});
