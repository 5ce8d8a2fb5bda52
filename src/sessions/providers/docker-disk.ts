/**
 * Where a docker sandbox keeps its writable state (`/workspace` and `/opt/svc/home`) and how its disk is
 * limited; `prepare` picks one of three ways for the engine svc finds at start:
 *
 * - `volume-size`: two volumes of the local driver, created with its `size` option, which the engine
 *   applies as an XFS project quota (its data root on XFS mounted with `pquota`). Docker cannot change a
 *   volume's options, so a volume keeps the size it was made with.
 * - `own-disk`: elsewhere, when the engine runs on this machine and svc may mount (root, loop devices),
 *   the same disk as a bubblewrap sandbox's (sandbox-disk.ts): a sparse ext4 image under svc's data
 *   directory, loop-mounted by svc while the sandbox runs, its two folders bound into the container.
 *   Bind mounts and not a volume of the local driver with `device=/dev/loopN`: Docker 20.10 (API 1.41)
 *   cannot mount a sub-folder of a volume, and a device volume's number would have to be made again at
 *   every start. A bind mount only reaches the container when the engine sees svc's mounts (the same
 *   mount namespace; not so for svc in a systemd unit with PrivateTmp), which `prepare` checks once: a
 *   container created on a folder that exists only inside a tmpfs svc mounted.
 * - `unlimited`: an engine on another machine, or one svc cannot mount for: plain volumes, said in one line.
 *
 * A sandbox keeps the way it was made with: one with volumes (made before disk limits, or on an engine
 * with quota) keeps them, one with an image keeps its image (and fails to start, saying why, where svc
 * cannot mount it). Its image is mounted before the container is created, unmounted after it stopped and
 * removed with it; after a crash of svc, `prepare` unmounts the disks of sandboxes whose container no
 * longer runs and detaches their loop devices.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runProcess } from '../../shared/run-process.js';
import type { DockerEngine } from './docker-engine.js';
import { SandboxDisks } from './sandbox-disk.js';

export type DockerDiskKind = 'volume-size' | 'own-disk' | 'unlimited';

/** A mount of the Engine API's HostConfig.Mounts. */
export interface DockerMount {
  Type: 'volume' | 'bind';
  Source: string;
  Target: string;
}

const TARGETS = { workspace: '/workspace', home: '/opt/svc/home' } as const;
const PROBE = '.mount-probe';

export class DockerDisks {
  kind: DockerDiskKind = 'unlimited';
  /** Why sandboxes run without a disk limit on this engine; null when they have one. */
  withoutDiskLimit: string | null = null;
  /** Why svc cannot mount a sandbox's own disk here; null when it can. */
  private cannotMount: string | null = null;
  private readonly disks: SandboxDisks;

  constructor(private readonly engine: DockerEngine, private readonly options: { root: string; owner: string }) {
    this.disks = new SandboxDisks(options.root);
  }

  private directory(sessionId: string): string {
    return path.join(this.options.root, sessionId);
  }

  private volumes(sessionId: string): { workspace: string; home: string } {
    const name = `svc-${this.options.owner}-${sessionId}`;
    return { workspace: `${name}-workspace`, home: `${name}-home` };
  }

  /** Picks the way (see above), says in one line when there is no limit, and cleans what a crash left. */
  async prepare(image: string): Promise<void> {
    this.cannotMount = await this.mountUnsupported();
    // Disks of sandboxes whose container is gone or stopped, left mounted by a crash of svc.
    if (!this.cannotMount) await this.disks.removeLeftovers(await this.runningSessions());
    const noQuota = await this.volumeSizeUnsupported();
    if (!noQuota) {
      this.kind = 'volume-size';
      return;
    }
    const notSeen = this.cannotMount ?? (await this.bindUnseen(image));
    if (!notSeen) {
      this.kind = 'own-disk';
      return;
    }
    this.kind = 'unlimited';
    this.withoutDiskLimit = this.engine.local ? `${noQuota}, and svc cannot give each sandbox a disk of its own: ${notSeen}` : noQuota;
    process.stderr.write(`svc: SVC_SANDBOX_PROVIDER=docker runs sandboxes without disk limits: ${this.withoutDiskLimit}\n`);
  }

  /** Why svc cannot loop-mount an image for a container of this engine; null when it can. */
  private async mountUnsupported(): Promise<string | null> {
    if (!this.engine.local) return `the engine at ${this.engine.address} is on another machine`;
    if (typeof process.getuid === 'function' && process.getuid() !== 0) return `mounting a sandbox's disk needs root, and svc runs as uid ${process.getuid()} (run svc serve as root)`;
    const noLoop = SandboxDisks.unsupported();
    if (noLoop) return noLoop;
    const mkfs = await runProcess('mkfs.ext4', ['-V']).catch(() => null);
    if (!mkfs || mkfs.code !== 0) return 'mkfs.ext4 is not installed (apt-get install e2fsprogs)';
    return null;
  }

