/**
 * The network of a bubblewrap sandbox: a namespace of its own joined to the host by a veth pair on a
 * private /30 (10.213.0.0/16 holds 16384 of them). The sandbox reaches svc's API and git through the host
 * end of its pair and nothing else of the host; the outside world through NAT where the host routes there;
 * never another sandbox nor link-local metadata addresses. Rules live in chains of svc's own, jumped to
 * first from INPUT, FORWARD, PREROUTING and POSTROUTING, each rule tagged with its sandbox so removing a
 * sandbox (or cleaning up after a crash) removes exactly its rules. Links carry the same tag as their alias.
 */
import fs from 'node:fs';
import { runChecked, runProcess } from '../../shared/run-process.js';

export const SANDBOX_RANGE = '10.213.0.0/16';
/** The docker provider's network on an engine on this machine (docker-provider.ts). */
export const DOCKER_SANDBOX_RANGE = '10.214.0.0/16';
const SLOTS = 16_384;
const CHAINS = [
  { table: 'filter', chain: 'SVC-SANDBOX-IN', from: 'INPUT' },
  { table: 'filter', chain: 'SVC-SANDBOX-FWD', from: 'FORWARD' },
  { table: 'nat', chain: 'SVC-SANDBOX-PRE', from: 'PREROUTING' },
  { table: 'nat', chain: 'SVC-SANDBOX-POST', from: 'POSTROUTING' },
] as const;

export interface SandboxLink {
  slot: number;
  namespace: string;
  hostLink: string;
  hostAddress: string;
  sandboxAddress: string;
}

/** Where the sandbox reaches svc: the host end of its link stands for a loopback address of svc's URL. */
export interface ApiRoute {
  /** svc's URL as the sandbox must use it. */
  rewrite(url: string): string;
}

function addressesOf(slot: number): { hostAddress: string; sandboxAddress: string } {
  const third = slot >> 6;
  const fourth = (slot & 63) * 4;
  return { hostAddress: `10.213.${third}.${fourth + 1}`, sandboxAddress: `10.213.${third}.${fourth + 2}` };
}

/** Whether a URL's host names this machine's loopback, which a sandbox's own network does not share. */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '0.0.0.0' || hostname === '[::1]' || hostname.startsWith('127.');
}

async function ip(args: readonly string[]): Promise<void> {
  await runChecked('ip', args, { timeoutMs: 30_000 });
}

async function iptables(args: readonly string[]): Promise<boolean> {
  return (await runProcess('iptables', ['-w', '10', ...args], { timeoutMs: 30_000 })).code === 0;
}

async function iptablesChecked(args: readonly string[]): Promise<void> {
  await runChecked('iptables', ['-w', '10', ...args], { timeoutMs: 30_000 });
}

let chainsMade: Promise<void> | undefined;

/**
 * svc's chains, and the jumps to them checked on every use: Docker rearranges FORWARD when it creates a
 * network, which can drop a jump placed before it.
 */
async function ensureChains(): Promise<void> {
  chainsMade ??= (async () => {
    for (const { table, chain } of CHAINS) await iptables(['-t', table, '-N', chain]);
  })();
  await chainsMade;
  for (const { table, chain, from } of CHAINS) {
    // Docker inserts its own accepting rules at the top of FORWARD, but keeps DOCKER-USER before them.
    const parent = from === 'FORWARD' && (await iptables(['-t', table, '-S', 'DOCKER-USER'])) ? 'DOCKER-USER' : from;
    const jump = `-A ${parent} -j ${chain}`;
    const rules = (await runProcess('iptables', ['-w', '10', '-t', table, '-S', parent])).stdout.split('\n').filter((rule) => rule.startsWith('-A '));
    if (rules[0] === jump) continue;
    for (const _ of rules.filter((rule) => rule === jump)) await iptables(['-t', table, '-D', parent, '-j', chain]);
    await iptablesChecked(['-t', table, '-I', parent, '1', '-j', chain]);
  }
}

export class SandboxNetwork {
  /** `owner` tells this svc's sandboxes from another's on the same host (its data directory, hashed). */
  constructor(private readonly owner: string) {}

  private tag(sessionId: string): string {
    return `svc-sandbox:${this.owner}:${sessionId}`;
  }

