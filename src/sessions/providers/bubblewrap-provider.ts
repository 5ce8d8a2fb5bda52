/**
 * The `bubblewrap` provider (contract §6): each sandbox is a bubblewrap container with user, pid, ipc,
 * uts, mount and network namespaces, laid out as spec 3 says. The host's system directories are mounted
 * read-only; the sandbox's own workspace and runtime home (kept under `<data dir>/sandboxes/<id>`, so they
 * survive stop and resume) are the only writable places besides a private /tmp. svc's bundled programs
 * (sandbox-programs.ts) are mounted read-only at /opt/svc/lib and linked from /usr/local/bin, and the
 * runtime's binary at /opt/svc/runtime/opencode: none of svc's node_modules goes in. The network is its own
 * (sandbox-network.ts): the daemon answers on the sandbox's private address, port 8000.
 *
 * Each sandbox has its own control group with the memory, CPU and process limits of its project's manifest
 * or the server's defaults (sandbox-cgroup.ts), and its workspace and home on a filesystem of its own, as
 * large as its disk limit (sandbox-disk.ts).
 *
 * Like the process provider's, the sandbox runs detached from svc: a restart of svc finds it running.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runProcess } from '../../shared/run-process.js';
import { DAEMON_PORT } from '../environment.js';
import { alive, endProcessTree } from './host-processes.js';
import type { SandboxLimits, SandboxProvider, SandboxStart, StartedSandbox } from './provider.js';
import { SandboxCgroups } from './sandbox-cgroup.js';
import { SandboxDisks, type SandboxState } from './sandbox-disk.js';
import { SandboxFiles, sandboxEndedReason } from './sandbox-file.js';
import { SANDBOX_PROGRAMS, bundleFile, sandboxBundles, shippedRuntimeBinary } from './sandbox-programs.js';
import { SandboxNetwork, type SandboxLink } from './sandbox-network.js';
import { SandboxUnavailableError } from './unavailable.js';

const LIB = '/opt/svc/lib';
const RUNTIME = '/opt/svc/runtime/opencode';
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

/**
 * Joins the sandbox's control group (the cgroup.procs files before `--`), then becomes the command after it:
 * nothing of the sandbox ever runs outside its limits, and svc has no race to win. A failed join ends it.
 */
const JOIN_CGROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 1; shift; done; shift; exec "$@"';

export class BubblewrapProvider implements SandboxProvider {
  readonly name = 'bubblewrap' as const;
  readonly isolates = true;
  private readonly network: SandboxNetwork;
  private readonly cgroups: SandboxCgroups;
  private readonly files: SandboxFiles<SandboxFile>;
  private readonly disks: SandboxDisks;
  /** Why sandboxes run without memory, CPU and process limits here; null when they have them. */
  withoutLimits: string | null = null;
  /** Why sandboxes run without a disk limit here (their files in plain folders); null when they have one. */
  withoutDiskLimit: string | null = null;

  constructor(private readonly options: BubblewrapProviderOptions) {
    const owner = createHash('sha256').update(path.resolve(options.root)).digest('hex').slice(0, 6);
    this.network = new SandboxNetwork(owner);
    this.cgroups = new SandboxCgroups(owner);
    this.files = new SandboxFiles(options.root);
    this.disks = new SandboxDisks(options.root);
  }

  directory(sessionId: string): string {
    return this.files.directory(sessionId);
  }

