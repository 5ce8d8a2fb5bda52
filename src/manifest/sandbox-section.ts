/**
 * The manifest's `sandbox` section: how much memory, CPU, disk and how many processes each of the project's
 * sandboxes gets, and the Dockerfile the docker provider builds the project's sandbox image from. Each
 * setting is read on its own, so one bad value leaves the others (and the server's default for it).
 *
 * The server's maximums are configuration, not part of the file, so they are checked by a second function
 * the merge gate and the session boot both call: a manifest valid on one server may ask too much of another.
 */
import type { Issue } from '../errors.js';
import {
  MEMORY_SIZE_PATTERN,
  MIN_SANDBOX_CPUS,
  MIN_SANDBOX_DISK_MB,
  MIN_SANDBOX_MEMORY_MB,
  MIN_SANDBOX_PIDS,
  SANDBOX_IMAGE_KEYS,
  SANDBOX_KEYS,
  type NormalizedSandbox,
} from './manifest-schema.js';
import { checkRepositoryPath, reportUnknownKeys } from './manifest-sections.js';
import type { ManifestFormat } from './read-document.js';
import { describeValue, isRecord, listWords, quote } from './wording.js';

const EXAMPLE_DOCKERFILE = '.svc/sandbox/Dockerfile';
const memorySizePattern = new RegExp(MEMORY_SIZE_PATTERN);
const UNIT_BYTES: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const MIB = 1024 * 1024;

export function emptySandbox(): NormalizedSandbox {
  return { memory_bytes: null, cpus: null, pids: null, disk_bytes: null, dockerfile: null };
}

export function checkSandbox(value: unknown, format: ManifestFormat, issues: Issue[]): NormalizedSandbox {
  const sandbox = emptySandbox();
  if (value === undefined || value === null) return sandbox;
  if (!isRecord(value)) {
    const example = format === 'toml' ? '[sandbox] with memory = "2g" and cpus = 1.5' : 'sandbox: { memory: 2g, cpus: 1.5 }';
    issues.push({ path: '/sandbox', message: `sandbox must be a mapping of settings, e.g. ${example}; got ${describeValue(value)}` });
    return sandbox;
  }
  reportUnknownKeys(value, SANDBOX_KEYS, '/sandbox', (key) => `${quote(key)} is not a sandbox setting (known: ${listWords(SANDBOX_KEYS)})`, issues);
  if (Object.hasOwn(value, 'memory')) sandbox.memory_bytes = checkSize('memory', value['memory'], MIN_SANDBOX_MEMORY_MB, "too little for the sandbox's daemon and agent runtime", issues);
  if (Object.hasOwn(value, 'cpus')) sandbox.cpus = checkCpus(value['cpus'], issues);
  if (Object.hasOwn(value, 'pids')) sandbox.pids = checkPids(value['pids'], issues);
  if (Object.hasOwn(value, 'disk')) sandbox.disk_bytes = checkSize('disk', value['disk'], MIN_SANDBOX_DISK_MB, 'too little for a filesystem holding a workspace and a home', issues);
  if (Object.hasOwn(value, 'image')) sandbox.dockerfile = checkImage(value['image'], format, issues);
  return sandbox;
}

/** `memory` and `disk`: a number with a binary unit, at least `minMb` (`why` says what less would starve). */
function checkSize(key: 'memory' | 'disk', value: unknown, minMb: number, why: string, issues: Issue[]): number | null {
  const path = `/sandbox/${key}`;
  const [large, small] = key === 'memory' ? ['"2g"', '"512m"'] : ['"5g"', '"20g"'];
  if (typeof value === 'number') {
    issues.push({ path, message: `sandbox.${key} must be a size with its unit, e.g. ${large} or ${small}; got the number ${String(value)}, which could be bytes or megabytes` });
    return null;
  }
  if (typeof value !== 'string') {
    issues.push({ path, message: `sandbox.${key} must be a size such as ${large} or ${small}, got ${describeValue(value)}` });
    return null;
  }
  if (!memorySizePattern.test(value)) {
    issues.push({ path, message: `sandbox.${key} ${quote(value)} is not a size; write a number and a unit k, m, g or t, e.g. ${large} or ${small}` });
    return null;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt])/i.exec(value);
  const bytes = Math.round(Number(match?.[1]) * (UNIT_BYTES[(match?.[2] ?? 'm').toLowerCase()] ?? MIB));
  if (!Number.isSafeInteger(bytes)) {
    issues.push({ path, message: `sandbox.${key} ${quote(value)} is more ${key} than any machine has` });
    return null;
  }
  if (bytes < minMb * MIB) {
    issues.push({ path, message: `sandbox.${key} ${quote(value)} is less than ${minMb}m, ${why}` });
    return null;
  }
  return bytes;
}

function checkCpus(value: unknown, issues: Issue[]): number | null {
  const path = '/sandbox/cpus';
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    const quoted = typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? ` (remove the quotes: cpus: ${value.trim()})` : '';
    issues.push({ path, message: `sandbox.cpus must be a number of CPUs such as 1.5, got ${describeValue(value)}${quoted}` });
    return null;
  }
  if (value < MIN_SANDBOX_CPUS) {
    issues.push({ path, message: `sandbox.cpus ${String(value)} is less than ${MIN_SANDBOX_CPUS}; a sandbox needs at least a tenth of a CPU` });
    return null;
  }
  return value;
}

