/**
 * Sessions per sandbox provider: create → running (the sandbox's daemon answers), the agent runtime
 * ready (its root session reported), resume → running, and (process provider) the daemon's memory. The
 * floor is what two Node processes cost to start on this machine (svc-entrypoint and svc-agent are two),
 * measured here. A provider that cannot run on this machine is reported with the reason svc gives.
 * Per provider too: a proxied runtime request's throughput (beside, on the process provider, the same request
 * straight to the runtime's port, the floor the isolating providers' runtimes cannot be reached for) and the
 * memory of idle running sandboxes (sandbox-footprint.ts).
 * Then, on the process provider with the real runtime driven by the scripted model: requests and the event
 * stream through API → daemon → runtime beside the same straight to the runtime's port, and 20 sessions each
 * doing a scripted turn at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { signUserContext } from '../src/shared/user-context.js';
import { scriptedRuntimeConfig } from '../test/support/runtime-fixture.js';
import { startScriptedModel, type ScriptedModel } from '../test/support/scripted-model.js';
import { availableMb, footprint, sandboxPids } from './sandbox-footprint.js';
import { benchApi, benchProject, median, round, startBenchServer, type BenchServer } from './support.js';

const RUNS = 5;

const api = benchApi;

function projectWithCommit(server: BenchServer, model?: ScriptedModel): Promise<string> {
  const runtimeConfig: Record<string, string> = model ? { '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(model.baseUrl)) } : {};
  return benchProject(server, { 'README.md': 'bench\n', ...runtimeConfig });
}

async function until(server: BenchServer, route: string, done: (session: any) => boolean, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
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

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Requests per second over `ms` with `concurrency` callers, and each request's latency. */
async function load(url: string, headers: Record<string, string>, concurrency: number, ms: number): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const at = performance.now();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${url}: ${response.status}`);
        latencies.push(performance.now() - at);
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable between processes on this machine. */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Follows an SSE stream on node:http (no web-stream layers between the socket and the stamp) and records
 * when each event, by its JSON text, reached this process: the stamp is taken as its chunk arrives.
 */
function follow(url: string, headers: Record<string, string>): { seen: Map<string, number>; open: Promise<void>; close: () => void } {
  const seen = new Map<string, number>();
  let request: http.ClientRequest | undefined;
  const open = new Promise<void>((resolve, reject) => {
    request = http.get(url, { headers: { ...headers, accept: 'text/event-stream' }, agent: false }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`));
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        const at = nowMs();
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer.slice(0, cut).split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
          buffer = buffer.slice(cut + 2);
          if (data && !seen.has(data)) seen.set(data, at);
        }
      });
      response.on('error', () => {});
      resolve();
    });
    request.on('error', reject);
  });
  return { seen, open, close: () => request?.destroy() };
}

/**
 * Makes the runtime emit events from a process of its own, so that making them costs the reading process
 * nothing: creates and deletes runtime sessions one at a time, `gapMs` apart, each titled with its number,
 * and prints when each creation was sent (wall clock, as JSON lines).
 */
const EVENT_MAKER = `
const [base, count, gapMs] = process.argv.slice(1);
const now = () => performance.timeOrigin + performance.now();
for (let i = 0; i < Number(count); i += 1) {
  const sentAt = now();
  const response = await fetch(base + '/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'sse-bench ' + i }) });
  const { id } = await response.json();
  process.stdout.write(JSON.stringify({ i, sentAt }) + '\\n');
  await (await fetch(base + '/session/' + id, { method: 'DELETE' })).arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, Number(gapMs)));
}
`;

function makeEvents(base: string, count: number, gapMs: number): Promise<Map<number, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', EVENT_MAKER, base, String(count), String(gapMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the event maker exited with ${code}`));
      resolve(new Map(out.trim().split('\n').map((line) => JSON.parse(line) as { i: number; sentAt: number }).map(({ i, sentAt }) => [i, sentAt])));
    });
  });
}

/** Time on a CPU and time runnable but waiting for one (ns), and how often it ran, of a process's main thread. */
function schedstat(pid: number): { runNs: number; waitNs: number; slices: number } | null {
  try {
    const [runNs, waitNs, slices] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return { runNs: runNs ?? 0, waitNs: waitNs ?? 0, slices: slices ?? 0 };
  } catch {
    return null;
  }
}

/**
 * How long each forwarding process waited for a core while it had work (the run queue), over a stretch:
 * on a shared machine this, not anything the proxy does, is what a tail of milliseconds is made of.
 */
