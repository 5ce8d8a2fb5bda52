/**
 * Issue 21's hostile agent that fills the disk, on the docker provider with an engine on this machine that
 * cannot limit a volume's size (overlay2 on ext4, no XFS quota): each sandbox's workspace and home are a
 * filesystem of its own as large as its disk limit (64 MiB here), a sparse ext4 image svc loop-mounts and
 * binds into the container (docker-disk.ts). An agent writing 100 MiB gets ENOSPC at the limit, in its
 * workspace and its home alike, while svc keeps answering and a neighbour keeps writing. The full sandbox
 * stops without a mount or loop device, resumes with its files, and deleting it leaves nothing. A disk that a
 * crash of svc left mounted is unmounted at the next start once its container no longer runs. A sandbox
 * made with volumes before disk limits keeps them and its files; an engine on another machine gets no disk
 * of svc's and a one-line warning.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import { DockerProvider } from '../src/sessions/providers/docker-provider.js';
import { SandboxDisks } from '../src/sessions/providers/sandbox-disk.js';
import { diskSuite, LIMIT_MB, MIB } from './support/disk-suite.js';
import { diskTraces } from './support/disk-traces.js';
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { poll } from './support/poll.js';
import type { DrivenSession } from './support/sandbox-driver.js';
import { testDialect } from './support/test-server.js';

const suite = diskSuite('docker', () => buildSandboxImageOnce());
const { running, sandboxDir, sessionRoute } = suite;
const provider = () => suite.svc.server.services.sessions.supervisor.provider as DockerProvider;
const liveTraces = async (sessionId: string) => (await dockerTraces(sessionId)).filter((trace) => !trace.startsWith('files:'));

/** Size of the filesystem at /workspace in a sandbox, in MiB. */
async function diskSizeMb(session: DrivenSession): Promise<number> {
  return Number(await suite.driver.run(session, 'df -k --output=size /workspace | tail -1')) / 1024;
}

