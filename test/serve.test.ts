import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliBinary, runCli } from './support/cli-harness.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `svc serve` as an operator would and waits for its announcement on stderr. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}, waitFor = /svc serving on /) {
  // A directory svc makes itself, as on a first start.
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-serve-')), 'data');
  const child = spawn(process.execPath, [cliBinary, 'serve', '--port', '0', '--data-dir', dataDir, ...args], {
    // The command itself is under test here, on SQLite; the PostgreSQL pass covers the database elsewhere.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /svc serving on (http:\/\/[\d.]+:\d+)/.exec(stderr);
      if (match?.[1] && waitFor.test(stderr)) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`svc serve exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, dataDir, stderr: () => stderr, stdout: () => stdout, exited };
}

describe('svc serve', () => {
  it('prints where it listens and the first-boot admin token, which works', async () => {
    const server = await serve([], {}, /Log the CLI in with/);
    const token = fs.readFileSync(path.join(server.dataDir, 'admin-token'), 'utf8').trim();
    expect(server.stderr()).toContain(`svc serving on ${server.url} (public URL ${server.url}; SQLite in ${server.dataDir})`);
    expect(server.stderr()).toContain(`Admin token (shown once, also written to ${server.dataDir}/admin-token):\n\n  ${token}\n`);
    // The hint names a command that runs this checkout's CLI, never `npx svc` (a stranger's package outside it).
    expect(server.stderr()).not.toContain('npx');
    const command = /or run (node \S+)\)/.exec(server.stderr())?.[1]?.split(' ') ?? [];
    expect(command[1]).toBe(cliBinary);
    const version = await runCli(['--version'], { cwd: os.tmpdir() });
    const { version: packaged } = JSON.parse(fs.readFileSync(path.join(path.dirname(cliBinary), '..', 'package.json'), 'utf8')) as { version: string };
    expect(version).toEqual({ code: 0, stdout: `${packaged}\n`, stderr: '' });
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const projects = await fetch(`${server.url}/v1/projects`, { headers: { authorization: `Bearer ${token}` } });
    expect(projects.status).toBe(200);
    // Secrets and token hashes live here: readable by the server's user only.
    const mode = (file: string) => (fs.statSync(path.join(server.dataDir, file)).mode & 0o777).toString(8);
    expect([mode('.'), mode('svc.sqlite'), mode('svc.sqlite-wal'), mode('admin-token')]).toEqual(['700', '600', '600', '600']);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('warns that links would name 0.0.0.0 when it listens on every interface without SVC_BASE_URL', async () => {
    const server = await serve(['--host', '0.0.0.0'], {}, /set SVC_BASE_URL/);
    const port = new URL(server.url).port;
    expect(server.stderr()).toContain(
      `svc: links, clone URLs and SVC_API_URL will name http://0.0.0.0:${port}, which no browser or git client can reach; set SVC_BASE_URL to the address people use (e.g. http://<this machine's name>:${port}).`,
    );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const named = await serve(['--host', '0.0.0.0'], { SVC_BASE_URL: 'http://svc.example.test:8080' });
    expect(named.stderr()).not.toContain('set SVC_BASE_URL');
    named.child.kill('SIGTERM');
    await named.exited;
  });

  it('keeps what ECharts says of a hostile chart option out of its log, so a publisher cannot write log lines', async () => {
    const server = await serve([], { SVC_LOG_LEVEL: 'info' }, /Log the CLI in with/);
    const token = fs.readFileSync(path.join(server.dataDir, 'admin-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const forged = '{"level":30,"time":1,"msg":"FORGED: admin signed in"}';
    const chart = { type: 'chart', series: [{ name: 'a', data: [1, 2] }], option: { series: [{ type: `evil\n${forged}\n` }] } };
    const published = await fetch(`${server.url}/api/dashboards`, { method: 'POST', headers, body: JSON.stringify({ slug: 'forge', title: 'Forge', sections: [{ blocks: [chart] }] }) });
    expect(published.status).toBe(201);
    const page = await fetch(`${server.url}/d/forge`, { headers });
    expect(page.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // The server's log went to stdout; nothing ECharts printed did.
    expect(server.stdout()).toContain('"msg":"Server listening at');
    expect(server.stdout() + server.stderr()).not.toContain('FORGED');
  });

  it('runs several workers on one port and stops them all on SIGTERM', async () => {
    const server = await serve(['--workers', '2'], { SVC_ADMIN_TOKEN: 'svc_u_workers' });
    expect(server.stderr()).toContain('2 workers');
    expect(server.stderr()).not.toContain('Admin token');
    const headers = { authorization: 'Bearer svc_u_workers', 'content-type': 'application/json' };
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => fetch(`${server.url}/api/dashboards`, { method: 'POST', headers, body: JSON.stringify({ slug: 'shared', title: `t${i}` }) })),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(11).fill(200), 201]);
    const versions = await (await fetch(`${server.url}/api/dashboards/shared/versions`, { headers })).json();
    expect(versions.versions).toHaveLength(12);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('says in one line that the port is taken, with one process or several', async () => {
    const other = net.createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      for (const extra of [[], ['--workers', '2']]) {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-serve-taken-'));
        const result = await runCli(['serve', '--port', String(port), '--data-dir', dataDir, ...extra], { env: { SVC_LOG_LEVEL: 'warn' } });
        expect(result.stderr, extra.join(' ')).toBe(`svc: port ${port} is already in use; pass --port N or stop the other server\n`);
        expect(result.code, extra.join(' ')).toBe(1);
      }
    } finally {
      other.close();
    }
  });

  it('refuses a bad SVC_PORT, SVC_WORKERS or model gateway in one line, as a usage error', async () => {
    const port = await runCli(['serve'], { env: { SVC_PORT: 'eighty' } });
    expect(port.stderr).toBe('svc: SVC_PORT must be a port number from 0 to 65535 (got "eighty")\n');
    expect(port.code).toBe(2);
    const workers = await runCli(['serve', '--port', '0'], { env: { SVC_WORKERS: 'many' } });
    expect(workers.stderr).toBe('svc: SVC_WORKERS must be an integer from 1 to 64 (got "many")\n');
    expect(workers.code).toBe(2);
    const halfGateway = await runCli(['serve', '--port', '0'], { env: { SVC_LLM_BASE_URL: 'https://gateway.example/v1' } });
    expect(halfGateway.stderr).toBe('svc: SVC_LLM_API_KEY and SVC_LLM_BASE_URL are set together or not at all (only SVC_LLM_BASE_URL is set)\n');
    expect(halfGateway.code).toBe(2);
    const notHttp = await runCli(['serve', '--port', '0'], { env: { SVC_LLM_API_KEY: 'gateway-key', SVC_LLM_BASE_URL: 'ftp://gateway.example' } });
    expect(notHttp.stderr).toBe('svc: SVC_LLM_BASE_URL must be an http:// or https:// URL (got "ftp://gateway.example")\n');
    expect(notHttp.code).toBe(2);
  });

  it('refuses a bad port with a usage error', async () => {
    const child = spawn(process.execPath, [cliBinary, 'serve', '--port', 'eighty'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port must be an integer from 0 to 65535');
  });
});
