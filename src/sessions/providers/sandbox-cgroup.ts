/**
 * Memory, CPU and process limits for the bubblewrap provider's sandboxes, through the kernel's control
 * groups: one group per sandbox, made under the group svc itself runs in (so a machine or a service manager
 * that limits svc still limits its sandboxes), with cgroup v2's memory.max / cpu.max / pids.max, or
 * v1's memory, cpu and pids hierarchies. Where neither can be written (no root, v2 without delegated
 * controllers) the sandbox runs without limits and `prepare` says why, once, at start-up.
 *
 * The process limit is what holds a fork bomb to its own sandbox: its processes run as root on the host
 * (the user namespace maps the sandbox's root to svc's user), which RLIMIT_NPROC does not limit. Stopping a
 * sandbox kills whatever is left in its group before removing it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxLimits } from './provider.js';

const CPU_PERIOD_US = 100_000;
const GROUP_FOLDER = 'svc-sandboxes';
/** Where svc's own processes go on cgroup v2 so that its group may hand controllers to the sandboxes' groups. */
const SERVER_FOLDER = 'svc-server';
const CONTROLLERS = ['memory', 'cpu', 'pids'] as const;

type Controller = 'memory' | 'cpu' | 'pids';

/** Where each controller's groups live for this process: one folder on v2, one per controller on v1. */
interface Layout {
  version: 1 | 2;
  parents: Record<Controller, string>;
  /** v2: the group svc runs in, which hands the controllers down. */
  own?: string;
}

/** Where to read the machine's control groups; tests point them at a tree of their own. */
export interface CgroupPaths {
  root: string;
  /** The contents of /proc/self/cgroup. */
  selfCgroup: () => string;
}

const MACHINE: CgroupPaths = { root: '/sys/fs/cgroup', selfCgroup: () => fs.readFileSync('/proc/self/cgroup', 'utf8') };

function ownGroups(paths: CgroupPaths): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of paths.selfCgroup().split('\n')) {
    const [, controllers, group] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || group === undefined) continue;
    for (const controller of controllers === '' ? [''] : controllers.split(',')) groups.set(controller, group);
  }
  return groups;
}

function findLayout(paths: CgroupPaths): Layout | string {
  if (process.platform !== 'linux') return 'control groups are Linux only';
  const groups = ownGroups(paths);
  if (fs.existsSync(path.join(paths.root, 'cgroup.controllers'))) {
    let own = path.join(paths.root, groups.get('') ?? '/');
    // svc already moved itself into its leaf (a second provider in one process): its group is the one above.
    if (path.basename(own) === SERVER_FOLDER) own = path.dirname(own);
    const parent = path.join(own, GROUP_FOLDER);
    return { version: 2, parents: { memory: parent, cpu: parent, pids: parent }, own };
  }
  const parents = {} as Record<Controller, string>;
  for (const controller of CONTROLLERS) {
    const mount = path.join(paths.root, controller);
    if (!fs.existsSync(path.join(mount, 'cgroup.procs'))) return `the cgroup v1 ${controller} controller is not mounted at ${mount}`;
    parents[controller] = path.join(mount, groups.get(controller) ?? '/', GROUP_FOLDER);
  }
  return { version: 1, parents };
}

export class SandboxCgroups {
  private readonly layout: Layout | string;

  /** `owner` tells this svc's groups from another's on the same machine. */
  constructor(
    private readonly owner: string,
    paths: CgroupPaths = MACHINE,
  ) {
    this.layout = findLayout(paths);
  }

  private folders(sessionId: string): Record<Controller, string> | null {
    if (typeof this.layout === 'string') return null;
    const name = `${this.owner}-${sessionId}`;
    const { memory, cpu, pids } = this.layout.parents;
    return { memory: path.join(memory, name), cpu: path.join(cpu, name), pids: path.join(pids, name) };
  }

  /** Makes the parents (enabling v2's controllers for them); null when limits work here, else why not. */
  prepare(): string | null {
    if (typeof this.layout === 'string') return this.layout;
    try {
      if (this.layout.own) delegateControllers(this.layout.own);
      for (const parent of new Set(Object.values(this.layout.parents))) fs.mkdirSync(parent, { recursive: true });
      if (this.layout.version === 2) fs.writeFileSync(path.join(this.layout.parents.memory, 'cgroup.subtree_control'), '+memory +cpu +pids');
      return null;
    } catch (error) {
      const fix =
        this.layout.version === 2
          ? 'run svc as root in a control group that hands down memory, cpu and pids (systemd: Delegate=yes in its unit; a container: its own cgroup namespace)'
          : 'run svc as root';
      return `control groups cannot be written here (${(error as Error).message}): ${fix}`;
    }
  }

