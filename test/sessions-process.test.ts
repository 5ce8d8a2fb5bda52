/**
 * Sessions end to end on the process provider, with the real agent runtime (opencode) driven by a
 * scripted model: create → running, the agent commits and pushes its branch and opens a CR from inside
 * the sandbox, with spec 3's environment; stop keeps files and conversation, a message wakes it and the
 * agent continues with its context; delete removes the sandbox and keeps the branch.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, removeTempDirs } from '../src/git/testing/fixtures.js';
import { projectWithRuntime as projectWithRuntimeOf, sandboxLog as sandboxLogOf, sessionOf as sessionOfProject, until, type SessionProject } from './support/session-fixtures.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let model: ScriptedModel;

beforeAll(async () => {
  model = await startScriptedModel();
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '3' } });
});
afterAll(async () => {
  for (const session of (await svc.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) ?? []) {
    await svc.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
  }
  await svc.close();
  await model.close();
  removeTempDirs();
});

type Project = SessionProject;
const projectWithRuntime = (name: string) => projectWithRuntimeOf(svc, model.baseUrl, name);
const sessionOf = (project: Project, id: string) => sessionOfProject(svc, project.id, id);

function hostedBranchTip(project: Project, branch: string): string | null {
  try {
    return git(['--git-dir', path.join(svc.dataDir, 'repos', `${project.id}.git`), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  } catch {
    return null;
  }
}

describe(`sessions on the process provider with the real runtime (${testDialect})`, () => {
  it('runs an agent that commits, pushes its branch and opens a change request from inside its sandbox, then sleeps and wakes with its context', async () => {
    const project = await projectWithRuntime(`Agents ${Date.now()}`);
    model.push(
      {
        tool: 'bash',
        input: {
          command: 'env | grep -E "^(SVC_|HOME=)" | sort > ../svc-env.txt && echo hello > hello.txt && git add hello.txt && git commit -q -m "Add hello" && (git push origin HEAD:refs/heads/elsewhere > ../push-elsewhere.txt 2>&1 || true) && git push -q origin HEAD && svc cr open --title "Add hello" --json > ../cr.json',
          description: 'Add hello, push and open a change request',
        },
      },
      { text: 'I added hello.txt and opened a change request.' },
    );
    const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: { prompt: 'Add a hello file and open a change request.' } });
    expect(created.status).toBe(201);
    const session = created.body.session;
    expect(session).toMatchObject({ status: 'provisioning', base_ref: 'main', branch: session.id, agent: null, sandbox: { provider: 'process', state: 'provisioning' } });
    expect(hostedBranchTip(project, session.id)).toBe(hostedBranchTip(project, 'main'));

    const running = await until('the session runs', () => sessionOf(project, session.id), (s) => s.status === 'running' && s.runtime_session_id !== null);
    expect(running.sandbox).toEqual({ provider: 'process', state: 'active' });

    const sandboxLog = () => sandboxLogOf(svc, session.id);
    const crs: Array<{ number: number }> = await until(
      'the agent opened a change request (sandbox log follows)',
      async () => (await svc.request('GET', `/v1/projects/${project.id}/change-requests`)).body.change_requests as Array<{ number: number }>,
      (list: Array<{ number: number }>) => list.length === 1,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${sandboxLog()}\nmodel requests: ${model.requests.length}`);
    });
    expect(crs[0]).toMatchObject({ title: 'Add hello', head_ref: session.id, base_ref: 'main', origin_session_id: session.id, status: 'open' });
    expect(model.requests.find((r) => r.agentTurn)?.lastUserText).toBe('Add a hello file and open a change request.');
    const tip = hostedBranchTip(project, session.id);
    expect(git(['--git-dir', path.join(svc.dataDir, 'repos', `${project.id}.git`), 'log', '-1', '--format=%s%n%an', tip ?? ''])).toBe(`Add hello\ndefault (svc session ${session.id})`);

    const sandboxDir = path.join(svc.dataDir, 'sandboxes', session.id);
    const env = Object.fromEntries(
      fs
        .readFileSync(path.join(sandboxDir, 'svc-env.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({
      SVC_PROJECT_ID: project.id,
      SVC_SESSION_ID: session.id,
      SVC_BRANCH_NAME: session.id,
      SVC_REPO_URL: project.clone_url,
      SVC_DEFAULT_BRANCH: 'main',
      SVC_BASE_REF: 'main',
      SVC_API_URL: `${svc.url}/v1`,
      SVC_AGENT_NAME: 'default',
      SVC_INITIAL_PROMPT: 'Add a hello file and open a change request.',
      SVC_PROJECT_AUTO_CLONE: '1',
      SVC_PROJECT_SECRET_NAMES: '',
      SVC_BOOTSTRAP_RUNTIME_SESSION: '1',
    });
    expect(env.SVC_SANDBOX_TOKEN).toMatch(/^svc_s_/);
    expect(env.SVC_TOKEN).toBe(env.SVC_SANDBOX_TOKEN);
    expect(env.SVC_CLI_TOKEN).toMatch(/^svc_p_/);
    expect(env.SVC_EXECUTOR_TOKEN).toBe(env.SVC_CLI_TOKEN);
    expect(env.SVC_AGENT_MODEL).toBeUndefined();
    // No token is written into the clone's configuration.
    expect(fs.readFileSync(path.join(sandboxDir, 'workspace', '.git', 'config'), 'utf8')).not.toMatch(/svc_[psu]_/);

    // The agent's credentials push its own branch only.
    expect(fs.readFileSync(path.join(sandboxDir, 'push-elsewhere.txt'), 'utf8')).toContain(`this session's credentials push only its own branch ${session.id}`);
    expect(hostedBranchTip(project, 'elsewhere')).toBeNull();
    // The sandbox token is refused on a project route; the CLI token may not push another branch.
    const withSandboxToken = await svc.request('GET', `/v1/projects/${project.id}`, { token: env.SVC_SANDBOX_TOKEN });
    expect(withSandboxToken.status).toBe(401);

    // The first turn ends with the agent's answer (the model's second step) before the session is stopped.
    await until('the agent finished its first turn', async () => model.remaining(), (left) => left === 0);
    await until('the daemon released the lease', async () => (await svc.server.services.db.selectFrom('sessions').select('lease_expires_at').where('id', '=', session.id).executeTakeFirstOrThrow()).lease_expires_at, (lease) => lease === null);
    const stopped = await svc.request('POST', `/v1/projects/${project.id}/sessions/${session.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'stopped' } });
    expect(fs.existsSync(path.join(sandboxDir, 'workspace', 'hello.txt'))).toBe(true);

    model.push({ tool: 'bash', input: { command: 'echo again >> hello.txt', description: 'Append' } }, { text: 'Appended.' });
    const agentTurnsBefore = model.requests.length;
    const sent = await svc.request('POST', `/v1/projects/${project.id}/sessions/${session.id}/messages`, { body: { text: 'Append a line to hello.txt.' } });
    expect(sent.status).toBe(202);
    expect(sent.body.session.status).toBe('provisioning');
    await until('the woken agent appended its line', async () => fs.readFileSync(path.join(sandboxDir, 'workspace', 'hello.txt'), 'utf8'), (text) => text === 'hello\nagain\n').catch(async (error: Error) => {
      const messages = await svc.server.services.db.selectFrom('session_messages').selectAll().execute();
      throw new Error(`${error.message}\n${JSON.stringify(messages)}\n${JSON.stringify(await sessionOf(project, session.id))}\n${sandboxLog()}\n${JSON.stringify(model.requests.map((r) => [r.agentTurn, r.lastUserText]))} remaining ${model.remaining()}`);
    });
    const woken = model.requests.slice(agentTurnsBefore).find((r) => r.agentTurn && r.lastUserText === 'Append a line to hello.txt.');
    expect(woken?.lastUserText).toBe('Append a line to hello.txt.');
    // The conversation survived hibernation: the model saw the first prompt again.
    expect(JSON.stringify(woken?.body.messages)).toContain('Add a hello file and open a change request.');

    // A person requests changes on the agent's change request: the feedback reaches the agent as a message.
    model.push({ text: 'I will make that change.' });
    const feedback = await svc.request('POST', `/v1/projects/${project.id}/change-requests/${crs[0]?.number}/request-changes`, { body: { feedback: 'Please say hello to the world.' } });
    expect(feedback.status).toBe(200);
    const delivered = await until(
      'the feedback reached the agent',
      async () => model.requests.find((r) => r.agentTurn && r.lastUserText.includes('Please say hello to the world.')),
      (request) => request !== undefined,
    );
    expect(delivered?.lastUserText).toContain(`Changes were requested on change request #${crs[0]?.number} (Add hello)`);

    expect((await svc.request('DELETE', `/v1/projects/${project.id}/sessions/${session.id}`)).status).toBe(204);
    expect(fs.existsSync(sandboxDir)).toBe(false);
    expect((await sessionOf(project, session.id)).sandbox.state).toBe('archived');
    expect(hostedBranchTip(project, session.id)).toBe(tip);
    const late = await svc.request('POST', `/v1/projects/${project.id}/sessions/${session.id}/messages`, { body: { text: 'Still there?' } });
    expect(late.status).toBe(409);
    expect(late.body.error).toContain('was deleted');
  }, 180_000);
});
