/**
 * Triggers. The webhook receiver's 202 path (signature checked, fire recorded, answered) on SQLite and on
 * PostgreSQL, each beside a floor measured in the same run: a bare node:http server doing only the HMAC, in
 * its own process as svc is; then the receiver's p99 at a fixed 1,000 requests/s, beside the floor's and, on
 * PostgreSQL, beside the database's own commits at that pace (no receiver answers before its commit). A
 * manifest of 10,000 triggers pushed: how long until they are read and what other requests wait meanwhile.
 * BENCH_TRIGGERS=webhook, manifest or cron runs one part. The scheduler: many cron triggers due every few seconds on
 * three replicas sharing one PostgreSQL database, how late each fire was (fired_at − due_at), fires twice
 * for one slot (duplicates) and slots skipped (missed); and the CPU an idle scheduler costs.
 */
import { execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { loadServer, type LoadResult } from './http-load.js';
import { pacedCalls, pacedLoad, type PacedResult } from './paced-load.js';
import { benchApi, benchProject, cpuSeconds, round, startBenchServer, waitUntilIdle, type BenchServer } from './support.js';

const SECRET = 'bench-webhook-secret';
const BODY = JSON.stringify({ action: 'opened', pull_request: { number: 1, title: 'Bench', body: 'x'.repeat(1500) } });
const SIGNATURE = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;
const LOAD_SECONDS = 8;
/** Rounds of the saturating load (each the floor, then svc, for half of LOAD_SECONDS). */
const LOAD_ROUNDS = 5;
const PACED_WARMUP_SECONDS = 2;
const CRON_TRIGGERS = Number(process.env.BENCH_CRON_TRIGGERS ?? 1500);
const CRON_EVERY_S = Number(process.env.BENCH_CRON_EVERY_S ?? 5);
const CRON_SECONDS = Number(process.env.BENCH_CRON_SECONDS ?? 45);
const REPLICAS = 3;
/** The cron bench pushes its manifest this long before a slot falls due. */
const PUSH_BEFORE_SLOT_MS = 300;
const MANIFEST_TRIGGERS = 10_000;
const execFileAsync = promisify(execFile);

const api = benchApi;

/** A project whose first commit holds the manifest, its triggers read before it returns. */
async function projectWithManifest(server: BenchServer, manifest: string): Promise<string> {
  const projectId = await benchProject(server, { 'svc.yaml': manifest });
  await api(server, 'GET', `/v1/projects/${projectId}/triggers`);
  return projectId;
}

function idleRuntime(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-runtime-')), 'idle-runtime');
  fs.writeFileSync(file, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  return file;
}

/** The floor: node:http, the raw body, the HMAC and a constant-time compare, a 202. Its own process. */
async function startFloorServer(): Promise<{ url: string; stop(): void }> {
  const source = `
const http = require('node:http');
const { createHmac, timingSafeEqual } = require('node:crypto');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const given = Buffer.from(String(req.headers['x-hub-signature-256'] || '').replace(/^sha256=/, ''), 'hex');
    const expected = createHmac('sha256', ${JSON.stringify(SECRET)}).update(body).digest();
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    res.writeHead(ok ? 202 : 401, { 'content-type': 'application/json' });
    res.end(ok ? '{"status":"fired"}' : '{}');
  });
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout?.on('data', (chunk: Buffer) => resolve(Number(/port (\d+)/.exec(chunk.toString())?.[1]))));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** A private schema of the bench's PostgreSQL database, or null when there is none to reach. */
async function postgresSchema(): Promise<{ url: string; drop(): Promise<void> } | { skipped: string }> {
  const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `svc_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
  } catch (error) {
    return { skipped: `no PostgreSQL at ${baseUrl} (${error instanceof Error ? error.message : String(error)}); set BENCH_DATABASE_URL` };
  }
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * The database's own share of the 10 ms target: svc's latest fire row, written again and again at 1,000/s straight
 * to an empty table made like trigger_fires (its columns and indexes), each by one INSERT in its own commit (eight
 * connections, so a slow commit holds up only those the database makes wait). A webhook fire is answered only
 * once its commit is durable: no receiver writing these rows to this database answers faster. A table of its own,
 * so that svc's dispatcher never sees these rows and the loads after this one find svc's table as svc left it.
 */
async function postgresCommitsAtPace(url: string): Promise<PacedResult> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  try {
    const { rows } = await pool.query('select * from trigger_fires where delivery_id is not null order by fired_at desc limit 1');
    const template = rows[0] as Record<string, unknown> | undefined;
    if (!template) throw new Error('no webhook fire recorded to copy');
    await pool.query('create table bench_fires (like trigger_fires including all)');
    const prefix = randomBytes(8).toString('hex');
    const insert = (index: number) => {
      const row = { ...template, id: `${prefix}-${index}`, delivery_id: `${prefix}-delivery-${index}`, fired_at: new Date().toISOString() };
      return pool.query({ name: 'bench_fire', text: 'insert into bench_fires select * from json_populate_record(null::bench_fires, $1::json)', values: [JSON.stringify(row)] }).then(
        () => true,
        () => false,
      );
    };
    await pacedCalls(1000, PACED_WARMUP_SECONDS, (index) => insert(-1 - index));
    const paced = await pacedCalls(1000, LOAD_SECONDS, insert);
    await pool.query('drop table bench_fires');
    return paced;
  } finally {
    await pool.end();
  }
}

async function webhookFigures(database: 'sqlite' | 'postgresql'): Promise<Record<string, unknown>> {
  const schema = database === 'postgresql' ? await postgresSchema() : null;
  if (schema && 'skipped' in schema) return { database, skipped: schema.skipped };
  try {
    return { database, ...(await webhookLoad(schema ? { DATABASE_URL: schema.url } : {}, schema ? () => postgresCommitsAtPace(schema.url) : undefined)) };
  } finally {
    await schema?.drop();
  }
}

async function webhookLoad(databaseEnv: Record<string, string>, databaseCommits?: () => Promise<PacedResult>): Promise<Record<string, unknown>> {
  // One slot, held by one session: every fire is recorded and answered `queued`, so no sandbox boots per request.
  const server = await startBenchServer({ SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntime(), ...databaseEnv });
  const floor = await startFloorServer();
  try {
    const projectId = await projectWithManifest(server, 'triggers:\n  - slug: hook\n    type: webhook\n    secret_env: HOOK_SECRET\n    prompt: "{{ body.action }} #{{ body.pull_request.number }}"\n');
    await api(server, 'PUT', `/v1/projects/${projectId}/secrets/HOOK_SECRET`, { value: SECRET });
    await api(server, 'POST', `/v1/projects/${projectId}/sessions`, {});
    const headers = { 'content-type': 'application/json', 'x-hub-signature-256': SIGNATURE };
    // Every GitHub delivery has an id of its own, which the receiver looks up to answer repeats.
    const uniqueHeader = 'x-github-delivery';
    const target = `${server.url}/v1/webhooks/projects/${projectId}/hook`;
    const probe = await fetch(target, { method: 'POST', headers, body: BODY });
    if (probe.status !== 202) throw new Error(`the receiver answered ${probe.status}: ${await probe.text()}`);
    const startupMs = await waitUntilIdle(server.pid);

    // The paced load first: its tail is the receiver's at 1,000/s, not PostgreSQL's checkpoint and vacuum after the
    // saturating load below wrote a hundred thousand fires. Two seconds of it warm both sides up (the first requests
    // of a fresh process compile its code) and are not counted.
    await pacedLoad({ url: target, method: 'POST', headers, uniqueHeader, body: BODY, perSecond: 1000, seconds: PACED_WARMUP_SECONDS });
    const paced = await pacedLoad({ url: target, method: 'POST', headers, uniqueHeader, body: BODY, perSecond: 1000, seconds: LOAD_SECONDS });
    // The floor at the same pace: what this machine's loopback and scheduler leave of the 10 ms target.
    await pacedLoad({ url: floor.url, method: 'POST', headers, uniqueHeader, body: BODY, perSecond: 1000, seconds: PACED_WARMUP_SECONDS });
    const floorPaced = await pacedLoad({ url: floor.url, method: 'POST', headers, uniqueHeader, body: BODY, perSecond: 1000, seconds: LOAD_SECONDS });
    const commitsPaced = await databaseCommits?.();
    // The saturating load in rounds, the floor and svc one after the other in each: on a shared virtual machine the
    // speed of both drifts by a third within a minute, and a floor measured half a minute before svc moved the ratio
    // by as much. The figures are the round with the median ratio; every round is listed.
    const rounds: Array<{ svc: LoadResult; floor: LoadResult; ratio: number }> = [];
    for (let index = 0; index < LOAD_ROUNDS; index += 1) {
      const floorLoad = await loadServer({ url: floor.url, method: 'POST', headers, uniqueHeader, body: BODY, connections: 32, seconds: LOAD_SECONDS / 2 });
      const svcLoad = await loadServer({ url: target, method: 'POST', headers, uniqueHeader, body: BODY, connections: 32, seconds: LOAD_SECONDS / 2 });
      rounds.push({ svc: svcLoad, floor: floorLoad, ratio: round(svcLoad.perSecond / Math.max(1, floorLoad.perSecond)) });
    }
    const { svc: svcLoad, floor: floorLoad, ratio } = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)]!;
    // A sender delivering again what it sent (GitHub's redeliveries, a retrying proxy): every delivery of the
    // second pass repeats one of the first and is answered `duplicate`.
    const repeatedPrefix = `${randomBytes(8).toString('hex')}-`;
    const firstPass = await loadServer({ url: target, method: 'POST', headers, uniqueHeader, uniquePrefix: repeatedPrefix, body: BODY, connections: 32, seconds: LOAD_SECONDS / 2 });
    const repeats = await loadServer({ url: target, method: 'POST', headers, uniqueHeader, uniquePrefix: repeatedPrefix, body: BODY, connections: 32, seconds: LOAD_SECONDS / 8 });
    return {
      client: svcLoad.client,
      bodyBytes: BODY.length,
      // How long the server was busy with its start-up before the load began (not measured).
      startupMs,
      svcPerSecond: svcLoad.perSecond,
      svcLatencyMs: svcLoad.latencyMs,
      svcFailed: rounds.reduce((sum, one) => sum + one.svc.failed, 0),
      floorPerSecond: floorLoad.perSecond,
      floorLatencyMs: floorLoad.latencyMs,
      ratioToFloor: ratio,
      rounds: rounds.map((one) => ({ svcPerSecond: one.svc.perSecond, floorPerSecond: one.floor.perSecond, ratioToFloor: one.ratio })),
      // Requests/s when every delivery repeats a recorded one (the second pass is a quarter of the first: it sends no new id).
      repeatedDeliveries: { perSecond: repeats.perSecond, latencyMs: repeats.latencyMs, failed: repeats.failed, firstPassPerSecond: firstPass.perSecond },
      at1000PerSecond: paced,
      floorAt1000PerSecond: floorPaced,
      ...(commitsPaced ? { databaseCommitsAt1000PerSecond: commitsPaced } : {}),
      targets: { ratioToFloor: 0.5, p99MsAt1000PerSecond: 10 },
    };
  } finally {
    floor.stop();
    await server.stop();
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function latestPerSlot(rows: Array<{ due_at: Date; fired_at: Date }>): Array<{ due: string; fires: number; firstMs: number; lastMs: number }> {
  const slots = new Map<number, { fires: number; firstMs: number; lastMs: number }>();
  for (const row of rows) {
    const slot = slots.get(row.due_at.getTime()) ?? { fires: 0, firstMs: Infinity, lastMs: 0 };
    const lateness = row.fired_at.getTime() - row.due_at.getTime();
    slot.fires += 1;
    slot.firstMs = Math.min(slot.firstMs, lateness);
    slot.lastMs = Math.max(slot.lastMs, lateness);
    slots.set(row.due_at.getTime(), slot);
  }
  return [...slots.entries()].sort(([a], [b]) => a - b).map(([due, slot]) => ({ due: new Date(due).toISOString().slice(11, 19), ...slot }));
}

async function cronFigures(): Promise<Record<string, unknown>> {
  const database = await postgresSchema();
  if ('skipped' in database) return { skipped: database.skipped };
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-cron-'));
  const env = { DATABASE_URL: database.url, SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntime(), SVC_TRIGGER_SCHEDULER_INTERVAL_MS: '60000' };
  const replicas: BenchServer[] = [];
  try {
    for (let i = 0; i < REPLICAS; i++) replicas.push(await startBenchServer(env, { dataDir }));
    const first = replicas[0]!;
    // Idle first: the same number of triggers, none due for a year; what does the scheduler cost a replica?
    const yearly = Array.from({ length: CRON_TRIGGERS }, (_, i) => `  - slug: idle-${i}\n    type: cron\n    cron: "0 0 0 1 1 *"\n    prompt: x\n`).join('');
    await projectWithManifest(first, `triggers:\n${yearly}`);
    const idleBefore = cpuSeconds(first.pid);
    const idleWindowS = 10;
    await new Promise((resolve) => setTimeout(resolve, idleWindowS * 1000));
    const idleCpuPercent = round(((cpuSeconds(first.pid) - idleBefore) / idleWindowS) * 100, 2);

    const entries = Array.from({ length: CRON_TRIGGERS }, (_, i) => `  - slug: t-${i}\n    type: cron\n    cron: "*/${CRON_EVERY_S} * * * * *"\n    prompt: "t {{ cron.fired_at }}"\n`).join('');
    // Pushed just before a slot falls due, the hardest moment: reading a large manifest (10,000 triggers) takes
    // longer than that, so the run shows what becomes of a slot that passes while it is read (it is not fired late).
    const periodMs = CRON_EVERY_S * 1000;
    await new Promise((resolve) => setTimeout(resolve, (periodMs - (Date.now() % periodMs) - PUSH_BEFORE_SLOT_MS + periodMs) % periodMs));
    const pushedAt = Date.now();
    const projectId = await projectWithManifest(first, `triggers:\n${entries}`);
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, CRON_SECONDS * 1000));
    const ended = Date.now();
    const rows = (
      await admin.query<{ trigger_slug: string; due_at: Date; fired_at: Date }>(
        `SELECT trigger_slug, due_at, fired_at FROM trigger_fires WHERE project_id = $1 AND source = 'cron' AND due_at IS NOT NULL`,
        [projectId],
      )
    ).rows;
    const lateness = rows.map((row) => row.fired_at.getTime() - row.due_at.getTime()).sort((a, b) => a - b);
    // fired_at is when the transaction that claimed the fire began; it is visible once that commits. Where
    // PostgreSQL keeps commit times (track_commit_timestamp = on), the lateness at commit is given too, of the
    // fires no later write touched (a fire's xmin is its last write's; starting a queued fire counts an attempt).
    const committed = await admin
      .query<{ late_ms: number }>(
        `SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin) - due_at) * 1000 AS late_ms FROM trigger_fires WHERE project_id = $1 AND source = 'cron' AND due_at IS NOT NULL AND attempts = 0`,
        [projectId],
      )
      .then((result) => result.rows.map((row) => Math.round(Number(row.late_ms))).sort((a, b) => a - b))
      .catch((error: { code?: string }) => {
        // 55000: PostgreSQL keeps no commit times (track_commit_timestamp = off); anything else is the bench's fault.
        if (error.code === '55000') return null;
        throw error;
      });
    const slots = new Map<string, number>();
    for (const row of rows) slots.set(`${row.trigger_slug} ${row.due_at.getTime()}`, (slots.get(`${row.trigger_slug} ${row.due_at.getTime()}`) ?? 0) + 1);
    const duplicates = [...slots.values()].filter((count) => count > 1).length;
    // Slots due from the first fire to the end of the window (less the last period, which may be in flight).
    const firstDue = rows.reduce((earliest, row) => Math.min(earliest, row.due_at.getTime()), Infinity);
    const lastSlot = Math.floor((ended - CRON_EVERY_S * 1000) / (CRON_EVERY_S * 1000)) * CRON_EVERY_S * 1000;
    const expectedPerTrigger = Math.floor((lastSlot - firstDue) / (CRON_EVERY_S * 1000)) + 1;
    const firedInWindow = [...slots.keys()].filter((key) => Number(key.split(' ')[1]) <= lastSlot).length;
    const missed = Math.max(0, expectedPerTrigger * CRON_TRIGGERS - firedInWindow);
    return {
      database: 'postgresql',
      replicas: REPLICAS,
      triggers: CRON_TRIGGERS,
      everySeconds: CRON_EVERY_S,
      seconds: round((ended - started) / 1000, 1),
      fires: rows.length,
      // From the push to the triggers listed: the first slot after it that is fired is the first burst.
      manifestReadMs: started - pushedAt,
      latenessMs: { p50: percentile(lateness, 50), p99: percentile(lateness, 99), max: lateness.at(-1) ?? 0 },
      committedLatenessMs: committed ? { p50: percentile(committed, 50), p99: percentile(committed, 99), max: committed.at(-1) ?? 0 } : 'not kept (track_commit_timestamp = off)',
      // The first burst falls due within a period of the triggers being written, on replicas that have not fired
      // yet; the later ones are the scheduler's steady state. Both are given.
      latenessAfterFirstBurstMs: (() => {
        const later = rows.filter((row) => row.due_at.getTime() > firstDue).map((row) => row.fired_at.getTime() - row.due_at.getTime()).sort((a, b) => a - b);
        return { p50: percentile(later, 50), p99: percentile(later, 99), max: later.at(-1) ?? 0 };
      })(),
      // Per due instant, its earliest and latest fires: how late the burst began, and how long it took to fire in full.
      burstsMs: latestPerSlot(rows),
      duplicates,
      missed,
      idleSchedulerCpuPercent: idleCpuPercent,
      targets: { latenessP99Ms: 1000, duplicates: 0, missed: 0 },
    };
  } finally {
    for (const replica of replicas) await replica.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await admin.end();
    await database.drop();
  }
}

