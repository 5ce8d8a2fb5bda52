/** What the host shows of a bubblewrap sandbox: its network namespace, its link, its firewall rules, its pids cgroup, its disk's mount and loop device. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { diskTraces } from './disk-traces.js';

export function bubblewrapTraces(sessionId: string): string[] {
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `namespace: ${line}`);
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `link: ${line}`);
  const rules = ['filter', 'nat'].flatMap((table) => execFileSync('iptables', ['-w', '10', '-t', table, '-S'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `rule: ${line}`));
  const cgroupRoot = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup'].find((dir) => fs.existsSync(`${dir}/cgroup.procs`));
  const cgroups = (cgroupRoot ? fs.readdirSync(cgroupRoot) : []).filter((name) => name.includes(sessionId)).map((name) => `cgroup: ${cgroupRoot}/${name}`);
  return [...namespaces, ...links, ...rules, ...cgroups, ...diskTraces(sessionId)];
}
