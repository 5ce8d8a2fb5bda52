/**
 * Where a repo_url points on the network. svc clones and fetches a mirror project's repo_url from its own
 * network position, so a repo_url naming a loopback, private, link-local (cloud metadata at
 * 169.254.169.254 included) or other special-use address would let whoever creates a project make svc
 * talk to services that are not on the internet. Only administrators may create such projects (they
 * configure the machine anyway); for everyone else the host, and every address its name resolves to, must
 * be a public one.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { AppError } from '../errors.js';

/** IPv4 ranges that are not the public internet (RFC 6890 special-purpose registry, and multicast/reserved). */
const SPECIAL_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/** IPv6 ranges that are not the public internet. Ranges that embed an IPv4 address are checked by that address. */
const SPECIAL_IPV6: ReadonlyArray<readonly [string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const specialAddresses = new net.BlockList();
for (const [address, prefix] of SPECIAL_IPV4) specialAddresses.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of SPECIAL_IPV6) specialAddresses.addSubnet(address, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (already known valid), with any dotted IPv4 tail. */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    tail.push(...dotted[1].split('.').map(Number));
    text = text.slice(0, -dotted[1].length) + '0:0';
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = all.flatMap((group) => {
    const value = parseInt(group || '0', 16);
    return [value >> 8, value & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number): boolean => b.slice(from, to).every((byte) => byte === 0);
  const last4 = `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return last4; // ::ffff:a.b.c.d
  if (zeros(0, 12)) return last4; // ::a.b.c.d (deprecated compatible form; also :: and ::1, which are special anyway)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return last4; // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return `${b[2]}.${b[3]}.${b[4]}.${b[5]}`; // 2002::/16
  return null;
}

/** Whether `address` (an IP literal) is loopback, private, link-local, unspecified or another special-use address. */
export function isSpecialAddress(literal: string): boolean {
  // A zone (fe80::1%eth0) names an interface of this machine; the address decides.
  const address = literal.split('%')[0] ?? '';
  const family = net.isIP(address);
  if (family === 4) return specialAddresses.check(address, 'ipv4');
  if (family !== 6) return false;
  const ipv4 = embeddedIpv4(address);
  if (ipv4 !== null && specialAddresses.check(ipv4, 'ipv4')) return true;
  return specialAddresses.check(address, 'ipv6');
}

/** The host a repo_url connects to: from an http(s)/ssh/git URL, or from scp-like `[user@]host:path`. */
export function repoUrlHost(repoUrl: string): string | null {
  let host: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repoUrl)) {
    try {
      host = new URL(repoUrl).hostname;
    } catch {
      return null;
    }
  } else {
    const scp = /^(?:[^@/]*@)?(\[[^\]]*\]|[^:/]+):/.exec(repoUrl);
    if (!scp?.[1]) return null;
    host = scp[1];
  }
  return host.replace(/^\[(.*)\]$/, '$1') || null;
}

/**
 * The special-use address `repoUrl` would connect to, or null when its host is public. A host name is
 * resolved the way git, curl and ssh resolve it (getaddrinfo, every address), so `localhost`, numeric forms
 * like `2130706433` and names that point at 10.x all count. A name that does not resolve is not refused
 * here: it reaches nothing, and the clone reports that.
 */
export async function specialAddressOf(repoUrl: string): Promise<string | null> {
  const host = repoUrlHost(repoUrl);
  if (host === null) return null;
  if (net.isIP(host)) return isSpecialAddress(host) ? host : null;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return null;
  }
  return addresses.find((entry) => isSpecialAddress(entry.address))?.address ?? null;
}

/** Refuses (403) a repo_url whose host is or resolves to a special-use address; for non-administrators. */
export async function assertPublicRepoHost(repoUrl: string): Promise<void> {
  const address = await specialAddressOf(repoUrl);
  if (address !== null) throw specialAddressRefusal(address);
}

/** The refusal of a non-administrator's repo_url that reaches a special-use address. */
export function specialAddressRefusal(address: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `repo_url points at ${address}, a private or local network address (loopback, private, link-local or another ` +
      `special-use range), which svc does not connect to for you. Use the repository's public https:// or ssh:// URL, ` +
      'or ask an administrator to create the project.',
  );
}

/**
 * Transport settings that keep git on the address checked here, for an upstream a non-administrator chose
 * (the check at project creation alone would let a name re-point at an internal address later, "DNS
 * rebinding", or a public server redirect git inward): the name is resolved again, refused when any
 * address is special, and for http(s) curl is pinned to the checked address (`http.curloptResolve`) and
 * follows no redirects. ssh and git:// resolve on their own, so for them the check runs just before git does.
 */
export async function publicUpstreamTransport(repoUrl: string): Promise<{ refusedAddress: string } | { config: Record<string, string> }> {
  const config: Record<string, string> = { 'http.followRedirects': 'false' };
  const host = repoUrlHost(repoUrl);
  if (host === null) return { config };
  if (net.isIP(host)) return isSpecialAddress(host) ? { refusedAddress: host } : { config };
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    // git will not resolve it either, and says so.
    return { config };
  }
  const special = addresses.find((entry) => isSpecialAddress(entry.address));
  if (special) return { refusedAddress: special.address };
  const first = addresses[0];
  const scheme = /^(https?):\/\//i.exec(repoUrl)?.[1]?.toLowerCase();
  if (first && scheme) {
    const port = new URL(repoUrl).port || (scheme === 'https' ? '443' : '80');
    config['http.curloptResolve'] = `${host}:${port}:${first.family === 6 ? `[${first.address}]` : first.address}`;
  }
  return { config };
}
