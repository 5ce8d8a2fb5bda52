import { describe, expect, test } from 'vitest';
import { parseManifest, sandboxLimitIssues, type ParsedManifest } from './index.js';

const yaml = (text: string) => parseManifest({ filename: 'svc.yaml', text });
const toml = (text: string) => parseManifest({ filename: 'svc.toml', text });
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

function issueAt(result: ParsedManifest, path: string): string {
  const found = result.issues.filter((issue) => issue.path === path);
  expect(found, `issues at ${path} in ${JSON.stringify(result.issues, null, 2)}`).toHaveLength(1);
  return found[0]?.message ?? '';
}

describe('the sandbox section', () => {
  test('memory, cpus, pids, disk and the Dockerfile normalize, in YAML and TOML alike', () => {
    const fromYaml = yaml('sandbox:\n  memory: 2g\n  cpus: 1.5\n  pids: 512\n  disk: 5g\n  image:\n    dockerfile: ./.svc/sandbox//Dockerfile\n');
    const fromToml = toml('[sandbox]\nmemory = "2g"\ncpus = 1.5\npids = 512\ndisk = "5g"\n[sandbox.image]\ndockerfile = ".svc/sandbox/Dockerfile"\n');
    expect(fromYaml.issues).toEqual([]);
    expect(fromToml.issues).toEqual([]);
    expect(fromYaml.manifest.sandbox).toEqual({ memory_bytes: 2 * GIB, cpus: 1.5, pids: 512, disk_bytes: 5 * GIB, dockerfile: '.svc/sandbox/Dockerfile' });
    expect(fromToml.manifest.sandbox).toEqual(fromYaml.manifest.sandbox);
  });

  test.each([
    ['512m', 512 * MIB],
    ['512M', 512 * MIB],
    ['1.5g', 1.5 * GIB],
    ['2GiB', 2 * GIB],
    ['2GB', 2 * GIB],
    ['65536k', 64 * MIB],
    ['1t', 1024 * GIB],
  ])('memory %s is %d bytes', (written, bytes) => {
    const result = yaml(`sandbox:\n  memory: "${written}"\n`);
    expect(result.issues).toEqual([]);
    expect(result.manifest.sandbox.memory_bytes).toBe(bytes);
  });

  test('no section, or an empty one, leaves every setting to the server', () => {
    expect(yaml('').manifest.sandbox).toEqual({ memory_bytes: null, cpus: null, pids: null, disk_bytes: null, dockerfile: null });
    expect(yaml('sandbox:\n').manifest.sandbox).toEqual({ memory_bytes: null, cpus: null, pids: null, disk_bytes: null, dockerfile: null });
  });

  test('each bad setting is its own issue, and the good ones are kept', () => {
    const result = yaml('sandbox:\n  memory: 2048\n  cpus: "1.5"\n  pids: 10\n  memroy: 1g\n  image:\n    dockerfile: ../Dockerfile\n');
    expect(issueAt(result, '/sandbox/memory')).toBe('sandbox.memory must be a size with its unit, e.g. "2g" or "512m"; got the number 2048, which could be bytes or megabytes');
    expect(issueAt(result, '/sandbox/cpus')).toBe('sandbox.cpus must be a number of CPUs such as 1.5, got the text "1.5" (remove the quotes: cpus: 1.5)');
    expect(issueAt(result, '/sandbox/pids')).toBe("sandbox.pids 10 is less than 64, too few for the sandbox's daemon, agent runtime, shell and git");
    expect(issueAt(result, '/sandbox/memroy')).toBe('"memroy" is not a sandbox setting (known: memory, cpus, pids, disk, image) (did you mean memory?)');
    expect(issueAt(result, '/sandbox/image/dockerfile')).toBe(
      'sandbox.image.dockerfile "../Dockerfile" leaves the repository through ".."; write a path relative to the repository root such as ".svc/sandbox/Dockerfile"',
    );
    expect(result.manifest.sandbox).toEqual({ memory_bytes: null, cpus: null, pids: null, disk_bytes: null, dockerfile: null });
    expect(yaml('sandbox:\n  memory: 1g\n  cpus: lots\n').manifest.sandbox).toMatchObject({ memory_bytes: GIB, cpus: null });
  });

  test.each([
    ['memory: "2 gigs"', '/sandbox/memory', 'sandbox.memory "2 gigs" is not a size; write a number and a unit k, m, g or t, e.g. "2g" or "512m"'],
    ['memory: 32m', '/sandbox/memory', "sandbox.memory \"32m\" is less than 64m, too little for the sandbox's daemon and agent runtime"],
    ['memory: 99999999999t', '/sandbox/memory', 'sandbox.memory "99999999999t" is more memory than any machine has'],
    ['disk: 5', '/sandbox/disk', 'sandbox.disk must be a size with its unit, e.g. "5g" or "20g"; got the number 5, which could be bytes or megabytes'],
    ['disk: lots', '/sandbox/disk', 'sandbox.disk "lots" is not a size; write a number and a unit k, m, g or t, e.g. "5g" or "20g"'],
    ['disk: 10m', '/sandbox/disk', 'sandbox.disk "10m" is less than 64m, too little for a filesystem holding a workspace and a home'],
    ['cpus: 0', '/sandbox/cpus', 'sandbox.cpus 0 is less than 0.1; a sandbox needs at least a tenth of a CPU'],
    ['cpus: .inf', '/sandbox/cpus', 'sandbox.cpus must be a number of CPUs such as 1.5, got the number Infinity'],
    ['pids: 100.5', '/sandbox/pids', 'sandbox.pids must be a whole number of processes such as 512, got the number 100.5'],
    ['image: .svc/Dockerfile', '/sandbox/image', 'sandbox.image must be a mapping, e.g. image: { dockerfile: .svc/sandbox/Dockerfile }; got the text ".svc/Dockerfile" (for a Dockerfile write image: { dockerfile: ".svc/Dockerfile" })'],
    ['image: {}', '/sandbox/image/dockerfile', 'sandbox.image needs dockerfile, the path of the image\'s Dockerfile, e.g. .svc/sandbox/Dockerfile'],
    ['image: { dockerfile: /etc/Dockerfile }', '/sandbox/image/dockerfile', 'sandbox.image.dockerfile "/etc/Dockerfile" is absolute; write a path relative to the repository root such as ".svc/sandbox/Dockerfile"'],
    ['image: { dockerfile: .svc/ }', '/sandbox/image/dockerfile', 'sandbox.image.dockerfile ".svc/" names a folder; name the Dockerfile itself, e.g. .svc/sandbox/Dockerfile'],
    ['image: { dockerfile: Dockerfile, context: . }', '/sandbox/image/context', '"context" is not a sandbox.image setting (known: dockerfile)'],
  ])('%s is refused', (line, path, message) => {
    expect(issueAt(yaml(`sandbox:\n  ${line}\n`), path)).toBe(message);
  });

  test('a sandbox that is not a mapping is one issue, worded for its format', () => {
    expect(issueAt(yaml('sandbox: 2g\n'), '/sandbox')).toBe('sandbox must be a mapping of settings, e.g. sandbox: { memory: 2g, cpus: 1.5 }; got the text "2g"');
    expect(issueAt(toml('sandbox = "2g"\n'), '/sandbox')).toBe('sandbox must be a mapping of settings, e.g. [sandbox] with memory = "2g" and cpus = 1.5; got the text "2g"');
  });
});

