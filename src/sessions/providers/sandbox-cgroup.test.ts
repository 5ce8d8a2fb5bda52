/**
 * The cgroup v2 set-up of the bubblewrap provider's limits, on a tree of folders laid out as a v2 host's
 * (this machine runs v1, whose hierarchies the provider's own tests use): which group svc hands the
 * controllers down from, what it writes there, and what it says when it was not given them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxCgroups } from './sandbox-cgroup.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

/** A v2 tree: the root and svc's service group, with the controllers the service was given. */
function v2Tree(given: string, enabled = ''): { root: string; service: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cgroup2-'));
  roots.push(root);
  fs.writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n');
  const service = path.join(root, 'system.slice', 'svc.service');
  fs.mkdirSync(service, { recursive: true });
  fs.writeFileSync(path.join(service, 'cgroup.controllers'), `${given}\n`);
  fs.writeFileSync(path.join(service, 'cgroup.subtree_control'), `${enabled}\n`);
  fs.writeFileSync(path.join(service, 'cgroup.procs'), `${process.pid}\n`);
  return { root, service };
}

const inService = (root: string) => ({ root, selfCgroup: () => '0::/system.slice/svc.service\n' });

describe('cgroup v2 limits for bubblewrap sandboxes', () => {
  it("hands memory, cpu and pids down from svc's own group to the sandboxes' groups", () => {
    const { root, service } = v2Tree('cpu io memory pids');
    const cgroups = new SandboxCgroups('abc123', inService(root));
    expect(cgroups.prepare()).toBeNull();
    expect(fs.readFileSync(path.join(service, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +cpu +pids');
    expect(fs.readFileSync(path.join(service, 'svc-sandboxes', 'cgroup.subtree_control'), 'utf8')).toBe('+memory +cpu +pids');
    const procs = cgroups.create('s1', { memoryBytes: 2 ** 30, cpus: 1.5, pids: 512 } as never);
    expect(procs).toEqual([path.join(service, 'svc-sandboxes', 'abc123-s1', 'cgroup.procs')]);
    const group = path.join(service, 'svc-sandboxes', 'abc123-s1');
    expect(fs.readFileSync(path.join(group, 'memory.max'), 'utf8')).toBe(String(2 ** 30));
    expect(fs.readFileSync(path.join(group, 'cpu.max'), 'utf8')).toBe('150000 100000');
    expect(fs.readFileSync(path.join(group, 'pids.max'), 'utf8')).toBe('512');
  });

  it('leaves a group that hands them down already as it is', () => {
    const { root, service } = v2Tree('cpu memory pids', 'memory pids cpu');
    expect(new SandboxCgroups('abc123', inService(root)).prepare()).toBeNull();
    expect(fs.readFileSync(path.join(service, 'cgroup.subtree_control'), 'utf8')).toBe('memory pids cpu\n');
    expect(fs.existsSync(path.join(service, 'svc-server'))).toBe(false);
  });

  it('names the controllers svc was not given and how to give them', () => {
    const { root } = v2Tree('cpu io');
    expect(new SandboxCgroups('abc123', inService(root)).prepare()).toBe(
      `control groups cannot be written here (svc's control group ${path.join(root, 'system.slice', 'svc.service')} was not given the memory, pids controllers): run svc as root in a control group that hands down memory, cpu and pids (systemd: Delegate=yes in its unit; a container: its own cgroup namespace)`,
    );
  });

  it('takes the group above its own leaf for svc’s group, so a second provider in one process does not nest', () => {
    const { root, service } = v2Tree('cpu memory pids');
    const cgroups = new SandboxCgroups('abc123', { root, selfCgroup: () => '0::/system.slice/svc.service/svc-server\n' });
    expect(cgroups.prepare()).toBeNull();
    expect(fs.existsSync(path.join(service, 'svc-sandboxes'))).toBe(true);
  });
});