  /** Creates the namespace, the link, the addresses and the rules; `apiUrl` is svc's URL as svc knows it. */
  async create(sessionId: string, apiUrl: string): Promise<{ link: SandboxLink; route: ApiRoute }> {
    await ensureChains();
    const namespace = `svc-${this.owner}-${sessionId}`;
    await runProcess('ip', ['netns', 'del', namespace]);
    await ip(['netns', 'add', namespace]);
    let slot = Math.floor(Math.random() * SLOTS);
    let link: SandboxLink | undefined;
    // The host link's name is the lock on a slot: creating it fails while another sandbox holds the slot.
    for (let tries = 0; tries < SLOTS && !link; tries += 1, slot = (slot + 1) % SLOTS) {
      const hostLink = `svh${slot}`;
      const created = await runProcess('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', `svs${slot}`, 'netns', namespace]);
      if (created.code === 0) link = { slot, namespace, hostLink, ...addressesOf(slot) };
    }
    if (!link) throw new Error(`all ${SLOTS} sandbox network slots are taken`);
    try {
      await this.configure(sessionId, link, apiUrl);
    } catch (error) {
      await this.remove(sessionId, link);
      throw error;
    }
    const api = new URL(apiUrl);
    const viaHost = isLoopback(api.hostname);
    return {
      link,
      route: {
        rewrite(url: string) {
          const target = new URL(url);
          if (!viaHost || target.host !== api.host) return url;
          target.hostname = link.hostAddress;
          return target.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
        },
      },
    };
  }

  /** One `ip -batch` per namespace and one `iptables-restore`: a boot spawns three programs, not twenty. */
  private async configure(sessionId: string, link: SandboxLink, apiUrl: string): Promise<void> {
    const { namespace, hostLink, hostAddress, sandboxAddress, slot } = link;
    const tag = this.tag(sessionId);
    await runChecked('ip', ['-batch', '-'], {
      timeoutMs: 30_000,
      stdin: [`link set ${hostLink} alias ${tag}`, `addr add ${hostAddress}/30 dev ${hostLink}`, `link set ${hostLink} up`].join('\n') + '\n',
    });
    await runChecked('ip', ['-n', namespace, '-batch', '-'], {
      timeoutMs: 30_000,
      stdin: ['link set lo up', `addr add ${sandboxAddress}/30 dev svs${slot}`, `link set svs${slot} up`, `route add default via ${hostAddress}`].join('\n') + '\n',
    });

    const api = new URL(apiUrl);
    const port = api.port || (api.protocol === 'https:' ? '443' : '80');
    const comment = `-m comment --comment ${tag}`;
    const nat: string[] = [];
    if (isLoopback(api.hostname)) {
      // svc listens on loopback: the host end of the link is forwarded to it (which needs route_localnet).
      fs.writeFileSync(`/proc/sys/net/ipv4/conf/${hostLink}/route_localnet`, '1');
      nat.push(`-A SVC-SANDBOX-PRE -i ${hostLink} -d ${hostAddress} -p tcp --dport ${port} -j DNAT --to-destination 127.0.0.1:${port} ${comment}`);
    }
    nat.push(`-A SVC-SANDBOX-POST -s ${sandboxAddress}/32 ! -o ${hostLink} -j MASQUERADE ${comment}`);
    const filter = [
      `-A SVC-SANDBOX-IN -i ${hostLink} -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT ${comment}`,
      `-A SVC-SANDBOX-IN -i ${hostLink} -p tcp --dport ${port} -j ACCEPT ${comment}`,
      `-A SVC-SANDBOX-IN -i ${hostLink} -j DROP ${comment}`,
      `-A SVC-SANDBOX-FWD -i ${hostLink} -d 169.254.0.0/16 -j DROP ${comment}`,
      `-A SVC-SANDBOX-FWD -i ${hostLink} -d ${SANDBOX_RANGE} -j DROP ${comment}`,
      `-A SVC-SANDBOX-FWD -i ${hostLink} -d ${DOCKER_SANDBOX_RANGE} -j DROP ${comment}`,
      `-A SVC-SANDBOX-FWD -o ${hostLink} -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT ${comment}`,
      `-A SVC-SANDBOX-FWD -o ${hostLink} -j DROP ${comment}`,
      `-A SVC-SANDBOX-FWD -i ${hostLink} -j ACCEPT ${comment}`,
    ];
    await runChecked('iptables-restore', ['-w', '10', '--noflush'], { timeoutMs: 30_000, stdin: ['*filter', ...filter, 'COMMIT', '*nat', ...nat, 'COMMIT', ''].join('\n') });
  }

  /** Removes the namespace, the link and every rule of one sandbox; nothing left is not an error. */
  async remove(sessionId: string, link: Pick<SandboxLink, 'namespace' | 'hostLink'> | null): Promise<void> {
    if (link) {
      await runProcess('ip', ['netns', 'del', link.namespace]);
      await runProcess('ip', ['link', 'del', link.hostLink]);
    }
    await this.removeRules((comment) => comment === this.tag(sessionId));
  }

  /** After a crash: removes the namespaces, links and rules of this svc's sandboxes not in `keep`. */
  async removeLeftovers(keep: ReadonlySet<string>): Promise<string[]> {
    const prefix = `svc-sandbox:${this.owner}:`;
    const removed = new Set<string>();
    const namespaces = (await runProcess('ip', ['netns', 'list'])).stdout.split('\n').map((line) => line.split(' ')[0] ?? '');
    for (const namespace of namespaces) {
      const sessionId = namespace.startsWith(`svc-${this.owner}-`) ? namespace.slice(`svc-${this.owner}-`.length) : null;
      if (sessionId && !keep.has(sessionId)) {
        await runProcess('ip', ['netns', 'del', namespace]);
        removed.add(sessionId);
      }
    }
    const links = (await runProcess('ip', ['-o', 'link', 'show'])).stdout.split('\n');
    for (const line of links) {
      const match = /^\d+: (svh\d+)[@:].*alias (\S+)/.exec(line);
      const sessionId = match?.[2]?.startsWith(prefix) ? match[2].slice(prefix.length) : null;
      if (match && sessionId && !keep.has(sessionId)) {
        await runProcess('ip', ['link', 'del', match[1]!]);
        removed.add(sessionId);
      }
    }
    for (const sessionId of await this.removeRules((comment) => comment.startsWith(prefix) && !keep.has(comment.slice(prefix.length)))) removed.add(sessionId);
    return [...removed];
  }

  private async removeRules(matches: (comment: string) => boolean): Promise<string[]> {
    const sessions = new Set<string>();
    for (const { table, chain } of CHAINS) {
      const listed = await runProcess('iptables', ['-w', '10', '-t', table, '-S', chain]);
      if (listed.code !== 0) continue;
      for (const rule of listed.stdout.split('\n')) {
        const comment = /--comment "?([^"\s]+)"?/.exec(rule)?.[1];
        if (!comment || !rule.startsWith('-A ') || !matches(comment)) continue;
        const args = rule.slice(3).split(' ').map((word) => word.replace(/^"|"$/g, ''));
        await iptables(['-t', table, '-D', ...args]);
        sessions.add(comment.slice(comment.lastIndexOf(':') + 1));
      }
    }
    return [...sessions];
  }
}

