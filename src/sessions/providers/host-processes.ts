/**
 * Processes of a sandbox seen from the host: whether its leader lives, and ending it with everything it
 * started. Children may leave the leader's process group (the runtime makes one of its own), so the tree
 * is read from /proc before anything is signalled: a child whose parent is gone is re-parented and lost.
 * A sandbox whose leader was killed alone leaves such orphans; they still carry the sandbox's identity
 * (SVC_SESSION_ID in the environment svc gave the leader), which is how they are found and ended too.
 */
import fs from 'node:fs';
import { descendants } from '../../shared/process-tree.js';

const STOP_GRACE_MS = 5_000;

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Processes on this machine started for a session's sandbox (those svc may read the environment of). */
export function sandboxProcesses(sessionId: string): number[] {
  const marker = Buffer.from(`\0SVC_SESSION_ID=${sessionId}\0`);
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = Buffer.concat([Buffer.from([0]), fs.readFileSync(`/proc/${name}/environ`)]);
      if (environ.includes(marker)) pids.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

/**
 * SIGTERM to the leader's group, a grace period, then SIGKILL to the group, every descendant and every
 * process left with the sandbox's identity (until none is left: a fork bomb forks while it is killed).
 */
export async function endProcessTree(leader: number, sessionId: string, graceMs = STOP_GRACE_MS): Promise<void> {
  if (alive(leader)) {
    const tree = descendants(leader);
    signal(-leader, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (alive(leader) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    signal(-leader, 'SIGKILL');
    for (const pid of [...tree, ...descendants(leader)]) {
      signal(-pid, 'SIGKILL');
      signal(pid, 'SIGKILL');
    }
    signal(leader, 'SIGKILL');
  }
  for (let round = 0; round < 50; round += 1) {
    const left = sandboxProcesses(sessionId).filter(alive);
    if (left.length === 0) return;
    for (const pid of left) signal(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
