/**
 * The disk limit of a bubblewrap sandbox, and of a docker one on an engine without volume quotas
 * (docker-disk.ts): its writable state (workspace and runtime home) lives on a filesystem of its own, an
 * ext4 image `<dir>/disk.img` loop-mounted at `<dir>/disk` while the sandbox runs. The image is sparse,
 * so a 10 GiB limit costs the host what the sandbox writes, not 10 GiB; a sandbox that writes until the
 * disk is full gets ENOSPC at its limit and the host's disk, svc's data and other sandboxes keep their space.
 *
 * The image is made at first start (mkfs.ext4, e2fsprogs) and kept across stop and resume; stop unmounts
 * it, delete removes it with the sandbox's directory. A larger limit at a later start (the manifest's
 * `sandbox.disk` raised) grows the image and its filesystem before mounting it (e2fsck and resize2fs, a
 * moment); a smaller one is not applied to an existing image: shrinking needs the filesystem checked and
 * its blocks moved, and the files may not fit, so the sandbox keeps the size it has.
 *
 * Sandboxes made before disk limits kept their workspace and home as plain directories in `<dir>`: their
 * next start moves the files into a new image (made as `disk.img.part` and renamed only once the files are
 * in, so a crash in between starts over). Files that do not fit the limit fail the start, saying so,
 * instead of running that sandbox unlimited.
 *
 * Mounts and loop devices are the host's: after a crash of svc, `removeLeftovers` unmounts the disks of
 * sandboxes that are no longer running and detaches loop devices whose image is under svc's sandboxes
 * folder (this svc's own: the folder is its data directory's) and that nothing mounts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runChecked, runProcess } from '../../shared/run-process.js';

const IMAGE = 'disk.img';
const PARTIAL = 'disk.img.part';
const MOUNT_POINT = 'disk';
/** Where a new image is mounted while the files of a sandbox from before disk limits move onto it. */
const STAGING = 'disk.part';
const STATE_FOLDERS = ['workspace', 'home'] as const;
const MIB = 1024 * 1024;
const RELEASE_WAIT_MS = 5_000;

/** The sandbox's writable folders on the host, to be bound at /workspace and /opt/svc/home. */
export interface SandboxState {
  workspace: string;
  home: string;
}

interface Mount {
  mountPoint: string;
  source: string;
}

/** `\040` and the like in /proc/self/mountinfo stand for a space and other separators. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function mounts(): Mount[] {
  return fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const fields = line.split(' ');
      const separator = fields.indexOf('-');
      return { mountPoint: unescapeMountField(fields[4] ?? ''), source: unescapeMountField(fields[separator + 2] ?? '') };
    });
}

/**
 * Loop devices and the files behind them, as the kernel shows them in sysfs (read, not a `losetup` run:
 * no process per look). A removed image still holds its device; its `(deleted)` is dropped.
 */
function loopDevices(): Array<{ device: string; file: string }> {
  const devices: Array<{ device: string; file: string }> = [];
  for (const name of fs.readdirSync('/sys/block')) {
    if (!/^loop\d+$/.test(name)) continue;
    try {
      const file = fs.readFileSync(`/sys/block/${name}/loop/backing_file`, 'utf8').replace(/\n$/, '');
      devices.push({ device: `/dev/${name}`, file: file.replace(/ \(deleted\)$/, '') });
    } catch {
      // Not attached: the kernel has no loop/ folder for a free device.
    }
  }
  return devices;
}

export function formatMib(bytes: number): string {
  return bytes % (1024 * MIB) === 0 ? `${bytes / (1024 * MIB)} GiB` : `${Math.round(bytes / MIB)} MiB`;
}

export class SandboxDisks {
  /** `root` is the folder of this svc's sandbox directories; nothing outside it is touched. */
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Why disks cannot be limited on this machine, or null when they can. */
  static unsupported(): string | null {
    if (!fs.existsSync('/dev/loop-control')) return 'this machine has no loop devices (/dev/loop-control is missing; in a container, give it the host\'s loop devices)';
    return null;
  }

