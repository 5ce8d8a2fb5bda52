/**
 * The docker provider's image, built offline by `svc sandbox image build`: a Debian root from debootstrap
 * (imported once as `svc-sandbox-base:<hash of its recipe>`) with git, then Node (the binary svc runs on),
 * svc's three bundled programs (sandbox-programs.ts) and the runtime's binary, laid out as spec 3 says.
 * Nothing else of svc's package goes in: no node_modules, so no database driver, Fastify or ECharts. The
 * runtime needs none either: opencode is one executable that needs only the C library and has its
 * providers compiled in (`@ai-sdk/openai-compatible`, which a custom provider names, among them).
 * The image is tagged by the content that goes into it, so a build with nothing changed finds its tag and
 * returns at once.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChecked } from '../../shared/run-process.js';
import type { DockerEngine } from './docker-engine.js';
import { SANDBOX_PROGRAMS, bundleFile, sandboxBundles, shippedRuntimeBinary } from './sandbox-programs.js';

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


function baseTag(mirror: string): string {
  return `${BASE_REPOSITORY}:${createHash('sha256').update(JSON.stringify({ SUITE, PACKAGES, mirror })).digest('hex').slice(0, 16)}`;
}

const RUNTIME = '/opt/svc/runtime/opencode';

const DOCKERFILE = (base: string, tag: string) =>
  [
    `FROM ${base}`,
    'COPY node /usr/local/bin/node',
    'COPY lib /opt/svc/lib',
    `COPY runtime ${path.posix.dirname(RUNTIME)}`,
    `RUN mkdir -p /workspace /opt/svc/home && for p in ${SANDBOX_PROGRAMS.join(' ')}; do ln -sf /opt/svc/lib/$p.mjs /usr/local/bin/$p; done`,
    `ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/opt/svc/home LANG=C.UTF-8 SVC_RUNTIME_COMMAND=${RUNTIME}`,
    'WORKDIR /workspace',
    `LABEL svc.sandbox.image="${tag}"`,
    'ENTRYPOINT ["/usr/local/bin/node", "/usr/local/bin/svc-entrypoint"]',
    '',
  ].join('\n');

/**
 * The image svc's current files make: its tag changes when the base recipe, the image's recipe, Node, a
 * bundle or the runtime's pinned version changes (the runtime by its package's manifest: its binary is
 * 180 MB, which svc serve would read at every start).
 */
export function sandboxImageTag(mirror = DEFAULT_MIRROR): string {
  const hash = createHash('sha256').update(baseTag(mirror)).update(DOCKERFILE('', ''));
  hashFile(hash, process.execPath);
  const bundles = sandboxBundles();
  for (const program of SANDBOX_PROGRAMS) hashFile(hash, bundles[program]);
  hashFile(hash, shippedRuntimeBinary().manifest);
  return `${IMAGE_REPOSITORY}:${hash.digest('hex').slice(0, 16)}`;
}

/** A file in the build context: linked where the context is on the same file system, copied where not. */
function place(source: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
  }
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
    fs.writeFileSync(path.join(context, 'Dockerfile'), DOCKERFILE(base, tag));
    place(process.execPath, path.join(context, 'node'));
    const bundles = sandboxBundles();
    for (const program of SANDBOX_PROGRAMS) place(bundles[program], path.join(context, 'lib', bundleFile(program)));
    place(shippedRuntimeBinary().file, path.join(context, 'runtime', path.posix.basename(RUNTIME)));
    const tar = tarStream(['-C', context, '-c', '.']);
    const built = await engine.expect([200], 'POST', `/build?t=${encodeURIComponent(tag)}&rm=1&forcerm=1`, tar.stream, { timeoutMs: 1_800_000 });
    await tar.done;
    const error = streamError(built.text);
    if (error) throw new Error(`building the sandbox image failed: ${error}`);
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  return { tag, built: true };
}
