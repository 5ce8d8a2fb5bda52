/**
 * A Docker engine of a test's own, which the test may kill and start again while other test files keep
 * using the machine's main engine. Everything of it is private: its data root, exec root, pid file,
 * containerd and sockets live under one temporary folder; its containers' cgroups under one parent; and it
 * runs in a network namespace of its own, so its bridges, addresses and iptables rules cannot clash with
 * the main engine's (svc's docker network has a fixed bridge name and range, which the main engine may
 * already hold). svc on the host reaches it the way it reaches an engine on another machine: over TCP,
 * through a veth pair (host end `hostAddress`, where svc listens so that containers reach it).
 *
 * Removal takes everything away even after a failed test or a killed run (the next run removes what an
 * earlier one's dead process left): processes, cgroups, mounts, the namespace and its link, the folder.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DockerEngine } from '../../src/sessions/providers/docker-engine.js';
import { alive } from '../../src/sessions/providers/host-processes.js';
import { runChecked, runProcess } from '../../src/shared/run-process.js';
import { poll } from './poll.js';

const PREFIX = 'svc-test-engine-';
const PORT = 2375;

/** Every process on this machine whose command line names `text`. */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}

/** The cgroup folders of `parent` under every v1 controller (or the one v2 tree), deepest first. */
function cgroupFolders(parent: string): string[] {
  const roots = fs.existsSync('/sys/fs/cgroup/cgroup.controllers') ? ['/sys/fs/cgroup'] : fs.readdirSync('/sys/fs/cgroup').map((controller) => path.join('/sys/fs/cgroup', controller));
  const folders: string[] = [];
  const walk = (folder: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) walk(path.join(folder, entry.name));
    folders.push(folder);
  };
  for (const root of roots) if (fs.existsSync(path.join(root, parent))) walk(path.join(root, parent));
  return folders;
}

