/**
 * Processes of a sandbox seen from the host: whether its leader lives, and ending it with everything it
 * started. Children may leave the leader's process group (the runtime makes one of its own), so the tree
 * is read from /proc before anything is signalled: a child whose parent is gone is re-parented and lost.
 */
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

/** SIGTERM to the leader's group, a grace period, then SIGKILL to the group and every descendant. */
export async function endProcessTree(leader: number, graceMs = STOP_GRACE_MS): Promise<void> {
  if (!alive(leader)) return;
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