function runQueueWatch(pids: Record<string, number | null>): () => Record<string, unknown> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid === null ? null : schedstat(pid)]));
  return () => {
    const out: Record<string, unknown> = {};
    for (const [name, pid] of Object.entries(pids)) {
      const start = before[name];
      const end = pid === null ? null : schedstat(pid);
      if (!start || !end) continue;
      const slices = Math.max(1, end.slices - start.slices);
      out[name] = { onCpuMs: round((end.runNs - start.runNs) / 1e6), waitingForACoreMs: round((end.waitNs - start.waitNs) / 1e6), meanWaitPerRunMs: round((end.waitNs - start.waitNs) / 1e6 / slices, 3) };
    }
    return out;
  };
}

function spread(values: number[]): { p50: number; p99: number; max: number } {
  return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(Math.max(...values)) };
}

/** The daemon's own address and a user context it accepts, from the sandbox's files and environment. */
function daemonAccess(server: BenchServer, sessionId: string): { url: string; userContext: string } {
  const { pid, daemonPort } = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'sandboxes', sessionId, 'sandbox.json'), 'utf8')) as { pid: number; daemonPort: number };
  const env = new Map(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  const context = { user_id: 'bench', project_id: env.get('SVC_PROJECT_ID') ?? '', session_id: sessionId };
  return { url: `http://127.0.0.1:${daemonPort}`, userContext: signUserContext(context, env.get('SVC_SANDBOX_TOKEN') ?? '') };
}

const SSE_SESSIONS = Number(process.env.BENCH_SSE_SESSIONS ?? 600);
const SSE_WARMUP = 50;
const SSE_GAP_MS = 10;

/**
 * The same runtime events read at once straight from the runtime, through the daemon alone, and through
 * API → daemon, by this one process. Per event: what each hop adds (its arrival behind the previous hop's
 * arrival of the same event); for the session.created events, the whole path from the request that caused
 * them. The events of the first runtime sessions are a warm-up and are not counted.
 */
async function sseFigures(server: BenchServer, sessionId: string, direct: string, daemon: { url: string; userContext: string }, proxied: string): Promise<Record<string, unknown>> {
  const streams = {
    straight: follow(`${direct}/event`, {}),
    daemon: follow(`${daemon.url}/event`, { 'x-svc-user-context': daemon.userContext }),
    api: follow(`${proxied}/event`, { authorization: `Bearer ${server.token}` }),
  };
  await Promise.all(Object.values(streams).map((stream) => stream.open));
  const runQueue = runQueueWatch({ daemon: daemonPid(server.dataDir, sessionId), api: server.pid });
  const sentAt = await makeEvents(direct, SSE_SESSIONS, SSE_GAP_MS);
  const waited = runQueue();
  const loadAverage = os.loadavg()[0];
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const stream of Object.values(streams)) stream.close();
  const hop = { daemon: [] as number[], api: [] as number[], added: [] as number[] };
  const whole = { straight: [] as number[], api: [] as number[] };
  let missing = 0;
  for (const [data, straightAt] of streams.straight.seen) {
    const index = Number(/"sse-bench (\d+)"/.exec(data)?.[1] ?? -1);
    if (index < SSE_WARMUP) continue;
    const daemonAt = streams.daemon.seen.get(data);
    const apiAt = streams.api.seen.get(data);
    if (daemonAt === undefined || apiAt === undefined) {
      missing += 1;
      continue;
    }
    hop.daemon.push(daemonAt - straightAt);
    hop.api.push(apiAt - daemonAt);
    hop.added.push(apiAt - straightAt);
    const sent = sentAt.get(index);
    if ((JSON.parse(data) as { type?: string }).type === 'session.created' && sent !== undefined) {
      whole.straight.push(straightAt - sent);
      whole.api.push(apiAt - sent);
    }
  }
  return {
    events: hop.added.length,
    missingOnAProxiedStream: missing,
    warmup: `the events of the first ${SSE_WARMUP} of ${SSE_SESSIONS} runtime sessions`,
    requestToEventMs: { straight: spread(whole.straight), throughApi: spread(whole.api), events: whole.api.length },
    addedDelayMs: { total: spread(hop.added), runtimeToDaemon: spread(hop.daemon), daemonToApi: spread(hop.api) },
    runQueue: waited,
    loadAverage1m: round(loadAverage ?? 0),
    cores: os.cpus().length,
  };
}

