/**
 * Sessions per sandbox provider: create → running (the sandbox's daemon answers), the agent runtime
 * ready (its root session reported), resume → running, and (process provider) the daemon's memory. The
 * floor is what two Node processes cost to start on this machine (svc-entrypoint and svc-agent are two),
 * measured here. A provider that cannot run on this machine is reported with the reason svc gives.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, round, startBenchServer, type BenchServer } from './support.js';

const RUNS = 5;

async function api(server: BenchServer, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(server.url + route, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function projectWithCommit(server: BenchServer): Promise<string> {
  const { project } = await api(server, 'POST', '/v1/projects', { name: `Bench ${Date.now()}` });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-work-'));
  const git = (args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'pipe' });
  git(['init', '-q', '-b', 'main']);
  fs.writeFileSync(path.join(work, 'README.md'), 'bench\n');
  git(['add', '-A']);
  git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'Start']);
  const url = new URL(project.clone_url);
  url.username = 'x';
  url.password = server.token;
  git(['push', '-q', url.toString(), 'HEAD:main']);
  fs.rmSync(work, { recursive: true, force: true });
  return project.id;
}

async function until(server: BenchServer, route: string, done: (session: any) => boolean): Promise<any> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { session } = await api(server, 'GET', route);
    if (done(session)) return session;
    if (session.status === 'failed') throw new Error(`session failed: ${session.error}`);
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(session)}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function rssMb(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? round(kb / 1024, 1) : null;
  } catch {
    return null;
  }
}

/** The svc-agent process of a sandbox: the entrypoint's child running svc-agent.js. */
function daemonPid(dataDir: string, sessionId: string): number | null {
  if (!fs.existsSync(path.join(dataDir, 'sandboxes', sessionId, 'sandbox.json'))) return null;
  const file = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandboxes', sessionId, 'sandbox.json'), 'utf8')) as { pid: number };
  try {
    const children = fs.readFileSync(`/proc/${file.pid}/task/${file.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    return children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('svc-agent')) ?? null;
  } catch {
    return null;
  }
}

function nodeStartMs(): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export async function runSessionsBench(): Promise<Record<string, unknown>> {
  const floor = nodeStartMs();
  const providers: Record<string, unknown> = {};
  for (const provider of ['process', 'bubblewrap', 'docker'] as const) {
    providers[provider] = await benchProvider(provider).catch((error: Error) => ({ unavailable: error.message.split('\n').find((line) => line.startsWith('svc:')) ?? error.message.slice(0, 300) }));
  }
  return {
    providers,
    floorTwoNodeStartsMs: round(2 * floor),
    targets: { process: { createToRunningMs: 300, resumeToRunningMs: 300, daemonRssMb: 60 }, bubblewrap: { createToRunningMs: 300, resumeToRunningMs: 300 }, docker: { createToRunningMs: 1500, resumeToRunningMs: 1500 } },
    runs: RUNS,
  };
}

async function benchProvider(provider: 'process' | 'bubblewrap' | 'docker'): Promise<Record<string, unknown>> {
  const server = await startBenchServer({ SVC_MAX_SESSIONS: '100', SVC_SANDBOX_PROVIDER: provider });
  try {
    const projectId = await projectWithCommit(server);
    const base = `/v1/projects/${projectId}/sessions`;
    const create: number[] = [];
    const ready: number[] = [];
    const resume: number[] = [];
    const daemonRss: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const start = performance.now();
      const { session } = await api(server, 'POST', base, {});
      await until(server, `${base}/${session.id}`, (s) => s.status === 'running');
      create.push(performance.now() - start);
      await until(server, `${base}/${session.id}`, (s) => s.runtime_session_id !== null);
      ready.push(performance.now() - start);
      const pid = provider === 'process' ? daemonPid(server.dataDir, session.id) : null;
      const rss = pid === null ? null : rssMb(pid);
      if (rss !== null) daemonRss.push(rss);
      await api(server, 'POST', `${base}/${session.id}/stop`);
      const resumedAt = performance.now();
      await api(server, 'POST', `${base}/${session.id}/resume`);
      await until(server, `${base}/${session.id}`, (s) => s.status === 'running');
      resume.push(performance.now() - resumedAt);
      await api(server, 'DELETE', `${base}/${session.id}`);
    }
    return {
      createToRunningMs: round(median(create)),
      runtimeReadyMs: round(median(ready)),
      resumeToRunningMs: round(median(resume)),
      daemonRssMb: daemonRss.length ? round(median(daemonRss), 1) : null,
    };
  } finally {
    await server.stop();
  }
}
