/**
 * Change-request benchmark: a repository of 20,000 files and 5,000 commits (built once with
 * `git fast-import` and cached), hosted by a real `svc serve`. Each figure sits beside the raw git commands
 * doing the same work in the same run:
 *   merge-preview of a diverged CR   vs `rev-parse` of the two branches + `merge-base` + `merge-tree --write-tree`
 *   a three-way merge                vs the same + `commit-tree` + `update-ref <new> <old>`
 *   the diff of a 200-file CR        vs `rev-parse` + `merge-base` + `diff-tree --raw --numstat --patch`
 *   GET of 500 open CRs with refresh vs `git for-each-ref` (target ≤ 150 ms)
 * Targets: preview and merge ≤ 1.3× raw git.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, round, startBenchServer, type BenchServer } from './support.js';

const FILES = 20_000;
const COMMITS = 5_000;
/** Main's history edits only files below this index, CR branches only files above it: their merges are clean. */
const MAIN_EDITS_BELOW = 15_000;
const FORK_COMMIT = 4_900;
const DIFF_FORK_COMMIT = 4_950;
const MERGE_BRANCHES = 24;
const LIST_BRANCHES = 500;
const CACHE_VERSION = 'v2';

const gitEnv = { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', HOME: os.tmpdir() };

function git(gitDir: string, args: string[], input?: string): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { env: gitEnv, input, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' }).trim();
}

/** The same, asynchronously and without a shell: what a fair "raw git" timing spawns. */
function gitAsync(gitDir: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, ...args], { env: gitEnv, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || (code === 1 && args[0] === 'merge-tree') ? resolve(out.trim()) : reject(new Error(`git ${args[0]} exited ${code}`))));
    child.stdin?.end(input);
  });
}

function filePath(index: number): string {
  return `src/d${Math.floor(index / 100)}/f${index % 100}.txt`;
}

function fileContent(index: number, revision: number): string {
  const lines = [`file ${index}`, `revision ${revision}`];
  for (let line = 0; line < 8; line += 1) lines.push(`line ${line} of file ${index}`);
  return `${lines.join('\n')}\n`;
}

/** A small deterministic PRNG (mulberry32), so the cached repository is the same on every machine. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The fast-import stream: main's 5,000 commits, then the CR branches. */
function fastImportStream(): string {
  const parts: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const commit = (ref: string, mark: number, from: number | null, message: string, files: Array<[number, number]>, time: number) => {
    parts.push(`commit ${ref}\nmark :${mark}\nauthor Bench <bench@example.invalid> ${time} +0000\ncommitter Bench <bench@example.invalid> ${time} +0000\n`);
    parts.push(data(message));
    if (from !== null) parts.push(`from :${from}\n`);
    for (const [index, revision] of files) parts.push(`M 100644 inline ${filePath(index)}\n${data(fileContent(index, revision))}`);
    parts.push('\n');
  };
  const next = random(42);
  const start = 1_600_000_000;
  commit('refs/heads/main', 1, null, 'initial import', Array.from({ length: FILES }, (_, index) => [index, 0]), start);
  for (let number = 2; number <= COMMITS; number += 1) {
    const edits: Array<[number, number]> = Array.from({ length: 4 }, () => [Math.floor(next() * MAIN_EDITS_BELOW), number]);
    commit('refs/heads/main', number, number - 1, `commit ${number}`, edits, start + number * 60);
  }
  let mark = COMMITS + 1;
  const branch = (name: string, from: number, files: number[]) => {
    commit(`refs/heads/${name}`, mark, from, `work on ${name}`, files.map((index) => [index, 1_000_000]), start + (COMMITS + 10) * 60 + mark);
    mark += 1;
  };
  branch('bench/preview', FORK_COMMIT, Array.from({ length: 10 }, (_, i) => 15_000 + i));
  branch('bench/diff-200', DIFF_FORK_COMMIT, Array.from({ length: 200 }, (_, i) => 15_100 + i));
  for (let k = 0; k < MERGE_BRANCHES; k += 1) branch(`bench/merge-${k}`, FORK_COMMIT, Array.from({ length: 10 }, (_, i) => 15_400 + k * 10 + i));
  for (let k = 0; k < LIST_BRANCHES; k += 1) branch(`bench/list-${k}`, COMMITS, [16_000 + k]);
  return parts.join('');
}

