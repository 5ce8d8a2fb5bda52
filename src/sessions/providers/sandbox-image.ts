/**
 * The docker provider's image, built offline by `svc sandbox image build`: a Debian root from debootstrap
 * (imported once as `svc-sandbox-base:<hash of its recipe>`), then Node (the binary svc runs on), git and
 * svc's own package with the runtime on top, laid out as spec 3 says. The image is tagged by the content
 * that goes into it, so a build with nothing changed finds its tag and returns at once.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChecked } from '../../shared/run-process.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { DockerEngine } from './docker-engine.js';

const SUITE = 'bookworm';
const PACKAGES = ['git', 'ca-certificates'];
export const IMAGE_REPOSITORY = 'svc-sandbox';
const BASE_REPOSITORY = 'svc-sandbox-base';
const DEFAULT_MIRROR = 'http://deb.debian.org/debian';
/** debootstrap keeps the packages it fetched here, so a second base build needs no network. */
const PACKAGE_CACHE = '/var/cache/svc-sandbox/debs';

function hashFile(hash: ReturnType<typeof createHash>, file: string): void {
  hash.update(fs.readFileSync(file));
}

function hashTree(hash: ReturnType<typeof createHash>, root: string, relative = ''): void {
  const dir = path.join(root, relative);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
    const name = path.join(relative, entry.name);
    if (entry.isDirectory()) hashTree(hash, root, name);
    else if (entry.isFile()) {
      hash.update(`${name}\u0000`);
      hashFile(hash, path.join(root, name));
    }
  }
}

function baseTag(mirror: string): string {
  return `${BASE_REPOSITORY}:${createHash('sha256').update(JSON.stringify({ SUITE, PACKAGES, mirror })).digest('hex').slice(0, 16)}`;
}

/** The image svc's current files make: its tag changes when Node, svc or the base recipe changes. */
export function sandboxImageTag(mirror = DEFAULT_MIRROR): string {
  const hash = createHash('sha256').update(baseTag(mirror));
  hashFile(hash, process.execPath);
  for (const file of ['package.json', 'package-lock.json']) if (fs.existsSync(path.join(PACKAGE_ROOT, file))) hashFile(hash, path.join(PACKAGE_ROOT, file));
  hashTree(hash, path.join(PACKAGE_ROOT, 'bin'));
  hashTree(hash, path.join(PACKAGE_ROOT, 'dist'));
  return `${IMAGE_REPOSITORY}:${hash.digest('hex').slice(0, 16)}`;
}

export async function imageExists(engine: DockerEngine, tag: string): Promise<boolean> {
  return (await engine.request('GET', `/images/${encodeURIComponent(tag)}/json`)).status === 200;
}

function tarStream(args: string[]) {
  const child = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar failed: ${stderr.trim().slice(-500)}`))));
  });
  return { stream: child.stdout, done };
}

/** Build/import answers are JSON lines; an `error` line means the build failed though the status was 200. */
export function streamError(text: string): string | null {
  for (const line of text.split('\n')) {
    try {
      const event = JSON.parse(line) as { error?: string };
      if (event.error) return event.error;
    } catch {
      // Not a JSON line.
    }
  }
  return null;
}

async function buildBase(engine: DockerEngine, tag: string, mirror: string, log: (line: string) => void): Promise<void> {
  if (await imageExists(engine, tag)) return;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sandbox-root-'));
  try {
    log(`debootstrap ${SUITE} (${PACKAGES.join(', ')}) from ${mirror}…`);
    fs.mkdirSync(PACKAGE_CACHE, { recursive: true });
    await runChecked('debootstrap', ['--variant=minbase', `--include=${PACKAGES.join(',')}`, `--cache-dir=${PACKAGE_CACHE}`, SUITE, root, mirror], { timeoutMs: 1_800_000 });
    const [repo, version] = tag.split(':') as [string, string];
    const tar = tarStream(['-C', root, '-c', '.']);
    const imported = await engine.expect([200], 'POST', `/images/create?fromSrc=-&repo=${repo}&tag=${version}`, tar.stream, { timeoutMs: 1_800_000 });
    await tar.done;
    const error = streamError(imported.text);
    if (error) throw new Error(`importing the Debian root failed: ${error}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export interface ImageBuildResult {
  tag: string;
  built: boolean;
}

export async function buildSandboxImage(engine: DockerEngine, options: { mirror?: string; log?: (line: string) => void } = {}): Promise<ImageBuildResult> {
  const mirror = options.mirror ?? DEFAULT_MIRROR;
  const log = options.log ?? (() => {});
  const tag = sandboxImageTag(mirror);
  if (await imageExists(engine, tag)) return { tag, built: false };
  const base = baseTag(mirror);
  await buildBase(engine, base, mirror, log);
  log(`building ${tag}…`);
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sandbox-context-'));
  try {
    fs.writeFileSync(
      path.join(context, 'Dockerfile'),
      [
        `FROM ${base}`,
        'COPY node /usr/local/bin/node',
        'COPY svc /opt/svc/lib',
        'RUN mkdir -p /workspace /opt/svc/home && for p in svc svc-agent svc-entrypoint; do ln -sf /opt/svc/lib/bin/$p.js /usr/local/bin/$p; done',
        'ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/opt/svc/home LANG=C.UTF-8 SVC_RUNTIME_COMMAND=/opt/svc/lib/node_modules/.bin/opencode',
        'WORKDIR /workspace',
        `LABEL svc.sandbox.image="${tag}"`,
        'ENTRYPOINT ["/usr/local/bin/node", "/usr/local/bin/svc-entrypoint"]',
        '',
      ].join('\n'),
    );
    const modules = fs.realpathSync(path.join(PACKAGE_ROOT, 'node_modules'));
    // One archive from three places; `S` leaves symbolic link targets as they are.
    const tar = tarStream([
      '-c',
      '-C', context, 'Dockerfile',
      '-C', path.dirname(process.execPath), '--transform', `s,^${path.basename(process.execPath)}$,node,S`, path.basename(process.execPath),
      '-C', PACKAGE_ROOT, '--transform', 's,^\\(package\\.json\\|bin\\|dist\\)\\(/\\|$\\),svc/\\1\\2,S', 'package.json', 'bin', 'dist',
      '-C', path.dirname(modules), '--transform', `s,^${path.basename(modules)}\\(/\\|$\\),svc/node_modules\\1,S`, path.basename(modules),
    ]);
    const built = await engine.expect([200], 'POST', `/build?t=${encodeURIComponent(tag)}&rm=1&forcerm=1`, tar.stream, { timeoutMs: 1_800_000 });
    await tar.done;
    const error = streamError(built.text);
    if (error) throw new Error(`building the sandbox image failed: ${error}`);
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  return { tag, built: true };
}
