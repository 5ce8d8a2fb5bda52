/** `svc serve` with a sandbox provider that cannot run here stops at once and says why, in one line, with the fix. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { repoRoot } from './support/runtime-fixture.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function serve(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-unavailable-'));
  dirs.push(dataDir);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'svc.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
      env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

it.concurrent('names the missing program and the package to install (bubblewrap)', async () => {
  const { code, stderr } = await serve({ SVC_SANDBOX_PROVIDER: 'bubblewrap', PATH: '/nonexistent' });
  expect(code).toBe(1);
  expect(stderr.trim().split('\n')).toEqual(['svc: SVC_SANDBOX_PROVIDER=bubblewrap needs bwrap, which is not installed: apt-get install bubblewrap (or choose SVC_SANDBOX_PROVIDER=docker or process).']);
});

it.concurrent('names the package of the sandboxes\' disks when mkfs.ext4 is missing (bubblewrap)', async () => {
  // A PATH with the other programs bubblewrap needs, and without e2fsprogs'.
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-unavailable-bin-'));
  dirs.push(bin);
  for (const program of ['bwrap', 'ip', 'iptables', 'losetup']) {
    const found = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].map((dir) => path.join(dir, program)).find((file) => fs.existsSync(file));
    if (found) fs.symlinkSync(found, path.join(bin, program));
  }
  const { code, stderr } = await serve({ SVC_SANDBOX_PROVIDER: 'bubblewrap', PATH: bin });
  expect(code).toBe(1);
  expect(stderr.trim().split('\n')).toEqual(['svc: SVC_SANDBOX_PROVIDER=bubblewrap needs mkfs.ext4, which is not installed: apt-get install e2fsprogs (or choose SVC_SANDBOX_PROVIDER=docker or process).']);
});

it.concurrent('names the engine it could not reach (docker)', async () => {
  const { code, stderr } = await serve({ SVC_SANDBOX_PROVIDER: 'docker', DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
  expect(code).toBe(1);
  expect(stderr.trim().split('\n')).toEqual(['svc: SVC_SANDBOX_PROVIDER=docker cannot reach a Docker engine at unix:///nonexistent/docker.sock: start it (dockerd, or systemctl start docker) or point DOCKER_HOST at one.']);
});

it.concurrent('names the image to build (docker)', async () => {
  const { code, stderr } = await serve({ SVC_SANDBOX_PROVIDER: 'docker', SVC_SANDBOX_IMAGE: 'svc-sandbox:not-built' });
  expect(code).toBe(1);
  expect(stderr.trim()).toMatch(/^svc: SVC_SANDBOX_PROVIDER=docker needs the sandbox image svc-sandbox:not-built, which the engine at \S+ does not have: run svc sandbox image build\.$/);
});