/** The cached source repository; built on first use (a few seconds), reused afterwards. */
function cachedRepository(): string {
  const cacheRoot = process.env.SVC_BENCH_CACHE ?? path.join(os.tmpdir(), 'svc-bench-cache');
  const repo = path.join(cacheRoot, `changes-${CACHE_VERSION}.git`);
  if (fs.existsSync(path.join(repo, 'svc-bench-complete'))) return repo;
  fs.rmSync(repo, { recursive: true, force: true });
  fs.mkdirSync(cacheRoot, { recursive: true });
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', repo], { env: gitEnv });
  git(repo, ['fast-import', '--quiet'], fastImportStream());
  git(repo, ['repack', '-a', '-d', '-q']);
  fs.writeFileSync(path.join(repo, 'svc-bench-complete'), `${new Date().toISOString()}\n`);
  return repo;
}

/** Points `target` at the cache's objects (alternates) and copies every branch: no object is copied. */
function seedFrom(cache: string, target: string): void {
  fs.mkdirSync(path.join(target, 'objects', 'info'), { recursive: true });
  fs.writeFileSync(path.join(target, 'objects', 'info', 'alternates'), `${path.join(cache, 'objects')}\n`);
  const refs = git(cache, ['for-each-ref', '--format=create %(refname) %(objectname)', 'refs/heads/']);
  git(target, ['update-ref', '--stdin'], `${refs}\n`);
}

async function api(server: BenchServer, method: string, route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(server.url + route, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : null };
}

async function expectOk(server: BenchServer, method: string, route: string, body?: unknown): Promise<unknown> {
  const result = await api(server, method, route, body);
  if (result.status >= 300) throw new Error(`${method} ${route} answered ${result.status}: ${JSON.stringify(result.json)}`);
  return result.json;
}

/**
 * Median wall times of `ours` and `raw`, measured alternately so that a change in machine load during the
 * run (other processes, CPU frequency) weighs on both sides alike.
 */
async function pairedMedians(runs: number, warmup: number, ours: (run: number) => Promise<unknown>, raw: (run: number) => Promise<unknown>): Promise<{ ours: number; raw: number }> {
  const oursSamples: number[] = [];
  const rawSamples: number[] = [];
  for (let run = 0; run < warmup + runs; run += 1) {
    let start = performance.now();
    await ours(run);
    if (run >= warmup) oursSamples.push(performance.now() - start);
    start = performance.now();
    await raw(run);
    if (run >= warmup) rawSamples.push(performance.now() - start);
  }
  return { ours: median(oursSamples), raw: median(rawSamples) };
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(work));
}

