/**
 * The real agent runtime (opencode) runs offline against the scripted model: no update check, no model
 * catalog, no package downloads; a prompt makes it call the `bash` tool, which writes a file.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { prepareConfigDirectory, prepareRuntimeHome, RUNTIME_OFFLINE_ENV } from '../src/daemon/runtime-offline.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { followEvents, opencodeBinary, writeRuntimeConfig } from './support/runtime-fixture.js';

let model: ScriptedModel;
let runtime: ChildProcess;
/** What the runtime printed (its --print-logs), for the check that it downloaded nothing. */
let runtimeLog = '';
let root: string;
let workspace: string;
let base: string;
let readyMs: number;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  model = await startScriptedModel([{ tool: 'bash', input: { command: 'echo hi > file.txt', description: 'Write a file' } }, { text: 'Wrote file.txt.' }]);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-runtime-'));
  workspace = path.join(root, 'workspace');
  const home = path.join(root, 'home');
  const configDir = path.join(workspace, '.svc', 'runtime');
  fs.mkdirSync(home);
  execFileSync('git', ['init', '-q', '-b', 'main', workspace]);
  writeRuntimeConfig(configDir, model.baseUrl);
  execFileSync('git', ['-C', workspace, 'add', '.']);
  execFileSync('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'runtime config']);
  prepareRuntimeHome(home);
  prepareConfigDirectory(configDir);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  // No proxy and an unroutable registry: any download attempt would fail loudly instead of succeeding quietly.
  runtime = spawn(opencodeBinary, ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--print-logs'], {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '', HOME: home, OPENCODE_CONFIG_DIR: configDir, ...RUNTIME_OFFLINE_ENV, npm_config_registry: 'http://127.0.0.1:9/' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  runtime.stderr!.on('data', (chunk: Buffer) => (runtimeLog += chunk.toString()));
  // Requests that reach the runtime in its first seconds may never be answered; each probe has a deadline.
  for (;;) {
    try {
      const response = await fetch(`${base}/session/status`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) break;
    } catch {}
    if (runtime.exitCode !== null) throw new Error(`the runtime exited: ${runtimeLog}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  readyMs = Date.now() - started;
}, 120_000);

afterAll(async () => {
  runtime?.kill('SIGKILL');
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('a prompt runs the scripted bash tool call, writes the file and ends with session.idle', async () => {
  console.log(`runtime ready after ${readyMs} ms`);
  const events = followEvents(`${base}/event`);
  await events.until((event) => event.type === 'server.connected');
  const session = await (await fetch(`${base}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
  expect(session.id).toMatch(/^ses_/);
  const prompt = await fetch(`${base}/session/${session.id}/prompt_async`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ parts: [{ type: 'text', text: 'Write hi into file.txt' }] }) });
  expect(prompt.status).toBe(204);
  await events.until((event) => event.type === 'session.idle' && event.properties?.sessionID === session.id);
  events.close();

  expect(fs.readFileSync(path.join(workspace, 'file.txt'), 'utf8')).toBe('hi\n');
  const turns = model.requests.filter((request) => request.agentTurn);
  expect(turns.length).toBe(2);
  expect(turns[0]!.lastUserText).toContain('Write hi into file.txt');
  // The second call carries the tool's result back to the model.
  expect(JSON.stringify(turns[1]!.body.messages)).toContain('"role":"tool"');
  expect(events.events.some((event) => event.type === 'session.status' && event.properties?.status?.type === 'busy')).toBe(true);
  // Offline: nothing was installed or downloaded, and the repository shows only the agent's file.
  expect(runtimeLog).not.toMatch(/models\.dev|Failed to fetch|install failed|downloading/i);
  expect(fs.readdirSync(path.join(workspace, '.svc', 'runtime', 'node_modules'))).toEqual([]);
  expect(execFileSync('git', ['-C', workspace, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('?? file.txt\n');
}, 120_000);