/** API → daemon → runtime against straight to the runtime, on one running session with its runtime ready. */
async function proxyFigures(server: BenchServer, base: string, sessionId: string): Promise<Record<string, unknown>> {
  const { runtimePort } = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'sandboxes', sessionId, 'sandbox.json'), 'utf8')) as { runtimePort: number };
  const direct = `http://127.0.0.1:${runtimePort}`;
  const proxied = `${server.url}${base}/${sessionId}/runtime`;
  const auth = { authorization: `Bearer ${server.token}` };
  await load(`${direct}/session`, {}, 4, 300);
  await load(`${proxied}/session`, auth, 4, 300);
  const straight = await load(`${direct}/session`, {}, 8, 2_000);
  const through = await load(`${proxied}/session`, auth, 8, 2_000);
  const singleStraight = await load(`${direct}/session`, {}, 1, 1_000);
  const singleThrough = await load(`${proxied}/session`, auth, 1, 1_000);

  const sse = await sseFigures(server, sessionId, direct, daemonAccess(server, sessionId), proxied);
  return {
    throughputPerSecond: { straight: round(straight.perSecond), throughApi: round(through.perSecond), ratio: round(through.perSecond / straight.perSecond), concurrency: 8 },
    latencyMs: {
      straightP50: round(percentile(singleStraight.latencies, 50)),
      throughApiP50: round(percentile(singleThrough.latencies, 50)),
      throughApiP99: round(percentile(singleThrough.latencies, 99)),
    },
    sse,
    targets: { throughputRatio: 0.5, sseAddedDelayP99Ms: 5 },
  };
}

/** Idle running sandboxes started together, beyond the ones the create/resume runs left (none). */
const IDLE_SANDBOXES = 5;

/**
 * A proxied runtime request (API → daemon → runtime, `GET /session`) per second on one sandbox, and what
 * idle running sandboxes cost: each one's processes (svc's part and the runtime's), the count that fits in
 * this machine's memory at that cost, and the machine's available memory before and after starting them.
 */
async function idleSandboxes(server: BenchServer, base: string, provider: string): Promise<Record<string, unknown>> {
  const before = availableMb();
  const sessions = await Promise.all(Array.from({ length: IDLE_SANDBOXES }, async () => (await api(server, 'POST', base, {})).session as { id: string }));
  // The bench server leaves sandboxes running when it stops: a failed wait must not leak the five.
  const removeAll = () => Promise.all(sessions.map((session) => api(server, 'DELETE', `${base}/${session.id}`).catch(() => undefined)));
  try {
    for (const session of sessions) await until(server, `${base}/${session.id}`, (s) => s.status === 'running' && s.runtime_session_id !== null, 300_000);
  } catch (error) {
    await removeAll();
    throw error;
  }
  // Idle: the runtimes' start-up work (first session, plugins) has settled.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const after = availableMb();
  const prints = await Promise.all(sessions.map(async (session) => footprint(await sandboxPids(provider, server.dataDir, session.id))));
  const first = sessions[0] as { id: string };
  const proxied = `${server.url}${base}/${first.id}/runtime/session`;
  const auth = { authorization: `Bearer ${server.token}` };
  await load(proxied, auth, 4, 300);
  const through = await load(proxied, auth, 8, 2_000);
  const straight = provider === 'process' ? await straightToRuntime(server, first.id) : null;
  await removeAll();
  const perSandbox = median(prints.map((print) => print.totalPssMb));
  const totalMb = (await import('node:os')).totalmem() / 1024 / 1024;
  return {
    proxiedRuntimeRequestsPerSecond: round(through.perSecond),
    ...(straight === null ? {} : { straightToRuntimePerSecond: round(straight), ratio: round(through.perSecond / straight) }),
    idleSandboxMemory: {
      svcPssMb: round(median(prints.map((print) => print.svcPssMb)), 1),
      runtimePssMb: round(median(prints.map((print) => print.runtimePssMb)), 1),
      totalPssMb: round(perSandbox, 1),
      totalRssMb: round(median(prints.map((print) => print.totalRssMb)), 1),
      processes: median(prints.map((print) => print.processes)),
    },
    fitInMachineMemory: { machineMb: Math.round(totalMb), count: Math.floor(totalMb / perSandbox) },
    availableMemorySlope: { sandboxes: IDLE_SANDBOXES, mbEach: round((before - after) / IDLE_SANDBOXES, 1) },
  };
}

/** The floor: the same request straight to a process sandbox's runtime port, no API and no daemon. */
async function straightToRuntime(server: BenchServer, sessionId: string): Promise<number> {
  const { runtimePort } = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'sandboxes', sessionId, 'sandbox.json'), 'utf8')) as { runtimePort: number };
  const direct = `http://127.0.0.1:${runtimePort}/session`;
  await load(direct, {}, 4, 300);
  return (await load(direct, {}, 8, 2_000)).perSecond;
}

