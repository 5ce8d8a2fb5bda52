/**
 * The programs a sandbox carries, as `npm run build` bundles them (scripts/bundle-sandbox.ts): what each
 * bundle holds, read from the metafile esbuild writes beside it, and that each runs on its own, copied to a
 * directory with no package.json and no node_modules, as in a sandbox.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { poll } from './support/poll.js';
import { repoRoot } from './support/runtime-fixture.js';

const PROGRAMS = ['svc', 'svc-agent', 'svc-entrypoint'] as const;
type Program = (typeof PROGRAMS)[number];
const bundleDir = path.join(repoRoot, 'dist', 'sandbox');

/** What no sandbox carries (issue 18): the database drivers, the web framework and the chart engine. */
const SERVER_PACKAGES = ['pg', 'better-sqlite3', 'kysely', 'fastify', 'echarts'];
/** The packages each bundle may hold: the CLI's argument parser and the JSON parser its files read with. */
const PACKAGES: Record<Program, readonly string[]> = {
  svc: ['commander', 'secure-json-parse'],
  'svc-agent': [],
  'svc-entrypoint': [],
};
/** Folders of src/ the sandbox's svc must not hold: the server and every domain's code. */
const SERVER_FOLDERS = ['server', 'db', 'web', 'dashboards', 'sessions', 'triggers', 'changes', 'git', 'background'];

interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }>;
}

function metafile(program: Program): Metafile {
  return JSON.parse(fs.readFileSync(path.join(bundleDir, `${program}.meta.json`), 'utf8')) as Metafile;
}

/** The npm packages a bundle holds, by the last node_modules/ in each input's path. */
function packagesOf(meta: Metafile): string[] {
  const names = Object.keys(meta.inputs).flatMap((input) => {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) return [];
    const parts = input.slice(at + 'node_modules/'.length).split('/');
    return [parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!];
  });
  return [...new Set(names)].sort();
}

/** The files of src/ a bundle holds, relative to the repository. */
function sourcesOf(meta: Metafile): string[] {
  return Object.keys(meta.inputs)
    .map((input) => path.relative(repoRoot, path.resolve(repoRoot, input)).split(path.sep).join('/'))
    .filter((input) => input.startsWith('src/'));
}

let sandboxLib: string;
const children: Array<ReturnType<typeof spawn>> = [];

beforeAll(() => {
  sandboxLib = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bundles-'));
  for (const program of PROGRAMS) fs.copyFileSync(path.join(bundleDir, `${program}.mjs`), path.join(sandboxLib, `${program}.mjs`));
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(sandboxLib, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a copied bundle with a sandbox's bare environment (no SVC_* of the test's own). */
function run(program: Program, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(sandboxLib, `${program}.mjs`), ...args], { cwd: sandboxLib, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('no bundle holds a database driver, Fastify or ECharts, and each holds only the packages it names', () => {
  for (const program of PROGRAMS) {
    const packages = packagesOf(metafile(program));
    expect(packages.filter((name) => SERVER_PACKAGES.includes(name) || name.startsWith('@fastify/')), program).toEqual([]);
    expect(packages, program).toEqual(PACKAGES[program]);
  }
});

test('the daemon\'s bundles hold only src/daemon and src/shared; the sandbox\'s svc holds no server or domain code', () => {
  for (const program of ['svc-agent', 'svc-entrypoint'] as const) {
    const sources = sourcesOf(metafile(program));
    expect(sources.length, program).toBeGreaterThan(0);
    expect(sources.filter((file) => !file.startsWith('src/daemon/') && !file.startsWith('src/shared/')), program).toEqual([]);
  }
  const cli = sourcesOf(metafile('svc'));
  expect(cli).toContain('src/cli/main.ts');
  expect(cli.filter((file) => SERVER_FOLDERS.some((folder) => file.startsWith(`src/${folder}/`)))).toEqual([]);
  // `svc serve` and `svc sandbox image build` load the stand-in, not the server or the image builder.
  expect(cli).toContain('src/cli/not-in-sandbox.ts');
  expect(cli).not.toContain('src/cli/serve-run.ts');
});

test('a bundle imports nothing but Node built-ins, so it needs no node_modules where it runs', () => {
  for (const program of PROGRAMS) {
    const imports = Object.values(metafile(program).outputs).flatMap((output) => output.imports.filter((imported) => imported.external).map((imported) => imported.path));
    expect(imports.filter((specifier) => !specifier.startsWith('node:')), program).toEqual([]);
  }
});

test('the sandbox\'s svc tells its version, runs its verbs, and says in one line that it cannot serve', async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  expect(await run('svc', ['--version'])).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  const help = await run('svc', ['session', '--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage: svc session /);
  for (const args of [['serve'], ['sandbox', 'image', 'build']]) {
    const refused = await run('svc', args);
    expect(refused.code, args.join(' ')).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe('svc: this is the sandbox\'s svc, which talks to svc over HTTP only: it cannot serve or build sandbox images (run svc serve with the svc package on a host)\n');
  }
});

test('svc-agent says in one line what is wrong with its arguments or its settings', async () => {
  expect(await run('svc-agent', ['bogus'])).toEqual({ code: 2, stdout: '', stderr: 'Usage: svc-agent [serve] | svc-agent git-credential <get|store|erase>\n' });
  expect(await run('svc-agent', [], { SVC_SERVICE_PORT: 'eighty' })).toEqual({ code: 1, stdout: '', stderr: 'svc-agent: SVC_SERVICE_PORT must be an integer from 0 to 65535; it is "eighty".\n' });
});

test('svc-entrypoint starts the svc-agent beside it, restarts it when it exits, and ends on SIGTERM', async () => {
  const child = spawn(process.execPath, [path.join(sandboxLib, 'svc-entrypoint.mjs'), 'bogus'], { cwd: sandboxLib, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await poll('the entrypoint restarted svc-agent after its usage error', () => log, (text) => /svc-agent exited \(code 2\); restarting/.test(text));
  expect(log).toContain('Usage: svc-agent [serve]');
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});
