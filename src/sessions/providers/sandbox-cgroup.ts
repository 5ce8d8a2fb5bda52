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

const ROOT = '/sys/fs/cgroup';
const CPU_PERIOD_US = 100_000;
const GROUP_FOLDER = 'svc-sandboxes';

type Controller = 'memory' | 'cpu' | 'pids';

/** Where each controller's groups live for this process: one folder on v2, one per controller on v1. */
interface Layout {
  version: 1 | 2;
  parents: Record<Controller, string>;
}

function ownGroups(): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, group] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || group === undefined) continue;
    for (const controller of controllers === '' ? [''] : controllers.split(',')) groups.set(controller, group);
  }
  return groups;
}

function findLayout(): Layout | string {
  if (process.platform !== 'linux') return 'control groups are Linux only';
  const groups = ownGroups();
  if (fs.existsSync(path.join(ROOT, 'cgroup.controllers'))) {
    const parent = path.join(ROOT, groups.get('') ?? '/', GROUP_FOLDER);
    return { version: 2, parents: { memory: parent, cpu: parent, pids: parent } };
  }
  const parents = {} as Record<Controller, string>;
  for (const controller of ['memory', 'cpu', 'pids'] as const) {
    const mount = path.join(ROOT, controller);
    if (!fs.existsSync(path.join(mount, 'cgroup.procs'))) return `the cgroup v1 ${controller} controller is not mounted at ${mount}`;
    parents[controller] = path.join(mount, groups.get(controller) ?? '/', GROUP_FOLDER);
  }
  return { version: 1, parents };
}

export class SandboxCgroups {
  private readonly layout: Layout | string;

  /** `owner` tells this svc's groups from another's on the same machine. */
  constructor(private readonly owner: string) {
    this.layout = findLayout();
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
      for (const parent of new Set(Object.values(this.layout.parents))) fs.mkdirSync(parent, { recursive: true });
      if (this.layout.version === 2) fs.writeFileSync(path.join(this.layout.parents.memory, 'cgroup.subtree_control'), '+memory +cpu +pids');
      return null;
    } catch (error) {
      return `control groups cannot be written here (${(error as Error).message})`;
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