/** Sessions created together, each doing one scripted turn (a shell command, then text). */
async function concurrentTurns(server: BenchServer, base: string, count: number): Promise<Record<string, unknown>> {
  const start = performance.now();
  const sessions = await Promise.all(Array.from({ length: count }, async () => (await api(server, 'POST', base, { prompt: 'Write turn.txt.' })).session as { id: string }));
  const errors: string[] = [];
  const turnDone = await Promise.all(
    sessions.map(async (session) => {
      const file = path.join(server.dataDir, 'sandboxes', session.id, 'workspace', 'turn.txt');
      const deadline = Date.now() + 300_000;
      while (!fs.existsSync(file)) {
        const { session: now } = await api(server, 'GET', `${base}/${session.id}`);
        if (now.status === 'failed') {
          errors.push(`${session.id}: ${now.error}`);
          return null;
        }
        if (Date.now() > deadline) {
          errors.push(`${session.id}: no turn within 300 s`);
          return null;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return performance.now() - start;
    }),
  );
  const done = turnDone.filter((value): value is number => value !== null);
  await Promise.all(sessions.map((session) => api(server, 'DELETE', `${base}/${session.id}`).catch((error: Error) => errors.push(error.message))));
  return { sessions: count, completed: done.length, errors, allTurnsDoneMs: done.length ? round(Math.max(...done)) : null, medianTurnDoneMs: done.length ? round(median(done)) : null };
}

export async function runSessionsBench(): Promise<Record<string, unknown>> {
  const floor = nodeStartMs();
  const providers: Record<string, unknown> = {};
  // BENCH_SANDBOX_PROVIDERS=docker measures those providers only, and leaves out the runtime figures.
  const chosen = process.env.BENCH_SANDBOX_PROVIDERS?.split(',');
  for (const provider of ['process', 'bubblewrap', 'docker'] as const) {
    if (chosen && !chosen.includes(provider)) continue;
    providers[provider] = await benchProvider(provider).catch((error: Error) => ({ unavailable: error.message.split('\n').find((line) => line.startsWith('svc:')) ?? error.message.slice(0, 300) }));
  }
  const runtime = chosen ? {} : await runtimeFigures();
  return {
    providers,
    floorTwoNodeStartsMs: round(2 * floor),
    targets: { process: { createToRunningMs: 300, resumeToRunningMs: 300, daemonRssMb: 60 }, bubblewrap: { createToRunningMs: 300, resumeToRunningMs: 300 }, docker: { createToRunningMs: 1500, resumeToRunningMs: 1500 } },
    runs: RUNS,
    ...runtime,
  };
}

/** The proxy and 20 concurrent scripted turns, on the process provider with the real runtime. */
async function runtimeFigures(): Promise<Record<string, unknown>> {
  return withScriptedRuntime(async (server, base) => {
    const { proxy, daemonRss } = await proxyOnOneSession(server, base);
    const concurrent = await concurrentTurns(server, base, 20);
    return { daemonRssAfterProxyLoadMb: daemonRss, proxy, concurrentTurns: concurrent };
  });
}

/** `node dist/bench/run.js sessions-proxy`: the proxy figures alone (the SSE delay among them). */
export function runSessionsProxyBench(): Promise<Record<string, unknown>> {
  return withScriptedRuntime(async (server, base) => {
    const { proxy, daemonRss } = await proxyOnOneSession(server, base);
    return { daemonRssAfterProxyLoadMb: daemonRss, proxy };
  });
}

/** A bench server on the process provider and a project whose runtime asks the scripted model. */
async function withScriptedRuntime(measure: (server: BenchServer, base: string) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  // Each session's turn: a shell command, then (once the tool's result is in the conversation) text.
  const model = await startScriptedModel([], {
    respond: (body) => (body.messages?.at(-1)?.role === 'tool' ? { text: 'Done.' } : { tool: 'bash', input: { command: 'echo done > turn.txt', description: 'Write turn.txt' } }),
  });
  const server = await startBenchServer({ SVC_MAX_SESSIONS: '100' });
  try {
    const projectId = await projectWithCommit(server, model);
    return await measure(server, `/v1/projects/${projectId}/sessions`);
  } finally {
    await server.stop();
    await model.close();
  }
}

async function proxyOnOneSession(server: BenchServer, base: string): Promise<{ proxy: Record<string, unknown>; daemonRss: number | null }> {
  const { session } = await api(server, 'POST', base, {});
  await until(server, `${base}/${session.id}`, (s) => s.status === 'running' && s.runtime_session_id !== null);
  const proxy = await proxyFigures(server, base, session.id);
  const pid = daemonPid(server.dataDir, session.id);
  const daemonRss = pid === null ? null : rssMb(pid);
  await api(server, 'DELETE', `${base}/${session.id}`);
  return { proxy, daemonRss };
}

async function benchProvider(provider: 'process' | 'bubblewrap' | 'docker'): Promise<Record<string, unknown>> {
  // A boot is measured, not judged: on a loaded machine five sandboxes starting together take longer than svc's default.
  const server = await startBenchServer({ SVC_MAX_SESSIONS: '100', SVC_SANDBOX_PROVIDER: provider, SVC_SANDBOX_BOOT_TIMEOUT_MS: '600000' });
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
      ...(await idleSandboxes(server, base, provider)),
    };
  } finally {
    await server.stop();
  }
}
