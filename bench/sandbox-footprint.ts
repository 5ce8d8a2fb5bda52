/**
 * What one idle running sandbox costs in memory, per provider: every process of the sandbox found on the
 * host (the process tree svc started, or the processes the Docker engine lists for the container; they share
 * this machine's kernel, so their /proc entries are here), split into the agent runtime (opencode and what it
 * started) and svc's part (entrypoint, daemon and, for bubblewrap, bwrap itself). Proportional set size (PSS)
 * counts pages shared between processes once, so sandboxes' figures add up to what the machine gives them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import { descendants } from '../src/shared/process-tree.js';

export interface Footprint {
  processes: number;
  svcPssMb: number;
  runtimePssMb: number;
  totalPssMb: number;
  totalRssMb: number;
}

function kilobytes(pid: number, field: 'Pss' | 'Rss'): number {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Host pids of the sandbox's processes. */
export async function sandboxPids(provider: string, dataDir: string, sessionId: string): Promise<number[]> {
  if (provider === 'docker') {
    const engine = new DockerEngine();
    const filter = encodeURIComponent(JSON.stringify({ label: [`svc.session=${sessionId}`] }));
    const [container] = (await engine.expect([200], 'GET', `/containers/json?filters=${filter}`)).body as Array<{ Id: string }>;
    if (!container) return [];
    const top = (await engine.expect([200], 'GET', `/containers/${container.Id}/top`)).body as { Titles: string[]; Processes: string[][] };
    const column = top.Titles.indexOf('PID');
    return top.Processes.map((row) => Number(row[column]));
  }
  const { pid } = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandboxes', sessionId, 'sandbox.json'), 'utf8')) as { pid: number };
  return [pid, ...descendants(pid)];
}

export function footprint(pids: readonly number[]): Footprint {
  const runtime = new Set<number>();
  for (const pid of pids) {
    if (commandLine(pid).includes('opencode')) [pid, ...descendants(pid)].forEach((member) => runtime.add(member));
  }
  let svc = 0;
  let runtimeKb = 0;
  let rss = 0;
  for (const pid of pids) {
    const pss = kilobytes(pid, 'Pss');
    if (runtime.has(pid)) runtimeKb += pss;
    else svc += pss;
    rss += kilobytes(pid, 'Rss');
  }
  const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
  return { processes: pids.length, svcPssMb: mb(svc), runtimePssMb: mb(runtimeKb), totalPssMb: mb(svc + runtimeKb), totalRssMb: mb(rss) };
}

/** MemAvailable of this machine, in MiB: what a batch of sandboxes took, measured from outside. */
export function availableMb(): number {
  const kb = Number(/^MemAvailable:\s+(\d+)/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}