const allowed = new Map<string, Promise<void>>();

async function hasRule(table: string, chain: string, comment: string): Promise<boolean> {
  const listed = await runProcess('iptables', ['-w', '10', '-t', table, '-S', chain]);
  return listed.stdout.includes(comment);
}

/**
 * The docker provider's network on this machine: its containers reach the host at `gateway`, on svc's
 * `port` only (forwarded to loopback when svc listens there), and no link-local address nor bubblewrap
 * sandbox. The rules stay while the host runs (they serve every container of the network); a rule per
 * port lets several svc servers share one engine.
 */
export function allowHostPort(bridge: string, gateway: string, port: number, toLoopback: boolean): Promise<void> {
  const key = `${bridge}:${port}:${toLoopback}`;
  let done = allowed.get(key);
  if (done) return done.then(ensureChains);
  if (!done) {
    done = (async () => {
      await ensureChains();
      const tag = (what: string) => ['-m', 'comment', '--comment', `svc-docker:${bridge}:${what}`];
      if (!(await hasRule('filter', 'SVC-SANDBOX-IN', `svc-docker:${bridge}:drop`))) {
        await iptablesChecked(['-A', 'SVC-SANDBOX-IN', '-i', bridge, '-j', 'DROP', ...tag('drop')]);
        await iptablesChecked(['-I', 'SVC-SANDBOX-IN', '1', '-i', bridge, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT', ...tag('established')]);
        await iptablesChecked(['-A', 'SVC-SANDBOX-FWD', '-i', bridge, '-d', '169.254.0.0/16', '-j', 'DROP', ...tag('link-local')]);
        await iptablesChecked(['-A', 'SVC-SANDBOX-FWD', '-i', bridge, '-d', SANDBOX_RANGE, '-j', 'DROP', ...tag('bubblewrap')]);
      }
      if (!(await hasRule('filter', 'SVC-SANDBOX-IN', `svc-docker:${bridge}:${port}`))) {
        await iptablesChecked(['-I', 'SVC-SANDBOX-IN', '1', '-i', bridge, '-p', 'tcp', '--dport', String(port), '-j', 'ACCEPT', ...tag(String(port))]);
      }
      if (toLoopback && !(await hasRule('nat', 'SVC-SANDBOX-PRE', `svc-docker:${bridge}:${port}`))) {
        await runChecked('sysctl', ['-q', '-w', `net.ipv4.conf.${bridge}.route_localnet=1`]);
        await iptablesChecked(['-t', 'nat', '-A', 'SVC-SANDBOX-PRE', '-i', bridge, '-d', gateway, '-p', 'tcp', '--dport', String(port), '-j', 'DNAT', '--to-destination', `127.0.0.1:${port}`, ...tag(String(port))]);
      }
    })().catch((error: unknown) => {
      allowed.delete(key);
      throw error;
    });
    allowed.set(key, done);
  }
  return done;
}