  /**
   * The sandbox's group with its limits; the `cgroup.procs` files a process writes its pid to, to join it
   * (one on v2, one per controller on v1), or null when limits cannot be applied on this machine.
   */
  create(sessionId: string, limits: SandboxLimits): string[] | null {
    const folders = this.folders(sessionId);
    if (!folders || typeof this.layout === 'string') return null;
    try {
      for (const folder of new Set(Object.values(folders))) fs.mkdirSync(folder, { recursive: true });
      const quota = String(Math.round(limits.cpus * CPU_PERIOD_US));
      if (this.layout.version === 2) {
        fs.writeFileSync(path.join(folders.memory, 'memory.max'), String(limits.memoryBytes));
        // No swap beyond the memory limit, so `memory: 2g` means 2 GiB (where the kernel has swap accounting).
        if (fs.existsSync(path.join(folders.memory, 'memory.swap.max'))) fs.writeFileSync(path.join(folders.memory, 'memory.swap.max'), '0');
        fs.writeFileSync(path.join(folders.cpu, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
      } else {
        fs.writeFileSync(path.join(folders.memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
        const withSwap = path.join(folders.memory, 'memory.memsw.limit_in_bytes');
        if (fs.existsSync(withSwap)) fs.writeFileSync(withSwap, String(limits.memoryBytes));
        fs.writeFileSync(path.join(folders.cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
        fs.writeFileSync(path.join(folders.cpu, 'cpu.cfs_quota_us'), quota);
      }
      fs.writeFileSync(path.join(folders.pids, 'pids.max'), String(limits.pids));
      return [...new Set(Object.values(folders))].map((folder) => path.join(folder, 'cgroup.procs'));
    } catch {
      void this.remove(sessionId);
      return null;
    }
  }

  /** The processes in the sandbox's group (its pids group holds every one of them). */
  private members(sessionId: string): number[] {
    const folders = this.folders(sessionId);
    if (!folders) return [];
    try {
      return fs.readFileSync(path.join(folders.pids, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Kills what is left in the sandbox's group (a fork bomb's strays) and removes the group. */
  async remove(sessionId: string): Promise<void> {
    const folders = this.folders(sessionId);
    if (!folders) return;
    for (const folder of new Set(Object.values(folders))) {
      for (let round = 0; round < 100 && fs.existsSync(folder); round += 1) {
        for (const pid of this.members(sessionId)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
        try {
          fs.rmdirSync(folder);
        } catch {
          // Still members (EBUSY) while the kernel reaps them.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
  }

  /** At start-up, after a crash: the groups of this svc's sandboxes that are no longer running. */
  async removeLeftovers(running: ReadonlySet<string>): Promise<void> {
    if (typeof this.layout === 'string') return;
    const prefix = `${this.owner}-`;
    const leftovers = new Set<string>();
    for (const parent of new Set(Object.values(this.layout.parents))) {
      const names = fs.existsSync(parent) ? fs.readdirSync(parent, { withFileTypes: true }) : [];
      for (const entry of names) {
        const sessionId = entry.isDirectory() && entry.name.startsWith(prefix) ? entry.name.slice(prefix.length) : null;
        if (sessionId && !running.has(sessionId)) leftovers.add(sessionId);
      }
    }
    for (const sessionId of leftovers) await this.remove(sessionId);
  }
}

/**
 * cgroup v2 hands a controller to a group's children only when the group has it itself and, unless it is
 * the root, holds no processes of its own. svc's group (a systemd service, a container's namespace root)
 * holds svc: its processes move into a leaf, `svc-server`, and the group then enables memory, cpu and pids
 * for its children, `svc-sandboxes` among them. A group that has them enabled already is left alone.
 */
function delegateControllers(own: string): void {
  const read = (file: string) => fs.readFileSync(path.join(own, file), 'utf8').split(/\s+/).filter(Boolean);
  const enabled = read('cgroup.subtree_control');
  if (CONTROLLERS.every((controller) => enabled.includes(controller))) return;
  const available = read('cgroup.controllers');
  const missing = CONTROLLERS.filter((controller) => !available.includes(controller));
  if (missing.length > 0) throw new Error(`svc's control group ${own} was not given the ${missing.join(', ')} controller${missing.length === 1 ? '' : 's'}`);
  const enable = () => fs.writeFileSync(path.join(own, 'cgroup.subtree_control'), CONTROLLERS.map((controller) => `+${controller}`).join(' '));
  try {
    enable();
    return;
  } catch (error) {
    // EBUSY: the group holds processes (svc's own, in a container the others of its namespace too).
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
  }
  const leaf = path.join(own, SERVER_FOLDER);
  fs.mkdirSync(leaf, { recursive: true });
  for (const pid of read('cgroup.procs')) {
    try {
      fs.writeFileSync(path.join(leaf, 'cgroup.procs'), pid);
    } catch (error) {
      // A process that ended meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  enable();
}
