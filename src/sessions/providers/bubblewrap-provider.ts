/**
 * The `bubblewrap` provider (contract §6): each sandbox is a bubblewrap container with user, pid, ipc,
 * uts, mount and network namespaces, laid out as spec 3 says. The host's system directories are mounted
 * read-only; the sandbox's own workspace and runtime home (kept under `<data dir>/sandboxes/<id>`, so they
 * survive stop and resume) are the only writable places besides a private /tmp. svc's package is mounted
 * read-only at /opt/svc/lib and its programs are linked from /usr/local/bin. The network is its own
 * (sandbox-network.ts): the daemon answers on the sandbox's private address, port 8000.
 *
 * Each sandbox has its own control group with the memory, CPU and process limits of its project's manifest
 * or the server's defaults (sandbox-cgroup.ts).
 *
 * Like the process provider's, the sandbox runs detached from svc: a restart of svc finds it running.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { runProcess } from '../../shared/run-process.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { DAEMON_PORT } from '../environment.js';
import { alive, endProcessTree } from './host-processes.js';
import type { SandboxLimits, SandboxProvider, SandboxStart, StartedSandbox } from './provider.js';
import { descendants, SandboxCgroups } from './sandbox-cgroup.js';
import { SandboxNetwork, type SandboxLink } from './sandbox-network.js';
import { SandboxUnavailableError } from './unavailable.js';

const LIB = '/opt/svc/lib';
/** Readable by root on the host but none of a sandbox's business. */
const MASKED = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-'];

interface SandboxFile {
  pid: number;
  link: SandboxLink;
}

export interface BubblewrapProviderOptions {
  root: string;
  /** Limits of a sandbox whose start names none (the server's defaults). */
  limits: SandboxLimits;
}

export class BubblewrapProvider implements SandboxProvider {
  readonly name = 'bubblewrap' as const;
  readonly isolates = true;
  private readonly network: SandboxNetwork;
  private readonly cgroups: SandboxCgroups;
  /** Why sandboxes run without memory, CPU and process limits here; null when they have them. */
  withoutLimits: string | null = null;

  constructor(private readonly options: BubblewrapProviderOptions) {
    const owner = createHash('sha256').update(path.resolve(options.root)).digest('hex').slice(0, 6);
    this.network = new SandboxNetwork(owner);
    this.cgroups = new SandboxCgroups(owner);
  }

  directory(sessionId: string): string {
    return path.join(this.options.root, sessionId);
  }