  /** This svc's sandboxes whose container runs. */
  private async runningSessions(): Promise<Set<string>> {
    const filter = encodeURIComponent(JSON.stringify({ label: [`svc.sandbox.owner=${this.options.owner}`], status: ['running'] }));
    const listed = await this.engine.expect([200], 'GET', `/containers/json?filters=${filter}`);
    return new Set((listed.body as Array<{ Labels?: Record<string, string> }>).map((container) => container.Labels?.['svc.session'] ?? '').filter(Boolean));
  }

  /** A small volume with a size asked for and removed again: the engine refuses it where it has no quota. */
  private async volumeSizeUnsupported(): Promise<string | null> {
    const probe = `svc-${this.options.owner}-disk-probe`;
    const created = await this.engine.request('POST', '/volumes/create', { Name: probe, DriverOpts: { size: '64M' }, Labels: { 'svc.sandbox.owner': this.options.owner } });
    await this.engine.request('DELETE', `/volumes/${probe}?force=1`);
    if (created.status === 201) return null;
    const message = (created.body as { message?: string } | null)?.message ?? created.text.slice(0, 300);
    return `the engine at ${this.engine.address} cannot limit a volume's size (${message}); it can where its data root is on XFS mounted with pquota`;
  }

  /**
   * Whether the engine sees what svc mounts: a container (created, never started) bound to a folder that
   * exists only on a tmpfs svc mounts for the probe. The engine refuses a bind source it cannot find.
   */
  private async bindUnseen(image: string): Promise<string | null> {
    const probe = path.join(this.options.root, PROBE);
    fs.mkdirSync(probe, { recursive: true, mode: 0o700 });
    await runProcess('umount', [probe]);
    const mounted = await runProcess('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'svc-mount-probe', probe]);
    if (mounted.code !== 0) return `mount refused a tmpfs at ${probe} (${mounted.stderr.trim()})`;
    try {
      fs.mkdirSync(path.join(probe, 'seen'));
      const created = await this.engine.request('POST', '/containers/create', {
        Image: image,
        Labels: { 'svc.sandbox.owner': this.options.owner },
        HostConfig: { Mounts: [{ Type: 'bind', Source: path.join(probe, 'seen'), Target: '/probe' }] },
      });
      if (created.status === 201) {
        await this.engine.request('DELETE', `/containers/${(created.body as { Id: string }).Id}?force=1`);
        return null;
      }
      const message = (created.body as { message?: string } | null)?.message ?? created.text.slice(0, 300);
      return `the engine does not see what svc mounts (${message}); run svc serve in the engine's mount namespace (in a systemd unit: no PrivateTmp, ProtectSystem or PrivateMounts)`;
    } finally {
      await runProcess('umount', [probe]);
      fs.rmSync(probe, { recursive: true, force: true });
    }
  }

  private async hasVolumes(sessionId: string): Promise<boolean> {
    return (await this.engine.request('GET', `/volumes/${this.volumes(sessionId).workspace}`)).status === 200;
  }

  /** The sandbox's state as the container's mounts: its disk mounted (made at first boot), or its volumes. */
  async open(sessionId: string, diskBytes: number): Promise<DockerMount[]> {
    const directory = this.directory(sessionId);
    if (this.disks.has(directory)) {
      if (this.cannotMount) throw new Error(`its files are on a disk of its own (${path.join(directory, 'disk.img')}), which svc cannot mount here: ${this.cannotMount}`);
      return this.bind(await this.disks.open(directory, diskBytes));
    }
    if (this.kind === 'own-disk' && !(await this.hasVolumes(sessionId))) return this.bind(await this.disks.open(directory, diskBytes));
    const volumes = this.volumes(sessionId);
    for (const volume of Object.values(volumes)) {
      if ((await this.engine.request('GET', `/volumes/${volume}`)).status === 200) continue;
      await this.engine.expect([201], 'POST', '/volumes/create', {
        Name: volume,
        DriverOpts: this.kind === 'volume-size' ? { size: String(diskBytes) } : {},
        Labels: { 'svc.sandbox.owner': this.options.owner, 'svc.session': sessionId },
      });
    }
    return [
      { Type: 'volume', Source: volumes.workspace, Target: TARGETS.workspace },
      { Type: 'volume', Source: volumes.home, Target: TARGETS.home },
    ];
  }

  private bind(state: { workspace: string; home: string }): DockerMount[] {
    return [
      { Type: 'bind', Source: state.workspace, Target: TARGETS.workspace },
      { Type: 'bind', Source: state.home, Target: TARGETS.home },
    ];
  }

  /** After the container stopped: its disk unmounted (files kept in the image). */
  async close(sessionId: string): Promise<void> {
    if (this.disks.has(this.directory(sessionId))) await this.disks.close(this.directory(sessionId));
  }

  /** After the container was removed: its volumes, or its disk and image, gone. */
  async remove(sessionId: string): Promise<void> {
    for (const volume of Object.values(this.volumes(sessionId))) await this.engine.expect([204, 404], 'DELETE', `/volumes/${volume}?force=1`);
    const directory = this.directory(sessionId);
    if (!fs.existsSync(directory)) return;
    await this.disks.close(directory);
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