  /** Whether the sandbox has its own disk already (made where loop devices were there). */
  has(directory: string): boolean {
    return fs.existsSync(path.join(directory, IMAGE));
  }

  private mountPoint(directory: string): string {
    return path.join(directory, MOUNT_POINT);
  }

  private mountOf(directory: string): Mount | undefined {
    const mountPoint = this.mountPoint(directory);
    return mounts().find((mount) => mount.mountPoint === mountPoint);
  }

  /**
   * Makes (or migrates into) the sandbox's image, mounts it and grows it to `bytes` when it is smaller;
   * returns where the workspace and home are.
   */
  async open(directory: string, bytes: number): Promise<SandboxState> {
    const image = path.join(directory, IMAGE);
    const mountPoint = this.mountPoint(directory);
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    // A crash while an image was being made or filled: it starts over from the plain folders.
    fs.rmSync(path.join(directory, PARTIAL), { force: true });
    if (!fs.existsSync(image)) await this.create(directory, bytes);
    // A crash after the image took the files, before the plain folders were removed.
    for (const folder of STATE_FOLDERS) fs.rmSync(path.join(directory, folder), { recursive: true, force: true });
    if (!this.mountOf(directory)) {
      if (fs.statSync(image).size < bytes) await this.grow(image, bytes);
      await this.mount(image, mountPoint);
    }
    const state = { workspace: path.join(mountPoint, 'workspace'), home: path.join(mountPoint, 'home') };
    for (const folder of Object.values(state)) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    return state;
  }