export async function runChangesBench(): Promise<Record<string, unknown>> {
  const buildStart = performance.now();
  const cache = cachedRepository();
  const buildMs = performance.now() - buildStart;
  const runs = Number(process.env.BENCH_RUNS ?? 9);

  const server = await startBenchServer();
  const rawRepo = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-raw-'));
  try {
    const created = (await expectOk(server, 'POST', '/v1/projects', { name: 'bench' })) as { project: { id: string } };
    const projectId = created.project.id;
    const hosted = path.join(server.dataDir, 'repos', `${projectId}.git`);
    seedFrom(cache, hosted);
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', rawRepo], { env: gitEnv });
    seedFrom(cache, rawRepo);
    const crs = `/v1/projects/${projectId}/change-requests`;

    // The CRs: 500 to list, one to preview, one 200-file diff, and the branches to merge.
    const listBranches = Array.from({ length: LIST_BRANCHES }, (_, k) => `bench/list-${k}`);
    await inBatches(listBranches, 8, (branch) => expectOk(server, 'POST', crs, { title: `List ${branch}`, head_ref: branch }));
    const number = async (branch: string) => ((await expectOk(server, 'POST', crs, { title: branch, head_ref: branch })) as { change_request: { number: number } }).change_request.number;
    const previewCr = await number('bench/preview');
    const diffCr = await number('bench/diff-200');
    const mergeCrs: number[] = [];
    for (let k = 0; k < MERGE_BRANCHES; k += 1) mergeCrs.push(await number(`bench/merge-${k}`));


    // 1. merge-preview of a diverged CR.
    const preview = await pairedMedians(
      runs,
      2,
      () => expectOk(server, 'GET', `${crs}/${previewCr}/merge-preview`),
      async () => {
        const [base = '', head = ''] = (await gitAsync(rawRepo, ['rev-parse', 'refs/heads/main', 'refs/heads/bench/preview'])).split('\n');
        await gitAsync(rawRepo, ['merge-base', base, head]);
        await gitAsync(rawRepo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', base, head]);
      },
    );

    // 2. The diff of a 200-file CR.
    const diff = await pairedMedians(
      runs,
      2,
      () => expectOk(server, 'GET', `${crs}/${diffCr}/diff`),
      async () => {
        const [tip = '', head = ''] = (await gitAsync(rawRepo, ['rev-parse', 'refs/heads/main', 'refs/heads/bench/diff-200'])).split('\n');
        const base = await gitAsync(rawRepo, ['merge-base', tip, head]);
        await gitAsync(rawRepo, ['diff-tree', '-r', '--raw', '--numstat', '--patch', '-z', '--no-renames', base, head]);
      },
    );

    // 3. GET of 500 open CRs with their SHA refresh (tips unchanged: one for-each-ref, no write).
    const list = await pairedMedians(
      runs,
      2,
      () => expectOk(server, 'GET', `${crs}?status=open`),
      () => gitAsync(rawRepo, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/']),
    );

    // 4. Three-way merges, each of a fresh CR onto the tip the previous merge produced; the raw side does the
    //    same sequence of merges on its own copy of the repository.
    // Merges are the noisiest figure (six git processes and a ref update each): every prepared branch is used.
    const merge = await pairedMedians(
      MERGE_BRANCHES - 1,
      1,
      (run) => expectOk(server, 'POST', `${crs}/${mergeCrs[run] ?? 0}/merge`, {}),
      async (run) => {
        const [base = '', head = ''] = (await gitAsync(rawRepo, ['rev-parse', 'refs/heads/main', `refs/heads/bench/merge-${run}`])).split('\n');
        // merge-base decides fast-forward or merge commit, as svc does.
        await gitAsync(rawRepo, ['merge-base', base, head]);
        const tree = (await gitAsync(rawRepo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', base, head])).split('\0')[0] ?? '';
        const commit = await gitAsync(rawRepo, ['-c', 'user.name=svc', '-c', 'user.email=svc@noreply.invalid', 'commit-tree', tree, '-p', base, '-p', head], 'Merge\n');
        await gitAsync(rawRepo, ['update-ref', 'refs/heads/main', commit, base]);
      },
    );

    // Base moved under all 500 open CRs: the next listing rewrites every base SHA (one batched UPDATE per 200).
    const afterMergeListStart = performance.now();
    const refreshed = (await expectOk(server, 'GET', `${crs}?status=open`)) as { change_requests: unknown[] };
    const listAfterBaseMovedMs = performance.now() - afterMergeListStart;

    return {
      repository: { files: FILES, commits: COMMITS, branches: LIST_BRANCHES + MERGE_BRANCHES + 2, cache, build_or_load_ms: round(buildMs, 0) },
      merge_preview_ms: round(preview.ours, 1),
      raw_git_merge_preview_ms: round(preview.raw, 1),
      merge_preview_ratio: round(preview.ours / preview.raw, 2),
      target_merge_preview_ratio: 1.3,
      three_way_merge_ms: round(merge.ours, 1),
      raw_git_three_way_merge_ms: round(merge.raw, 1),
      three_way_merge_ratio: round(merge.ours / merge.raw, 2),
      target_three_way_merge_ratio: 1.3,
      diff_200_files_ms: round(diff.ours, 1),
      raw_git_diff_200_files_ms: round(diff.raw, 1),
      diff_200_files_ratio: round(diff.ours / diff.raw, 2),
      list_500_open_ms: round(list.ours, 1),
      list_500_open_after_base_moved_ms: round(listAfterBaseMovedMs, 1),
      listed_open_crs: refreshed.change_requests.length,
      raw_git_for_each_ref_ms: round(list.raw, 1),
      target_list_500_open_ms: 150,
      raw_git_commands: {
        merge_preview: 'rev-parse <base> <head>; merge-base; merge-tree --write-tree',
        three_way_merge: 'rev-parse <base> <head>; merge-base; merge-tree --write-tree; commit-tree; update-ref <new> <old>',
        diff: 'rev-parse <base> <head>; merge-base; diff-tree --raw --numstat --patch',
        list: 'for-each-ref refs/heads/',
      },
    };
  } finally {
    await server.stop();
    fs.rmSync(rawRepo, { recursive: true, force: true });
  }
}