/** Processes in a cgroup folder, read from whichever file the version has. */
function cgroupProcesses(folder: string): number[] {
  try {
    return fs.readFileSync(path.join(folder, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** A process that ended and waits for its parent (here: init) to collect it. */
function zombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** Mount points at or under `folder`, deepest first. */
function mountsUnder(folder: string): string[] {
  const points = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4]?.replace(/\\040/g, ' ') ?? '')
    .filter((point) => point === folder || point.startsWith(`${folder}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Everything of one private engine, by its name and folder; nothing there is not an error. */
async function removeEngine(name: string, root: string): Promise<void> {
  const pidFile = path.join(root, 'dockerd.pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (pid > 0 && alive(pid) && processesNaming(root).includes(pid)) {
    kill(pid, 'SIGTERM');
    await poll('the private dockerd ends', () => alive(pid), (running) => !running, { withinMs: 20_000 }).catch(() => kill(pid, 'SIGKILL'));
  }
  // containerd, its shims and the proxies name the folder; containers' own processes sit in the cgroups.
  for (let round = 0; round < 20; round += 1) {
    const left = [...processesNaming(root), ...cgroupFolders(name).flatMap(cgroupProcesses)];
    if (left.length === 0) break;
    for (const leftover of left) kill(leftover, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const folder of cgroupFolders(name)) {
    try {
      fs.rmdirSync(folder);
    } catch {
      // Still held by a process the kernel has not reaped yet; nothing else can use it.
    }
  }
  for (const point of mountsUnder(root)) {
    if ((await runProcess('umount', [point])).code !== 0) await runProcess('umount', ['-l', point]);
  }
  await runProcess('ip', ['netns', 'del', name]);
  await runProcess('ip', ['link', 'del', hostLinkOf(name)]);
  fs.rmSync(root, { recursive: true, force: true });
}

function hostLinkOf(name: string): string {
  return `svte${name.slice(PREFIX.length).replace(/\D/g, '').slice(-8)}`;
}

/** What earlier runs whose process died left behind (their name carries their pid). */
async function removeAbandoned(): Promise<void> {
  const namespaces = fs.existsSync('/run/netns') ? fs.readdirSync('/run/netns') : [];
  const folders = fs.readdirSync(os.tmpdir()).filter((entry) => entry.startsWith(PREFIX));
  for (const name of new Set([...namespaces.filter((entry) => entry.startsWith(PREFIX)), ...folders.map((folder) => folder.split('.')[0]!)])) {
    const owner = Number(name.slice(PREFIX.length).split('-')[0]);
    if (owner > 0 && alive(owner)) continue;
    const roots = folders.filter((folder) => folder.split('.')[0] === name).map((folder) => path.join(os.tmpdir(), folder));
    for (const root of roots.length > 0 ? roots : [path.join(os.tmpdir(), `${name}.gone`)]) await removeEngine(name, root);
  }
}

export class PrivateEngine {
  /** The engine as svc reaches it (DOCKER_HOST). */
  readonly address: string;
  /** The engine's unix socket, for the test's own requests. */
  readonly engine: DockerEngine;
  private dockerd: number | null = null;

  private constructor(
    readonly name: string,
    readonly root: string,
    /** The host's end of the link: svc listens here so that the engine's containers reach it. */
    readonly hostAddress: string,
    private readonly engineAddress: string,
  ) {
    this.address = `tcp://${engineAddress}:${PORT}`;
    this.engine = new DockerEngine(`unix://${path.join(root, 'docker.sock')}`);
  }

  static async create(): Promise<PrivateEngine> {
    await removeAbandoned();
    const slot = Math.floor(Math.random() * 16_000);
    const name = `${PREFIX}${process.pid}-${slot}`;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `${name}.`));
    // 10.219.0.0/16 in /30s: no range svc's sandboxes or Docker's default pools use.
    const base = `10.219.${slot >> 6}.${(slot & 63) * 4}`.split('.').map(Number);
    const address = (last: number) => `${base[0]}.${base[1]}.${base[2]}.${base[3]! + last}`;
    const engine = new PrivateEngine(name, root, address(1), address(2));
    try {
      const hostLink = hostLinkOf(name);
      await runChecked('ip', ['netns', 'add', name]);
      await runChecked('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name]);
      await runChecked('ip', ['-batch', '-'], { stdin: `addr add ${address(1)}/30 dev ${hostLink}\nlink set ${hostLink} up\n` });
      await runChecked('ip', ['-n', name, '-batch', '-'], { stdin: `link set lo up\naddr add ${address(2)}/30 dev eth0\nlink set eth0 up\nroute add default via ${address(1)}\n` });
      await engine.start();
    } catch (error) {
      await engine.remove();
      throw error;
    }
    return engine;
  }

  /** Starts dockerd (again) and waits until it answers. */
  async start(): Promise<void> {
    const log = fs.openSync(path.join(this.root, 'dockerd.log'), 'a');
    // nsenter keeps the host's mount namespace: `ip netns exec` would hide the cgroup mounts dockerd needs.
    const child = spawn(
      'nsenter',
      [
        `--net=/run/netns/${this.name}`,
        'dockerd',
        `--data-root=${path.join(this.root, 'data')}`,
        `--exec-root=${path.join(this.root, 'exec')}`,
        `--pidfile=${path.join(this.root, 'dockerd.pid')}`,
        `--host=unix://${path.join(this.root, 'docker.sock')}`,
        `--host=tcp://${this.engineAddress}:${PORT}`,
        // Reached only through the private link; without it dockerd waits 15 s to warn about plain TCP.
        '--tls=false',
        '--bridge=none',
        // The same driver everywhere, so that `--cgroup-parent` is a plain folder (systemd's driver wants a slice).
        '--exec-opt=native.cgroupdriver=cgroupfs',
        `--cgroup-parent=${this.name}`,
      ],
      { detached: true, stdio: ['ignore', log, log] },
    );
    fs.closeSync(log);
    child.unref();
    this.dockerd = child.pid ?? null;
    await poll('the private dockerd answers', () => this.answers(), (up) => up, { withinMs: 60_000, everyMs: 50 });
  }

  async answers(): Promise<boolean> {
    const ping = await this.engine.request('GET', '/_ping', undefined, { timeoutMs: 1_000 }).catch(() => null);
    return ping?.status === 200;
  }

  /**
   * Ends dockerd with `signal` and waits until it is gone: SIGTERM is a clean shutdown (it stops the
   * containers), SIGKILL a crash (containerd goes with it; the containers' shims and processes stay).
   */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const pid = this.dockerd;
    if (!pid) return;
    kill(pid, signal);
    await poll('the private dockerd ends', () => alive(pid), (running) => !running, { withinMs: 30_000, everyMs: 50 });
    this.dockerd = null;
    // Its containerd ends with it (a parent-death signal), a moment later: a dockerd started before that
    // finds it still running, cannot connect, and gives up. This machine's init reaps orphans late, and a
    // dockerd that finds the pid of an unreaped containerd in its file takes it for a live one.
    const pidFile = path.join(this.root, 'exec', 'containerd', 'containerd.pid');
    const containerd = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
    if (containerd > 0) {
      await poll('its containerd ends', () => alive(containerd) && !zombie(containerd), (running) => !running, { withinMs: 30_000, everyMs: 50 });
      if (zombie(containerd)) fs.rmSync(pidFile, { force: true });
    }
  }

  private containerd(): number[] {
    return processesNaming(this.root).filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('containerd\0');
      } catch {
        return false;
      }
    });
  }

  /** Copies an image from the machine's main engine into this one. */
  async loadImage(tag: string, from = new DockerEngine()): Promise<void> {
    if (!from.socketPath) throw new Error(`the image is copied from an engine on a unix socket (DOCKER_HOST is ${from.address})`);
    const exported = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ socketPath: from.socketPath, path: `/v1.41/images/${encodeURIComponent(tag)}/get` }, resolve).on('error', reject);
    });
    if (exported.statusCode !== 200) throw new Error(`the main engine did not export ${tag} (${exported.statusCode})`);
    await this.engine.expect([200], 'POST', '/images/load?quiet=1', exported, { timeoutMs: 120_000 });
  }

  /** Processes of the engine's containers still on the host (in its containers' cgroups). */
  containerProcesses(): number[] {
    return [...new Set(cgroupFolders(this.name).flatMap(cgroupProcesses))];
  }

  /** containerd shims (and proxies) of the engine left running: they outlive a killed dockerd. */
  leftoverHelpers(): number[] {
    const engine = [this.dockerd, ...this.containerd()];
    return processesNaming(this.root).filter((pid) => !engine.includes(pid));
  }

  async remove(): Promise<void> {
    await removeEngine(this.name, this.root);
  }
}
