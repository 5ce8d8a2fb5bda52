/** What the host shows of a bubblewrap sandbox: its network namespace, its link and its firewall rules. */
import { execFileSync } from 'node:child_process';

export function bubblewrapTraces(sessionId: string): string[] {
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `namespace: ${line}`);
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `link: ${line}`);
  const rules = ['filter', 'nat'].flatMap((table) => execFileSync('iptables', ['-w', '10', '-t', table, '-S'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `rule: ${line}`));
  return [...namespaces, ...links, ...rules];
}