/** Latencies of /healthz asked one after another until `done` resolves: what any request waits while svc works. */
async function healthLatencies(server: BenchServer, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const started = performance.now();
    await (await fetch(`${server.url}/healthz`)).text();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return latencies.sort((a, b) => a - b);
}

/**
 * A manifest of 10,000 triggers pushed to a project's default branch: how long until its triggers are read,
 * and how long other requests (/healthz, asked every 5 ms) wait meanwhile, beside the same requests to the
 * idle server in the same run.
 */
async function manifestFigures(): Promise<Record<string, unknown>> {
  const server = await startBenchServer();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-manifest-'));
  try {
    const { project } = await api(server, 'POST', '/v1/projects', { name: `Manifest ${Date.now()}` });
    const entries = Array.from({ length: MANIFEST_TRIGGERS }, (_, i) => `  - slug: t-${i}\n    type: cron\n    cron: "${i % 60} ${i % 59} * * * *"\n    prompt: "t {{ cron.fired_at }} ${i}"\n`);
    fs.writeFileSync(path.join(work, 'svc.yaml'), `triggers:\n${entries.join('')}`);
    const git = (args: string[]) => execFileAsync('git', args, { cwd: work });
    await git(['init', '-q', '-b', 'main']);
    await git(['add', '-A']);
    await git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'Triggers']);
    const url = new URL(project.clone_url);
    url.username = 'x';
    url.password = server.token;

    const idle = await healthLatencies(server, new Promise((resolve) => setTimeout(resolve, 2_000)));
    const started = performance.now();
    const read = (async () => {
      await git(['push', '-q', url.toString(), 'HEAD:main']);
      const last = `${server.url}/v1/projects/${project.id}/triggers/t-${MANIFEST_TRIGGERS - 1}/fires?limit=1`;
      while ((await fetch(last, { headers: { authorization: `Bearer ${server.token}` } })).status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
      return performance.now() - started;
    })();
    const during = await healthLatencies(server, read);
    const summary = (latencies: number[]) => ({ p50: round(percentile(latencies, 50), 2), p99: round(percentile(latencies, 99), 2), max: round(latencies.at(-1) ?? 0, 2) });
    return {
      triggers: MANIFEST_TRIGGERS,
      manifestBytes: fs.statSync(path.join(work, 'svc.yaml')).size,
      pushToTriggersReadMs: Math.round(await read),
      healthzWhileReadMs: summary(during),
      healthzIdleMs: summary(idle),
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    await server.stop();
  }
}

export async function runTriggersBench(): Promise<Record<string, unknown>> {
  // BENCH_TRIGGERS=webhook, cron or manifest runs one part.
  const part = process.env.BENCH_TRIGGERS;
  const runs = (name: string) => part === undefined || part === name;
  return {
    ...(runs('webhook') ? { webhook: await webhookFigures('sqlite'), webhookPostgres: await webhookFigures('postgresql') } : {}),
    ...(runs('manifest') ? { manifest: await manifestFigures() } : {}),
    ...(runs('cron') ? { cron: await cronFigures() } : {}),
  };
}
