/**
 * vitest globalSetup: makes a fresh machine of the CI kind ready for the whole suite with nothing done by
 * hand. As root with apt, it installs the Debian packages the tests use and starts the Docker daemon if
 * none answers; otherwise it says in one line what to install. (The docker provider's tests build the
 * sandbox image themselves, instant when it is there, so runs of other files pay nothing for it.)
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { DockerEngine } from '../../src/sessions/providers/docker-engine.js';

/** A command the suite runs, and the Debian package that brings it. */
const NEEDED: ReadonlyArray<readonly [string, string]> = [
  ['chromium', 'chromium'],
  ['pdftoppm', 'poppler-utils'],
  ['git', 'git'],
  ['bwrap', 'bubblewrap'],
  ['dockerd', 'docker.io'],
  ['ip', 'iproute2'],
  ['iptables', 'iptables'],
  ['mkfs.ext4', 'e2fsprogs'],
  ['losetup', 'mount'],
  ['debootstrap', 'debootstrap'],
];

function found(command: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status === 0;
}

async function engineAnswers(engine: DockerEngine): Promise<boolean> {
  const ping = await engine.request('GET', '/_ping', undefined, { timeoutMs: 2_000 }).catch(() => null);
  return ping?.status === 200;
}

export default async function setup(): Promise<void> {
  const missing = NEEDED.filter(([command]) => !found(command)).map(([, pkg]) => pkg);
  const root = process.getuid?.() === 0;
  const apt = found('apt-get');
  if (missing.length > 0) {
    if (!root || !apt) {
      process.stderr.write(`svc tests: install ${missing.join(' ')} (Debian package names) and start dockerd; the sandbox, browser and PDF tests need them.\n`);
      return;
    }
    process.stderr.write(`svc tests: installing ${missing.join(' ')}…\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    // An install that an earlier run was killed in the middle of is finished first, or apt refuses to start.
    spawnSync('dpkg', ['--configure', '-a'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...missing, 'fonts-dejavu-core']]) {
      const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
      if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status})`);
    }
  }
  const engine = new DockerEngine();
  if (!(await engineAnswers(engine)) && root && engine.socketPath && found('dockerd')) {
    process.stderr.write('svc tests: starting dockerd (log in /var/log/svc-test-dockerd.log)\n');
    const log = fs.openSync('/var/log/svc-test-dockerd.log', 'a');
    spawn('dockerd', [], { detached: true, stdio: ['ignore', log, log] }).unref();
    fs.closeSync(log);
    const deadline = Date.now() + 60_000;
    while (!(await engineAnswers(engine)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (!(await engineAnswers(engine))) process.stderr.write(`svc tests: no Docker engine answers at ${engine.address}; start dockerd (or set DOCKER_HOST) for the docker provider's tests.\n`);
}