describe(`a docker sandbox's disk on an engine without volume quotas (${testDialect})`, () => {
  it(`ends an agent writing past its ${LIMIT_MB} MiB with ENOSPC while svc and a neighbour write on; the full sandbox stops without a mount, resumes with its files, and is deleted without a trace`, { timeout: 300_000 }, async () => {
    expect(provider().disks.kind, `this engine has volume quotas or svc cannot mount for it: ${provider().disks.withoutDiskLimit}`).toBe('own-disk');
    let hostile = await running(await suite.driver.create());
    const sizeMb = await diskSizeMb(hostile);
    expect(sizeMb).toBeLessThanOrEqual(LIMIT_MB);
    expect(sizeMb).toBeGreaterThan(LIMIT_MB * 0.75);

    // 100 MiB, bounded: on an engine that limited nothing this would fill the host's disk by as much, no more.
    // The home shares the workspace's disk and its limit. In the background, after the runtime recorded the
    // command, and freeing 1 MiB at the end: the runtime keeps its own records in the home, so while the disk
    // is full it fails its requests (the sandbox suffers, as it should); then it can record again.
    await suite.driver.run(
      hostile,
      "setsid sh -c 'sleep 1; head -c 104857600 /dev/zero > /workspace/fill 2> /tmp/fill.err && echo written > /tmp/fill.out || echo failed > /tmp/fill.out; stat -c %s /workspace/fill >> /tmp/fill.out; " +
        "head -c 1048576 /dev/zero > \"$HOME/more\" 2>> /tmp/fill.err && echo written >> /tmp/fill.out || echo failed >> /tmp/fill.out; rm -f \"$HOME/more\"; truncate -s -1M /workspace/fill; touch /workspace/fill.done' > /dev/null 2>&1 < /dev/null &",
    );
    await poll('the agent filled its disk', () => fs.existsSync(path.join(sandboxDir(hostile.id), 'disk', 'workspace', 'fill.done')), Boolean, { withinMs: 60_000 });
    const filled = await suite.driver.run(hostile, 'cat /tmp/fill.out /tmp/fill.err');
    const [workspaceStatus, written, homeStatus, ...errors] = filled.split('\n');
    expect([workspaceStatus, homeStatus]).toEqual(['failed', 'failed']);
    expect(errors).toEqual(["head: error writing 'standard output': No space left on device", "head: error writing 'standard output': No space left on device"]);
    expect(Number(written)).toBeGreaterThan(LIMIT_MB * 0.6 * MIB);
    expect(Number(written)).toBeLessThanOrEqual(LIMIT_MB * MIB);
    const kept = Number(written) - MIB;
    // What the host gave the sandbox: its image, sparse, never more than the limit, and the file on it.
    const image = fs.statSync(path.join(sandboxDir(hostile.id), 'disk.img'));
    expect(image.size).toBe(LIMIT_MB * MIB);
    expect(image.blocks * 512).toBeLessThanOrEqual(LIMIT_MB * MIB);
    expect(fs.statSync(path.join(sandboxDir(hostile.id), 'disk', 'workspace', 'fill')).size).toBe(kept);

    // svc answers and writes (a new session is rows and a sandbox), and that neighbour writes its own workspace.
    expect((await suite.svc.request('GET', `/v1/projects/${suite.project.id}`)).status).toBe(200);
    const neighbour = await running(await suite.driver.create());
    expect(await suite.driver.run(neighbour, 'head -c 10485760 /dev/zero > /workspace/ten && stat -c %s /workspace/ten')).toBe('10485760');

    await suite.driver.run(hostile, 'echo kept > "$HOME/kept.txt"');
    const stopped = await suite.svc.request('POST', `${sessionRoute(hostile.id)}/stop`);
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'stopped' } });
    // No running container, no mount, no loop device: only the image (and the stopped container) stay.
    expect(await liveTraces(hostile.id)).toEqual([]);
    expect(fs.existsSync(path.join(sandboxDir(hostile.id), 'disk.img'))).toBe(true);

    expect((await suite.svc.request('POST', `${sessionRoute(hostile.id)}/resume`)).status).toBe(200);
    hostile = await running(hostile);
    expect(await suite.driver.run(hostile, 'stat -c %s /workspace/fill; cat "$HOME/kept.txt"; git log -1 --format=%s')).toBe(`${kept}\nkept\nStart`);
    // Freed space is the sandbox's again.
    expect(await suite.driver.run(hostile, 'rm /workspace/fill && head -c 10485760 /dev/zero > /workspace/ten && stat -c %s /workspace/ten')).toBe('10485760');

    for (const session of [hostile, neighbour]) {
      expect((await suite.svc.request('DELETE', sessionRoute(session.id))).status).toBe(204);
      expect(await dockerTraces(session.id)).toEqual([]);
      expect(fs.existsSync(sandboxDir(session.id))).toBe(false);
    }
  });

  it("unmounts at start-up the disk a crash of svc left of a sandbox whose container no longer runs, keeping its files, and leaves a running sandbox's disk alone", { timeout: 180_000 }, async () => {
    const live = await running(await suite.driver.create());
    // What a crash leaves: the disk of a sandbox whose container is gone still mounted, its loop device attached.
    const crashed = `crashed-${Date.now()}`;
    const root = path.join(suite.svc.dataDir, 'sandboxes');
    const options = { root, image: undefined, memoryMb: 512, cpus: 1, pids: 100, diskMb: LIMIT_MB };
    try {
      await new SandboxDisks(root).open(sandboxDir(crashed), LIMIT_MB * MIB);
      fs.writeFileSync(path.join(sandboxDir(crashed), 'disk', 'workspace', 'kept.txt'), 'kept\n');
      expect(diskTraces(crashed).map((trace) => trace.split(':')[0])).toEqual(['mount', 'loop']);

      // The next start of svc: its provider prepares on the same data directory and engine.
      await new DockerProvider(options).prepare();
      expect(diskTraces(crashed)).toEqual([]);
      expect(fs.existsSync(path.join(sandboxDir(crashed), 'disk.img'))).toBe(true);
      expect(diskTraces(live.id).map((trace) => trace.split(':')[0])).toEqual(['mount', 'loop']);
      expect(await suite.driver.run(live, 'echo alive > /workspace/alive.txt && cat /workspace/alive.txt')).toBe('alive');
    } finally {
      await new DockerProvider(options).remove(crashed);
    }
    expect(fs.existsSync(sandboxDir(crashed))).toBe(false);
    expect((await suite.svc.request('DELETE', sessionRoute(live.id))).status).toBe(204);
    expect(await dockerTraces(live.id)).toEqual([]);
  });

  it('keeps a sandbox made with volumes (before disk limits) on its volumes, with its files', { timeout: 180_000 }, async () => {
    let session = await running(await suite.driver.create());
    const stopped = await suite.svc.request('POST', `${sessionRoute(session.id)}/stop`);
    expect(stopped.status, stopped.text).toBe(200);
    // The layout of a sandbox made before disk limits: its workspace and home in two volumes, no disk of its own.
    const engine = new DockerEngine();
    const filter = encodeURIComponent(JSON.stringify({ label: [`svc.session=${session.id}`] }));
    const [listed] = (await engine.expect([200], 'GET', `/containers/json?all=1&filters=${filter}`)).body as Array<{ Names: string[] }>;
    const container = (listed?.Names[0] ?? '').replace(/^\//, '');
    await engine.expect([204], 'DELETE', `/containers/${container}?force=1`);
    fs.rmSync(sandboxDir(session.id), { recursive: true });
    for (const [volume, content] of [['workspace', 'old workspace'], ['home', 'old home']]) {
      const name = `${container}-${volume}`;
      await engine.expect([201], 'POST', '/volumes/create', { Name: name, Labels: { 'svc.session': session.id } });
      const mountpoint = ((await engine.expect([200], 'GET', `/volumes/${name}`)).body as { Mountpoint: string }).Mountpoint;
      fs.writeFileSync(path.join(mountpoint, 'old.txt'), `${content}\n`);
    }

    expect((await suite.svc.request('POST', `${sessionRoute(session.id)}/resume`)).status).toBe(200);
    session = await running(session);
    expect(await suite.driver.run(session, 'cat /workspace/old.txt "$HOME/old.txt"')).toBe('old workspace\nold home');
    expect(fs.existsSync(path.join(sandboxDir(session.id), 'disk.img'))).toBe(false);
    expect(diskTraces(session.id)).toEqual([]);
    expect((await suite.svc.request('DELETE', sessionRoute(session.id))).status).toBe(204);
    expect(await dockerTraces(session.id)).toEqual([]);
  });

  it('keeps the one-line warning for an engine on another machine, which cannot limit a volume: svc mounts nothing for it', { timeout: 60_000 }, async () => {
    // An engine svc takes for another machine's: DOCKER_HOST=tcp:// on an address other than 127.0.0.1 or
    // localhost (here 127.0.0.2, still this machine's loopback, so the engine is not exposed), passed on to
    // the real engine's socket.
    const proxy = net.createServer((client) => {
      const engine = net.connect('/var/run/docker.sock');
      for (const socket of [client, engine]) socket.on('error', () => undefined);
      client.pipe(engine).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.2', resolve));
    const previous = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `tcp://127.0.0.2:${(proxy.address() as net.AddressInfo).port}`;
    try {
      const remote = new DockerProvider({ root: path.join(suite.svc.dataDir, 'sandboxes'), image: undefined, memoryMb: 512, cpus: 1, pids: 100, diskMb: LIMIT_MB });
      await remote.prepare();
      expect(remote.disks.kind).toBe('unlimited');
      expect(remote.disks.withoutDiskLimit).toMatch(/^the engine at tcp:\/\/127\.0\.0\.2:\d+ cannot limit a volume's size \(.+\); it can where its data root is on XFS mounted with pquota$/);
    } finally {
      if (previous === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = previous;
      proxy.close();
    }
  });
});
