/**
 * Issue 21's hostile agent that fills the disk, on the bubblewrap provider: each sandbox's workspace and
 * home are a filesystem of their own as large as its disk limit (64 MiB here), so writing until the disk is
 * full ends in ENOSPC at that limit, while svc keeps answering and writing and a neighbour keeps writing its
 * workspace. The full sandbox stops, resumes with its files, grows when its manifest asks for more, and
 * deleting it leaves no mount, loop device or image. A sandbox from before disk limits (plain folders)
 * moves onto a disk of its own at its next start.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, gitAsync, tempDir } from '../src/git/testing/fixtures.js';
import { bubblewrapTraces } from './support/bubblewrap-traces.js';
import { diskSuite, LIMIT_MB, MIB } from './support/disk-suite.js';
import type { DrivenSession } from './support/sandbox-driver.js';
import { testDialect } from './support/test-server.js';

const suite = diskSuite('bubblewrap');
const { running, sandboxDir, sessionRoute } = suite;

/** The project's manifest changed on main through a merged change request (so through the merge gate). */
async function mergeManifest(text: string): Promise<void> {
  const work = tempDir();
  const url = new URL(suite.project.clone_url);
  url.username = 'x';
  url.password = suite.svc.adminToken;
  await gitAsync(['clone', '-q', url.toString(), work]);
  fs.writeFileSync(path.join(work, 'svc.yaml'), text);
  git(['add', 'svc.yaml'], { cwd: work });
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'Sandbox disk'], { cwd: work });
  await gitAsync(['push', '-q', 'origin', 'HEAD:refs/heads/bigger-disk'], { cwd: work });
  const opened = await suite.svc.request('POST', `/v1/projects/${suite.project.id}/change-requests`, { body: { title: 'Bigger disk', head_ref: 'bigger-disk' } });
  expect(opened.status, opened.text).toBe(201);
  const merged = await suite.svc.request('POST', `/v1/projects/${suite.project.id}/change-requests/${opened.body.change_request.number}/merge`);
  expect(merged.status, merged.text).toBe(200);
}

async function stop(session: DrivenSession): Promise<void> {
  const stopped = await suite.svc.request('POST', `${sessionRoute(session.id)}/stop`);
  expect(stopped.status, stopped.text).toBe(200);
  expect(stopped.body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'stopped' } });
}

async function resume(session: DrivenSession): Promise<DrivenSession> {
  const resumed = await suite.svc.request('POST', `${sessionRoute(session.id)}/resume`);
  expect(resumed.status, resumed.text).toBe(200);
  return running(session);
}

/** Size of the filesystem at /workspace in a sandbox, in MiB, and what is free on it. */
async function disk(session: DrivenSession): Promise<{ sizeMb: number; freeMb: number }> {
  const [size, free] = (await suite.driver.run(session, 'df -k --output=size,avail /workspace | tail -1')).trim().split(/\s+/).map(Number);
  return { sizeMb: (size ?? 0) / 1024, freeMb: (free ?? 0) / 1024 };
}

/** Deleting leaves nothing on the host: no mount, loop device, image or folder. */
async function deleteWithoutTrace(session: DrivenSession): Promise<void> {
  expect((await suite.svc.request('DELETE', sessionRoute(session.id))).status).toBe(204);
  expect(bubblewrapTraces(session.id)).toEqual([]);
  expect(fs.existsSync(sandboxDir(session.id))).toBe(false);
}