describe("the server's maximums", () => {
  const maximums = { memoryMb: 8192, cpus: 4, pids: 4096, diskMb: 10_240 };

  test('settings within them pass, each one over them is an issue that names the setting and the maximum', () => {
    expect(sandboxLimitIssues(yaml('sandbox: { memory: 8g, cpus: 4, pids: 4096, disk: 10g }').manifest.sandbox, maximums)).toEqual([]);
    expect(sandboxLimitIssues(yaml('sandbox: { memory: 16g, cpus: 6.5, pids: 5000, disk: 20g }').manifest.sandbox, maximums)).toEqual([
      { path: '/sandbox/memory', message: 'sandbox.memory 16g is more than this server gives a sandbox (at most 8g); lower it or ask its operator to raise SVC_SANDBOX_MAX_MEMORY_MB' },
      { path: '/sandbox/cpus', message: 'sandbox.cpus 6.5 is more than this server gives a sandbox (at most 4); lower it or ask its operator to raise SVC_SANDBOX_MAX_CPUS' },
      { path: '/sandbox/pids', message: 'sandbox.pids 5000 is more than this server gives a sandbox (at most 4096); lower it or ask its operator to raise SVC_SANDBOX_MAX_PIDS' },
      { path: '/sandbox/disk', message: 'sandbox.disk 20g is more than this server gives a sandbox (at most 10g); lower it or ask its operator to raise SVC_SANDBOX_MAX_DISK_MB' },
    ]);
    expect(sandboxLimitIssues(yaml('sandbox: { memory: 8193m }').manifest.sandbox, maximums)[0]?.message).toMatch(/^sandbox\.memory 8193m is more than/);
  });
});