function checkPids(value: unknown, issues: Issue[]): number | null {
  const path = '/sandbox/pids';
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    issues.push({ path, message: `sandbox.pids must be a whole number of processes such as 512, got ${describeValue(value)}` });
    return null;
  }
  if (value < MIN_SANDBOX_PIDS) {
    issues.push({ path, message: `sandbox.pids ${value} is less than ${MIN_SANDBOX_PIDS}, too few for the sandbox's daemon, agent runtime, shell and git` });
    return null;
  }
  return value;
}

function checkImage(value: unknown, format: ManifestFormat, issues: Issue[]): string | null {
  const path = '/sandbox/image';
  if (value === null) return null;
  if (!isRecord(value)) {
    const example = format === 'toml' ? `[sandbox.image] with dockerfile = "${EXAMPLE_DOCKERFILE}"` : `image: { dockerfile: ${EXAMPLE_DOCKERFILE} }`;
    const asPath = typeof value === 'string' ? ` (for a Dockerfile write image: { dockerfile: ${quote(value)} })` : '';
    issues.push({ path, message: `sandbox.image must be a mapping, e.g. ${example}; got ${describeValue(value)}${asPath}` });
    return null;
  }
  reportUnknownKeys(value, SANDBOX_IMAGE_KEYS, path, (key) => `${quote(key)} is not a sandbox.image setting (known: ${listWords(SANDBOX_IMAGE_KEYS)})`, issues);
  const dockerfile = value['dockerfile'];
  if (dockerfile === undefined) {
    issues.push({ path: `${path}/dockerfile`, message: `sandbox.image needs dockerfile, the path of the image's Dockerfile, e.g. ${EXAMPLE_DOCKERFILE}` });
    return null;
  }
  if (typeof dockerfile !== 'string') {
    issues.push({ path: `${path}/dockerfile`, message: `sandbox.image.dockerfile must be a path such as ${EXAMPLE_DOCKERFILE}, got ${describeValue(dockerfile)}` });
    return null;
  }
  const checked = checkRepositoryPath(dockerfile, EXAMPLE_DOCKERFILE);
  if (!checked.ok) {
    issues.push({ path: `${path}/dockerfile`, message: `sandbox.image.dockerfile ${quote(dockerfile)} ${checked.reason}` });
    return null;
  }
  if (checked.path === '.' || dockerfile.trimEnd().endsWith('/')) {
    issues.push({ path: `${path}/dockerfile`, message: `sandbox.image.dockerfile ${quote(dockerfile)} names a folder; name the Dockerfile itself, e.g. ${EXAMPLE_DOCKERFILE}` });
    return null;
  }
  return checked.path;
}

/** What the server lets one sandbox have (SVC_SANDBOX_MAX_*). */
export interface SandboxMaximums {
  memoryMb: number;
  cpus: number;
  pids: number;
  diskMb: number;
}

/** `8g`, `1536m`: the size as a person would write it in the manifest. */
export function formatMemory(bytes: number): string {
  if (bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3}g`;
  if (bytes % MIB === 0) return `${bytes / MIB}m`;
  return `${(bytes / MIB).toFixed(1)}m`;
}

/** The settings this server will not give a sandbox, each where it is written. */
export function sandboxLimitIssues(sandbox: NormalizedSandbox, maximums: SandboxMaximums): Issue[] {
  const issues: Issue[] = [];
  const ask = 'ask its operator to raise';
  if (sandbox.memory_bytes !== null && sandbox.memory_bytes > maximums.memoryMb * MIB) {
    issues.push({
      path: '/sandbox/memory',
      message: `sandbox.memory ${formatMemory(sandbox.memory_bytes)} is more than this server gives a sandbox (at most ${formatMemory(maximums.memoryMb * MIB)}); lower it or ${ask} SVC_SANDBOX_MAX_MEMORY_MB`,
    });
  }
  if (sandbox.cpus !== null && sandbox.cpus > maximums.cpus) {
    issues.push({ path: '/sandbox/cpus', message: `sandbox.cpus ${sandbox.cpus} is more than this server gives a sandbox (at most ${maximums.cpus}); lower it or ${ask} SVC_SANDBOX_MAX_CPUS` });
  }
  if (sandbox.pids !== null && sandbox.pids > maximums.pids) {
    issues.push({ path: '/sandbox/pids', message: `sandbox.pids ${sandbox.pids} is more than this server gives a sandbox (at most ${maximums.pids}); lower it or ${ask} SVC_SANDBOX_MAX_PIDS` });
  }
  if (sandbox.disk_bytes !== null && sandbox.disk_bytes > maximums.diskMb * MIB) {
    issues.push({
      path: '/sandbox/disk',
      message: `sandbox.disk ${formatMemory(sandbox.disk_bytes)} is more than this server gives a sandbox (at most ${formatMemory(maximums.diskMb * MIB)}); lower it or ${ask} SVC_SANDBOX_MAX_DISK_MB`,
    });
  }
  return issues;
}