describe(`a bubblewrap sandbox's disk (${testDialect})`, () => {
  it(`ends an agent that fills its disk at its ${LIMIT_MB} MiB with ENOSPC while svc and a neighbour write on; the full sandbox stops without a trace, resumes with its files, and is deleted with its disk`, { timeout: 240_000 }, async () => {
    let hostile = await running(await suite.driver.create());
    const before = await disk(hostile);
    expect(before.sizeMb).toBeLessThanOrEqual(LIMIT_MB);
    expect(before.sizeMb).toBeGreaterThan(LIMIT_MB * 0.75);

    const filled = await suite.driver.run(hostile, 'dd if=/dev/zero of=/workspace/fill bs=1M 2>&1 | grep -o "No space left on device" | head -1');
    expect(filled).toBe('No space left on device');
    const fill = path.join(sandboxDir(hostile.id), 'disk', 'workspace', 'fill');
    expect(fs.statSync(fill).size).toBeGreaterThan(LIMIT_MB * 0.6 * MIB);
    expect(fs.statSync(fill).size).toBeLessThanOrEqual(LIMIT_MB * MIB);
    // What the host gave the sandbox: its image, sparse, never more than the limit.
    const image = fs.statSync(path.join(sandboxDir(hostile.id), 'disk.img'));
    expect(image.size).toBe(LIMIT_MB * MIB);
    expect(image.blocks * 512).toBeLessThanOrEqual(LIMIT_MB * MIB);

    // svc answers and writes (a new session is rows and a sandbox), and that neighbour writes its own workspace.
    expect((await suite.svc.request('GET', `/v1/projects/${suite.project.id}`)).status).toBe(200);
    const neighbour = await running(await suite.driver.create());
    expect(await suite.driver.run(neighbour, 'head -c 10485760 /dev/zero > /workspace/ten && stat -c %s /workspace/ten')).toBe('10485760');

    // The neighbour, started after the full sandbox's disk was mounted, holds a copy of that mount in its namespaces.
    await stop(hostile);
    expect(bubblewrapTraces(hostile.id)).toEqual([]);
    expect(fs.existsSync(path.join(sandboxDir(hostile.id), 'disk.img'))).toBe(true);
    hostile = await resume(hostile);
    expect(Number(await suite.driver.run(hostile, 'stat -c %s /workspace/fill'))).toBeGreaterThan(LIMIT_MB * 0.6 * MIB);

    for (const session of [hostile, neighbour]) await deleteWithoutTrace(session);
  });

  it('grows the disk at the next resume when the manifest asks for more, keeping the files', { timeout: 180_000 }, async () => {
    let session = await running(await suite.driver.create());
    await suite.driver.run(session, 'head -c 1048576 /dev/zero > /workspace/kept');
    await mergeManifest('sandbox:\n  disk: 128m\n');
    await stop(session);
    session = await resume(session);
    const grown = await disk(session);
    expect(grown.sizeMb).toBeGreaterThan(LIMIT_MB * 1.5);
    expect(grown.sizeMb).toBeLessThanOrEqual(128);
    expect(await suite.driver.run(session, 'head -c 83886080 /dev/zero > /workspace/more && stat -c %s /workspace/kept /workspace/more')).toBe('1048576\n83886080');
    expect(fs.statSync(path.join(sandboxDir(session.id), 'disk.img')).size).toBe(128 * MIB);
    await deleteWithoutTrace(session);
  });

  it('moves a sandbox from before disk limits (plain folders) onto a disk of its own at its next start', { timeout: 180_000 }, async () => {
    let session = await running(await suite.driver.create());
    await suite.driver.run(session, 'head -c 1048576 /dev/zero > /workspace/kept && echo home > "$HOME/kept-home.txt"');
    await stop(session);
    // The layout of a sandbox made before disk limits: its workspace and home as folders beside sandbox.json.
    const dir = sandboxDir(session.id);
    const mountPoint = path.join(dir, 'old-layout');
    fs.mkdirSync(mountPoint);
    execFileSync('mount', ['-o', 'loop,ro', path.join(dir, 'disk.img'), mountPoint]);
    try {
      execFileSync('cp', ['-a', path.join(mountPoint, 'workspace'), path.join(mountPoint, 'home'), dir]);
    } finally {
      execFileSync('umount', [mountPoint]);
    }
    fs.rmSync(mountPoint, { recursive: true });
    fs.rmSync(path.join(dir, 'disk.img'));
    fs.rmSync(path.join(dir, 'disk'), { recursive: true, force: true });

    session = await resume(session);
    expect(await suite.driver.run(session, 'stat -c %s /workspace/kept; cat "$HOME/kept-home.txt"; git log -1 --format=%s')).toBe('1048576\nhome\nStart');
    const moved = await disk(session);
    expect(moved.sizeMb).toBeLessThanOrEqual(LIMIT_MB);
    expect(moved.sizeMb).toBeGreaterThan(LIMIT_MB * 0.75);
    expect(['workspace', 'home'].filter((folder) => fs.existsSync(path.join(dir, folder)))).toEqual([]);
    await deleteWithoutTrace(session);
  });
});
