/**
 * The sandbox conformance suite on the bubblewrap provider, with what the host must not keep of a
 * stopped or deleted sandbox: its network namespace, its link and its firewall rules.
 */
import { execFileSync } from 'node:child_process';
import { sandboxConformance } from './support/sandbox-conformance.js';

function hostTraces(_svc: unknown, sessionId: string): Promise<string[]> {
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `namespace: ${line}`);
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `link: ${line}`);
  const rules = ['filter', 'nat'].flatMap((table) => execFileSync('iptables', ['-w', '10', '-t', table, '-S'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `rule: ${line}`));
  return Promise.resolve([...namespaces, ...links, ...rules]);
}

sandboxConformance({ provider: 'bubblewrap', hostTraces });
