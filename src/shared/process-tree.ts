/**
 * Descendants of a process, from /proc: what `/svc/abort` ends when the runtime's abort leaves shell
 * commands running (they may run in their own process groups, so a group signal is not enough).
 */
import fs from 'node:fs';

function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces; the parent pid follows the state field.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

export function descendants(root: number): number[] {
  let pids: number[];
  try {
    pids = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(pid);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Sends SIGKILL to every descendant of `root`; returns how many were signalled. */
export function killDescendants(root: number): number {
  let killed = 0;
  for (const pid of descendants(root).reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {}
  }
  return killed;
}