  async prepare(): Promise<void> {
    if (process.platform !== 'linux') throw new SandboxUnavailableError('SVC_SANDBOX_PROVIDER=bubblewrap needs Linux; use SVC_SANDBOX_PROVIDER=docker or process on this machine.');
    for (const [program, version, pkg] of [['bwrap', '--version', 'bubblewrap'], ['ip', '-V', 'iproute2'], ['iptables', '--version', 'iptables'], ['mkfs.ext4', '-V', 'e2fsprogs'], ['losetup', '--version', 'mount']] as const) {
      const found = await runProcess(program, [version]).catch(() => null);
      if (!found || found.code !== 0) throw new SandboxUnavailableError(`SVC_SANDBOX_PROVIDER=bubblewrap needs ${program}, which is not installed: apt-get install ${pkg} (or choose SVC_SANDBOX_PROVIDER=docker or process).`);
    }
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
      throw new SandboxUnavailableError('SVC_SANDBOX_PROVIDER=bubblewrap gives each sandbox its own network namespace, which needs root (CAP_NET_ADMIN); run svc serve as root or choose SVC_SANDBOX_PROVIDER=docker.');
    }
    sandboxBundles();
    shippedRuntimeBinary();
    // A crash of svc or of the machine can leave namespaces, links and rules of sandboxes no longer running.
    const running = new Set<string>();
    for (const sessionId of this.files.sessions()) {
      const file = this.files.read(sessionId);
      if (file && alive(file.pid)) running.add(sessionId);
    }
    await this.cgroups.removeLeftovers(running);
    await this.network.removeLeftovers(running);
    this.withoutDiskLimit = SandboxDisks.unsupported();
    if (!this.withoutDiskLimit) await this.disks.removeLeftovers(running);
    this.withoutLimits = this.cgroups.prepare();
    if (this.withoutLimits) process.stderr.write(`svc: SVC_SANDBOX_PROVIDER=bubblewrap runs sandboxes without memory, CPU and process limits: ${this.withoutLimits}\n`);
    if (this.withoutDiskLimit) process.stderr.write(`svc: SVC_SANDBOX_PROVIDER=bubblewrap runs sandboxes without disk limits: ${this.withoutDiskLimit}\n`);
  }

  async start(sandbox: SandboxStart): Promise<StartedSandbox> {
    const dir = this.directory(sandbox.sessionId);
    const previous = this.files.read(sandbox.sessionId);
    if (previous && alive(previous.pid)) return { ref: dir, daemonUrl: `http://${previous.link.sandboxAddress}:${DAEMON_PORT}` };
    // What a sandbox that died left (its link, rules, cgroup, stray processes) goes before the new one starts.
    await this.stop(sandbox.sessionId);
    const limits = sandbox.settings?.limits ?? this.options.limits;
    const { workspace, home } = await this.state(dir, limits.diskBytes);
    const binDir = path.join(dir, 'bin');
    fs.mkdirSync(binDir, { recursive: true, mode: 0o700 });
    const programs = sandboxBundles();
    const runtime = shippedRuntimeBinary();
    for (const program of SANDBOX_PROGRAMS) {
      // Dangling on the host (they point into the sandbox), so replaced rather than tested for.
      const link = path.join(binDir, program);
      fs.rmSync(link, { force: true });
      fs.symlinkSync(`${LIB}/${bundleFile(program)}`, link);
    }
    // A mount point for the Node binary svc runs on, wherever it is installed.
    fs.writeFileSync(path.join(binDir, 'node'), '', { mode: 0o755 });

    const { link, route } = await this.network.create(sandbox.sessionId, sandbox.env.SVC_API_URL ?? '');
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      ...sandbox.env,
      HOME: '/opt/svc/home',
      SVC_RUNTIME_COMMAND: RUNTIME,
    };
    for (const name of ['SVC_API_URL', 'SVC_REPO_URL'] as const) if (env[name]) env[name] = route.rewrite(env[name]);

    const args = [
      'netns', 'exec', link.namespace, 'bwrap',
      '--unshare-user', '--uid', '0', '--gid', '0',
      '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      '--hostname', 'sandbox',
      '--ro-bind', '/usr', '/usr',
      '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
      '--ro-bind', '/etc', '/etc',
      ...MASKED.filter((file) => fs.existsSync(file)).flatMap((file) => ['--ro-bind', '/dev/null', file]),
      '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run', '--tmpfs', '/var',
      '--dir', '/opt/svc',
      ...SANDBOX_PROGRAMS.flatMap((program) => ['--ro-bind', programs[program], `${LIB}/${bundleFile(program)}`]),
      '--ro-bind', runtime.file, RUNTIME,
      '--bind', home, '/opt/svc/home',
      '--bind', workspace, '/workspace',
      '--ro-bind', binDir, '/usr/local/bin',
      '--ro-bind', process.execPath, '/usr/local/bin/node',
      '--chdir', '/workspace',
      '--', '/usr/local/bin/node', '/usr/local/bin/svc-entrypoint',
    ];
    const log = fs.openSync(path.join(dir, 'sandbox.log'), 'a', 0o600);
    const cgroup = this.cgroups.create(sandbox.sessionId, limits);
    const [program, programArgs] = cgroup ? ['sh', ['-c', JOIN_CGROUP, 'sh', ...cgroup, '--', 'ip', ...args]] : ['ip', args];
    const child = spawn(program, programArgs, { cwd: dir, env, detached: true, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    const pid = child.pid;
    if (pid === undefined) {
      await this.cgroups.remove(sandbox.sessionId);
      await this.network.remove(sandbox.sessionId, link);
      await this.disks.close(dir);
      throw new Error('bwrap could not be started');
    }
    child.unref();
    this.files.write(sandbox.sessionId, { pid, link });
    return { ref: dir, daemonUrl: `http://${link.sandboxAddress}:${DAEMON_PORT}` };
  }

  async stop(sessionId: string): Promise<void> {
    const file = this.files.read(sessionId);
    if (file) await endProcessTree(file.pid, sessionId);
    await this.cgroups.remove(sessionId);
    if (file) await this.network.remove(sessionId, file.link);
    // After its processes: nothing of the sandbox writes to its disk any more.
    await this.disks.close(this.directory(sessionId));
  }

  /** The workspace and home: on the sandbox's own disk, or plain folders where disks cannot be limited. */
  private async state(dir: string, diskBytes: number): Promise<SandboxState> {
    if (!this.withoutDiskLimit || this.disks.has(dir)) return this.disks.open(dir, diskBytes);
    const state = { workspace: path.join(dir, 'workspace'), home: path.join(dir, 'home') };
    for (const folder of Object.values(state)) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    return state;
  }

  async remove(sessionId: string): Promise<void> {
    await this.stop(sessionId);
    await this.network.remove(sessionId, null);
    fs.rmSync(this.directory(sessionId), { recursive: true, force: true });
  }

  async isAlive(sessionId: string): Promise<boolean> {
    const file = this.files.read(sessionId);
    return file !== null && alive(file.pid);
  }

  async endedReason(sessionId: string): Promise<string> {
    return sandboxEndedReason(this.directory(sessionId));
  }
}
