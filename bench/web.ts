/**
 * Web app benchmark (issue 23), each figure beside a floor measured in the same run:
 *   first byte of a CR page whose diff has 200 files and 20,000 changed lines (target ≤ 150 ms)
 *     vs the API's JSON diff of the same CR (the same git work, no HTML)
 *   server time to draw a session's conversation of 2,000 events (target ≤ 100 ms)
 *     vs JSON.parse of the runtime's answer holding them (what reading them costs at all)
 *   a streamed event from the runtime to the open page's DOM, p50 and p99 (target ≤ 100 ms; web-stream.ts)
 *     vs the same event reaching the API's events stream
 * The server runs as `svc serve` in its own process; the page is asked for as a browser would (gzip off).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { renderConversation, type RuntimeMessage } from '../src/web/app/conversation.js';
import { median, round, startBenchServer, timeMedian, type BenchServer } from './support.js';
import { streamedEventBench } from './web-stream.js';

const FILES = 200;
const LINES_PER_FILE = 100;
const EVENTS = 2_000;
const RUNS = 15;

const gitEnv = { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', HOME: os.tmpdir(), GIT_TERMINAL_PROMPT: '0' };

function git(cwd: string, args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
}

function sourceFile(index: number): string {
  const lines: string[] = [];
  for (let line = 0; line < LINES_PER_FILE; line += 1) lines.push(`export function f${index}_${line}(value: number): number { return value * ${line} + ${index}; }`);
  return `${lines.join('\n')}\n`;
}

/** Milliseconds until the first byte of the body, and until the last. */
function timeRequest(url: string, token: string): Promise<{ firstByte: number; total: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByte = 0;
    let bytes = 0;
    const request = http.get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.on('data', (chunk: Buffer) => {
        if (firstByte === 0) firstByte = performance.now() - started;
        bytes += chunk.length;
      });
      response.on('end', () => resolve({ firstByte, total: performance.now() - started, bytes, status: response.statusCode ?? 0 }));
    });
    request.on('error', reject);
  });
}

async function json(server: BenchServer, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(server.url + route, { method, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function crPage(): Promise<Record<string, unknown>> {
  const server = await startBenchServer();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-web-'));
  try {
    const { project } = await json(server, 'POST', '/v1/projects', { name: 'bench web' });
    const remote = new URL(project.clone_url);
    remote.username = 'x';
    remote.password = server.token;
    git(work, ['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(work, 'README.md'), '# bench\n');
    git(work, ['add', '-A']);
    git(work, ['commit', '-q', '-m', 'start']);
    git(work, ['push', '-q', remote.toString(), 'HEAD:main']);
    git(work, ['checkout', '-q', '-b', 'bench/web']);
    for (let index = 0; index < FILES; index += 1) {
      fs.mkdirSync(path.join(work, 'src', `m${index % 10}`), { recursive: true });
      fs.writeFileSync(path.join(work, 'src', `m${index % 10}`, `f${index}.ts`), sourceFile(index));
    }
    git(work, ['add', '-A']);
    git(work, ['commit', '-q', '-m', '200 files']);
    git(work, ['push', '-q', remote.toString(), 'HEAD:bench/web']);
    const { change_request: cr } = await json(server, 'POST', `/v1/projects/${project.id}/change-requests`, { title: 'Bench', head_ref: 'bench/web' });
    const page = `${server.url}/projects/${project.slug}/change-requests/${cr.number}`;
    const api = `${server.url}/v1/projects/${project.id}/change-requests/${cr.number}/diff`;
    const pages: Array<{ firstByte: number; total: number; bytes: number }> = [];
    const apis: Array<{ total: number }> = [];
    for (let run = 0; run < RUNS + 2; run += 1) {
      const shown = await timeRequest(page, server.token);
      const floor = await timeRequest(api, server.token);
      if (shown.status !== 200 || floor.status !== 200) throw new Error(`CR page ${shown.status}, diff ${floor.status}`);
      if (run >= 2) {
        pages.push(shown);
        apis.push(floor);
      }
    }
    return {
      files: FILES,
      changed_lines: FILES * LINES_PER_FILE,
      page_first_byte_ms: round(median(pages.map((p) => p.firstByte))),
      page_total_ms: round(median(pages.map((p) => p.total))),
      page_bytes: pages[0]?.bytes ?? 0,
      floor_api_diff_ms: round(median(apis.map((p) => p.total))),
      target_first_byte_ms: 150,
    };
  } finally {
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** 2,000 parts: tool calls with input and output, and the agent's text between them. */
function conversation(): RuntimeMessage[] {
  const messages: RuntimeMessage[] = [];
  for (let index = 0; index < EVENTS / 2; index += 1) {
    messages.push({
      info: { id: `m${index}`, role: 'assistant' },
      parts: [
        { id: `t${index}`, type: 'text', text: `Step ${index}: I read the file and change what the test needs, then run the tests again.` },
        { id: `c${index}`, type: 'tool', tool: 'bash', state: { status: 'completed', title: `npm test -- step ${index}`, input: { command: `npm test -- --grep step-${index}` }, output: `ok ${index}\n`.repeat(20) } },
      ],
    });
  }
  return messages;
}

async function sessionPage(): Promise<Record<string, unknown>> {
  const messages = conversation();
  const text = JSON.stringify(messages);
  const render = await timeMedian(RUNS, 3, () => renderConversation(messages));
  const parse = await timeMedian(RUNS, 3, () => JSON.parse(text));
  return { events: EVENTS, render_ms: round(render), floor_json_parse_ms: round(parse), html_bytes: renderConversation(messages).length, target_ms: 100 };
}

export async function runWebBench(): Promise<Record<string, unknown>> {
  return { cr_page: await crPage(), session_page: await sessionPage(), streamed_event: await streamedEventBench() };
}