  /** A new image of `bytes`, holding the files of a sandbox from before disk limits when there are any. */
  private async create(directory: string, bytes: number): Promise<void> {
    const partial = path.join(directory, PARTIAL);
    fs.closeSync(fs.openSync(partial, 'w', 0o600));
    fs.truncateSync(partial, bytes);
    // Lazy initialisation: the journal and inode tables of a sparse file read as zeros already, so writing
    // them would only cost the host disk space the sandbox never used.
    await runChecked('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', 'lazy_itable_init=1,lazy_journal_init=1,root_owner=0:0', partial], { timeoutMs: 120_000 });
    const legacy = STATE_FOLDERS.filter((folder) => fs.existsSync(path.join(directory, folder)));
    if (legacy.length > 0) {
      const staging = path.join(directory, STAGING);
      fs.mkdirSync(staging, { recursive: true, mode: 0o700 });
      await this.mount(partial, staging);
      try {
        for (const folder of legacy) {
          const copied = await runProcess('cp', ['-a', `${path.join(directory, folder)}/.`, path.join(staging, folder)]);
          if (copied.code !== 0) {
            const used = await runProcess('du', ['-s', '-B1', ...legacy.map((name) => path.join(directory, name))]);
            const total = used.stdout.split('\n').reduce((sum, line) => sum + (Number(line.split('\t')[0]) || 0), 0);
            throw new Error(
              /No space left/.test(copied.stderr)
                ? `its files from before disk limits (${formatMib(total)} in workspace and home) do not fit its disk limit of ${formatMib(bytes)}; raise sandbox.disk in the project's manifest (or SVC_SANDBOX_DISK_MB) and resume the session`
                : `its files from before disk limits could not be moved onto its own disk: ${copied.stderr.trim().slice(-500)}`,
            );
          }
        }
      } finally {
        await this.unmount(staging);
        fs.rmSync(staging, { recursive: true, force: true });
      }
    }
    fs.renameSync(partial, path.join(directory, IMAGE));
  }

  private async mount(image: string, mountPoint: string): Promise<void> {
    fs.mkdirSync(mountPoint, { recursive: true, mode: 0o700 });
    // util-linux reuses the loop device of an image still attached (a sandbox ending as the next starts), so
    // one filesystem is never mounted twice through two devices.
    await runChecked('mount', ['-t', 'ext4', '-o', 'loop,nodev,nosuid,noinit_itable', image, mountPoint], { timeoutMs: 60_000 });
  }

  /**
   * Growth while unmounted: the file, a check (resize2fs insists), then the filesystem; a fraction of a
   * second for a mostly empty disk. (Online growth is refused on some kernels, so it is not relied on.) A
   * loop device still attached to the image (the previous sandbox's last process not yet reaped) defers
   * it to the next start: its filesystem must not change under a mounted one.
   */
  private async grow(image: string, bytes: number): Promise<void> {
    if (loopDevices().some((loop) => loop.file === image)) return;
    const checked = await runProcess('e2fsck', ['-f', '-p', image], { timeoutMs: 600_000 });
    // 1 and 2: problems found and fixed; anything above is a filesystem e2fsck could not repair.
    if (checked.code > 2) throw new Error(`the sandbox's disk ${image} has errors e2fsck could not repair: ${checked.stdout.trim().slice(-500)}`);
    const size = fs.statSync(image).size;
    fs.truncateSync(image, bytes);
    const resized = await runProcess('resize2fs', [image], { timeoutMs: 600_000 });
    // The file back to its filesystem's size, so that the next start tries again.
    if (resized.code !== 0) fs.truncateSync(image, size);
  }

  /**
   * Unmounts the sandbox's disk and waits for its loop device to go; nothing mounted is not an error.
   *
   * Every mount namespace made while the disk was mounted (`ip netns exec` for each sandbox started since)
   * holds a copy of the mount, and with the host's mounts private an unmount does not reach those copies.
   * Removing the mount point does (the kernel detaches mounts in other namespaces on a removed directory),
   * so the disk's filesystem and loop device are released once the sandbox's own processes are gone.
   */
  async close(directory: string): Promise<void> {
    const mountPoint = this.mountPoint(directory);
    await this.unmount(mountPoint);
    try {
      fs.rmdirSync(mountPoint);
    } catch {
      // Gone already, or still mounted here (the lazy unmount's fallback leaves it detached anyway).
    }
    const image = path.join(directory, IMAGE);
    // The kernel frees the device as the last mount of its filesystem goes, so it is usually gone by now;
    // only a copy of the mount still held (a process of the sandbox not yet reaped) makes it wait, and then
    // each look is a read of sysfs, at growing intervals.
    let attached = loopDevices().filter((loop) => loop.file === image);
    for (let waitMs = 5, deadline = Date.now() + RELEASE_WAIT_MS; attached.length > 0 && Date.now() < deadline; waitMs = Math.min(waitMs * 2, 200)) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      attached = loopDevices().filter((loop) => loop.file === image);
    }
    // Still held: detached as soon as its last user lets go (autoclear), and found at the next start.
    for (const loop of attached) await runProcess('losetup', ['--detach', loop.device]);
  }

  private async unmount(mountPoint: string): Promise<void> {
    for (let round = 0; round < 20 && mounts().some((mount) => mount.mountPoint === mountPoint); round += 1) {
      const done = await runProcess('umount', [mountPoint]);
      // Still busy (a process being reaped): detached from the tree now, released when the last user goes.
      if (done.code !== 0) await runProcess('umount', ['--lazy', mountPoint]);
    }
  }

  /** After a crash: the disks of sandboxes not in `running` unmounted, and loop devices of this svc's images that nothing mounts detached. */
  async removeLeftovers(running: ReadonlySet<string>): Promise<void> {
    const prefix = this.root + path.sep;
    for (const mount of mounts()) {
      if (!mount.mountPoint.startsWith(prefix)) continue;
      const [sessionId, folder] = mount.mountPoint.slice(prefix.length).split(path.sep);
      if (!sessionId || running.has(sessionId)) continue;
      if (folder === MOUNT_POINT) await this.close(path.join(this.root, sessionId));
      if (folder === STAGING) {
        await this.unmount(mount.mountPoint);
        fs.rmSync(mount.mountPoint, { recursive: true, force: true });
      }
    }
    const mounted = new Set(mounts().map((mount) => mount.source));
    for (const loop of loopDevices()) {
      if (!loop.file.startsWith(prefix) || mounted.has(loop.device)) continue;
      const sessionId = loop.file.slice(prefix.length).split(path.sep)[0] ?? '';
      if (!running.has(sessionId)) await runProcess('losetup', ['--detach', loop.device]);
    }
  }
}