  private readFile(sessionId: string): SandboxFile | null {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.directory(sessionId), 'sandbox.json'), 'utf8')) as SandboxFile;
    } catch {
      return null;
    }
  }

  async prepare(): Promise<void> {
    if (process.platform !== 'linux') throw new SandboxUnavailableError('SVC_SANDBOX_PROVIDER=bubblewrap needs Linux; use SVC_SANDBOX_PROVIDER=docker or process on this machine.');
    for (const [program, version, pkg] of [['bwrap', '--version', 'bubblewrap'], ['ip', '-V', 'iproute2'], ['iptables', '--version', 'iptables']] as const) {
      const found = await runProcess(program, [version]).catch(() => null);
      if (!found || found.code !== 0) throw new SandboxUnavailableError(`SVC_SANDBOX_PROVIDER=bubblewrap needs ${program}, which is not installed: apt-get install ${pkg} (or choose SVC_SANDBOX_PROVIDER=docker or process).`);
    }
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
      throw new SandboxUnavailableError('SVC_SANDBOX_PROVIDER=bubblewrap gives each sandbox its own network namespace, which needs root (CAP_NET_ADMIN); run svc serve as root or choose SVC_SANDBOX_PROVIDER=docker.');
    }
    // A crash of svc or of the machine can leave namespaces, links and rules of sandboxes no longer running.
    const running = new Set<string>();
    for (const sessionId of fs.existsSync(this.options.root) ? fs.readdirSync(this.options.root) : []) {
      const file = this.readFile(sessionId);
      if (file && alive(file.pid)) running.add(sessionId);
    }
    await this.network.removeLeftovers(running);
    this.withoutLimits = this.cgroups.prepare();
    if (this.withoutLimits) process.stderr.write(`svc: SVC_SANDBOX_PROVIDER=bubblewrap runs sandboxes without memory, CPU and process limits: ${this.withoutLimits}\n`);
    this.cgroups.removeLeftovers(running);
  }

  async start(sandbox: SandboxStart): Promise<StartedSandbox> {
    const dir = this.directory(sandbox.sessionId);
    const previous = this.readFile(sandbox.sessionId);
    if (previous && alive(previous.pid)) return { ref: dir, daemonUrl: `http://${previous.link.sandboxAddress}:${DAEMON_PORT}` };
    if (previous) await this.network.remove(sandbox.sessionId, previous.link);
    const workspace = path.join(dir, 'workspace');
    const home = path.join(dir, 'home');
    const binDir = path.join(dir, 'bin');
    for (const folder of [workspace, home, binDir]) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    for (const program of ['svc', 'svc-agent', 'svc-entrypoint']) {
      // Dangling on the host (they point into the sandbox), so replaced rather than tested for.
      const link = path.join(binDir, program);
      fs.rmSync(link, { force: true });
      fs.symlinkSync(`${LIB}/bin/${program}.js`, link);
    }
    // A mount point for the Node binary svc runs on, wherever it is installed.
    fs.writeFileSync(path.join(binDir, 'node'), '', { mode: 0o755 });

    const { link, route } = await this.network.create(sandbox.sessionId, sandbox.env.SVC_API_URL ?? '');
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      ...sandbox.env,
      HOME: '/opt/svc/home',
      SVC_RUNTIME_COMMAND: `${LIB}/node_modules/.bin/opencode`,
    };
    for (const name of ['SVC_API_URL', 'SVC_REPO_URL'] as const) if (env[name]) env[name] = route.rewrite(env[name]);

    const args = [
      'netns', 'exec', link.namespace, 'bwrap',
      // The sandbox waits until svc has put it in its control group, so no process of it escapes its limits.
      '--block-fd', '3',
      '--unshare-user', '--uid', '0', '--gid', '0',
      '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      '--hostname', 'sandbox',
      '--ro-bind', '/usr', '/usr',
      '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
      '--ro-bind', '/etc', '/etc',
      ...MASKED.filter((file) => fs.existsSync(file)).flatMap((file) => ['--ro-bind', '/dev/null', file]),
      '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run', '--tmpfs', '/var',
      '--dir', '/opt/svc',
      '--ro-bind', path.join(PACKAGE_ROOT, 'package.json'), `${LIB}/package.json`,
      '--ro-bind', path.join(PACKAGE_ROOT, 'bin'), `${LIB}/bin`,
      '--ro-bind', path.join(PACKAGE_ROOT, 'dist'), `${LIB}/dist`,
      '--ro-bind', fs.realpathSync(path.join(PACKAGE_ROOT, 'node_modules')), `${LIB}/node_modules`,
      '--bind', home, '/opt/svc/home',
      '--bind', workspace, '/workspace',
      '--ro-bind', binDir, '/usr/local/bin',
      '--ro-bind', process.execPath, '/usr/local/bin/node',
      '--chdir', '/workspace',
      '--', '/usr/local/bin/node', '/usr/local/bin/svc-entrypoint',
    ];
    const log = fs.openSync(path.join(dir, 'sandbox.log'), 'a', 0o600);
    const child = spawn('ip', args, { cwd: dir, env, detached: true, stdio: ['ignore', log, log, 'pipe'] });
    fs.closeSync(log);
    const pid = child.pid;
    const release = child.stdio[3] as Writable;
    if (pid === undefined) {
      release.destroy();
      await this.network.remove(sandbox.sessionId, link);
      throw new Error('bwrap could not be started');
    }
    try {
      if (this.cgroups.create(sandbox.sessionId, sandbox.settings?.limits ?? this.options.limits)) {
        // bwrap's children made before the move are blocked on fd 3, so they are all here; later ones are born inside.
        this.cgroups.enter(sandbox.sessionId, [pid]);
        this.cgroups.enter(sandbox.sessionId, descendants(pid));
      }
    } catch (error) {
      release.destroy();
      await endProcessTree(pid);
      await this.network.remove(sandbox.sessionId, link);
      this.cgroups.remove(sandbox.sessionId);
      throw new Error(`the sandbox's limits could not be applied: ${(error as Error).message}`);
    }
    release.end('1', () => release.destroy());
    child.unref();
    fs.writeFileSync(path.join(dir, 'sandbox.json'), JSON.stringify({ pid, link } satisfies SandboxFile), { mode: 0o600 });
    return { ref: dir, daemonUrl: `http://${link.sandboxAddress}:${DAEMON_PORT}` };
  }

  async stop(sessionId: string): Promise<void> {
    const file = this.readFile(sessionId);
    if (!file) return;
    await endProcessTree(file.pid);
    await this.network.remove(sessionId, file.link);
    this.cgroups.remove(sessionId);
  }

  async remove(sessionId: string): Promise<void> {
    await this.stop(sessionId);
    await this.network.remove(sessionId, null);
    fs.rmSync(this.directory(sessionId), { recursive: true, force: true });
  }

  async isAlive(sessionId: string): Promise<boolean> {
    const file = this.readFile(sessionId);
    return file !== null && alive(file.pid);
  }
}
