/**
 * A pids cgroup per bubblewrap sandbox: how many processes and threads it may hold (SVC_SANDBOX_PIDS_MAX),
 * so a fork bomb inside fills its own cgroup and not the host's process table. The sandbox's processes
 * run as root on the host (user namespaces map the sandbox's root to svc's user), which RLIMIT_NPROC does
 * not limit; a cgroup does. cgroup v1's pids hierarchy or v2's root with the pids controller; where
 * neither is writable (svc not root, a v2 host that does not delegate pids) the limit is not applied.
 */
import fs from 'node:fs';
import path from 'node:path';

function hierarchy(): string | null {
  const v1 = '/sys/fs/cgroup/pids';
  if (fs.existsSync(path.join(v1, 'cgroup.procs'))) return v1;
  const v2 = '/sys/fs/cgroup';
  try {
    if (!fs.readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('pids')) return null;
    if (!fs.readFileSync(path.join(v2, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) fs.writeFileSync(path.join(v2, 'cgroup.subtree_control'), '+pids');
    return v2;
  } catch {
    return null;
  }
}

export class PidsCgroups {
  private readonly root: string | null;

  /** `owner` tells this svc's sandboxes from another's on the same host. */
  constructor(private readonly owner: string) {
    let root = hierarchy();
    try {
      if (root) fs.accessSync(root, fs.constants.W_OK);
    } catch {
      root = null;
    }
    this.root = root;
  }

  get available(): boolean {
    return this.root !== null;
  }

  private name(sessionId: string): string {
    return `svc-${this.owner}-${sessionId}`;
  }

  /** Creates the sandbox's cgroup with its limit; returns the file a process writes its pid to, to join it. */
  create(sessionId: string, maxPids: number): string | null {
    if (!this.root) return null;
    const dir = path.join(this.root, this.name(sessionId));
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'pids.max'), String(maxPids));
      return path.join(dir, 'cgroup.procs');
    } catch {
      return null;
    }
  }

  /** The processes in the sandbox's cgroup. */
  members(sessionId: string): number[] {
    if (!this.root) return [];
    try {
      return fs.readFileSync(path.join(this.root, this.name(sessionId), 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Kills what is left in the cgroup and removes it. */
  async remove(sessionId: string): Promise<void> {
    if (!this.root) return;
    const dir = path.join(this.root, this.name(sessionId));
    for (let round = 0; round < 100 && fs.existsSync(dir); round += 1) {
      for (const pid of this.members(sessionId)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      try {
        fs.rmdirSync(dir);
        return;
      } catch {
        // Still members (EBUSY) while the kernel reaps them.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /** After a crash: removes the cgroups of this svc's sandboxes not in `keep`. */
  async removeLeftovers(keep: ReadonlySet<string>): Promise<void> {
    if (!this.root) return;
    const prefix = `svc-${this.owner}-`;
    for (const entry of fs.readdirSync(this.root)) {
      const sessionId = entry.startsWith(prefix) ? entry.slice(prefix.length) : null;
      if (sessionId && !keep.has(sessionId)) await this.remove(sessionId);
    }
  }
}
