/**
 * The `docker` provider (contract §6): each sandbox is a container of the image `svc sandbox image build`
 * made, created through the Docker Engine API (DOCKER_HOST honoured). Its root filesystem is read-only;
 * `/workspace` and `/opt/svc/home` are its own (volumes, or a disk svc mounts), so stop keeps them and
 * delete removes them.
 * Containers get memory, CPU and process limits, no capabilities and no new privileges, and share one
 * network of svc's on which they cannot reach each other. On an engine on this machine, svc adds rules
 * so that the network reaches svc's port on the host and nothing else of it, nor link-local addresses.
 *
 * Disk: the root filesystem is read-only, so the container's own layer takes nothing and a size limit on it
 * (`HostConfig.StorageOpt.size`) would limit nothing; what a sandbox writes goes to `/workspace` and
 * `/opt/svc/home` (and /tmp, a tmpfs of 512 MiB). Those are two volumes with a size where the engine has
 * volume quotas, else a disk of the sandbox's own that svc mounts on this machine, else (an engine
 * elsewhere) two volumes without a limit, said in one line at start (docker-disk.ts).
 *
 * A project's manifest may set the limits (`sandbox:`) and name a Dockerfile built on top of the image
 * (project-image.ts); both are read again at every boot.
 *
 * Resume creates the container again on its kept volumes: the environment of a boot (secrets, whether the
 * first prompt was sent) is the one svc computes now, not the one of the first boot.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { DAEMON_PORT } from '../environment.js';
import { DockerDisks, type DockerMount } from './docker-disk.js';
import { DockerEngine, EngineError, EngineUnreachableError } from './docker-engine.js';
import type { SandboxProvider, SandboxStart, StartedSandbox } from './provider.js';
import { ensureProjectImage } from './project-image.js';
import { imageExists, sandboxImageTag } from './sandbox-image.js';
import { allowHostPort, DOCKER_SANDBOX_RANGE, isLoopback } from './sandbox-network.js';
import { SandboxUnavailableError } from './unavailable.js';

const NETWORK = 'svc-sandboxes';
const GATEWAY = '10.214.0.1';
const STOP_GRACE_S = 5;
/** Tries at asking the engine whether a container runs when it does not answer (see isAlive). */
const ALIVE_ATTEMPTS = 3;
/** Tries at removing a container the engine refuses for a moment (see remove). */
const REMOVE_ATTEMPTS = 4;
const NETWORK_RACE_MS = 5_000;

export interface DockerProviderOptions {
  root: string;
  image: string | undefined;
  memoryMb: number;
  cpus: number;
  /** Processes and threads one container may hold. */
  pids: number;
  /** A sandbox's workspace and home at most (each of its two volumes, where the engine limits volumes). */
  diskMb: number;
}

export class DockerProvider implements SandboxProvider {
  readonly name = 'docker' as const;
  readonly isolates = true;
  private readonly engine = new DockerEngine();
  private readonly owner: string;
  private image = '';
  readonly disks: DockerDisks;

  constructor(private readonly options: DockerProviderOptions) {
    this.owner = createHash('sha256').update(path.resolve(options.root)).digest('hex').slice(0, 6);
    this.disks = new DockerDisks(this.engine, { root: options.root, owner: this.owner });
  }

  private containerName(sessionId: string): string {
    return `svc-${this.owner}-${sessionId}`;
  }

  async prepare(): Promise<void> {
    const ping = await this.engine.request('GET', '/_ping', undefined, { timeoutMs: 5_000 }).catch(() => null);
    if (!ping || ping.status !== 200) {
      throw new SandboxUnavailableError(`SVC_SANDBOX_PROVIDER=docker cannot reach a Docker engine at ${this.engine.address}: start it (dockerd, or systemctl start docker) or point DOCKER_HOST at one.`);
    }
    this.image = this.options.image ?? sandboxImageTag();
    if (!(await imageExists(this.engine, this.image))) {
      throw new SandboxUnavailableError(`SVC_SANDBOX_PROVIDER=docker needs the sandbox image ${this.image}, which the engine at ${this.engine.address} does not have: run svc sandbox image build.`);
    }
    await this.ensureNetwork();
    await this.disks.prepare(this.image);
  }

  /**
   * svc's network, made by the first svc on the engine. Another svc sharing the engine may be making it at
   * the same moment: the engine then refuses this one's range as taken (not its name) until the other's
   * network is there, so refusals are retried for a few seconds.
   */
  private async ensureNetwork(): Promise<void> {
    const deadline = Date.now() + NETWORK_RACE_MS;
    for (;;) {
      if ((await this.engine.request('GET', `/networks/${NETWORK}`)).status === 200) return;
      const created = await this.engine.request('POST', '/networks/create', {
        Name: NETWORK,
        CheckDuplicate: true,
        Driver: 'bridge',
        IPAM: { Config: [{ Subnet: DOCKER_SANDBOX_RANGE, Gateway: GATEWAY }] },
        // Containers on the network cannot reach each other.
        Options: { 'com.docker.network.bridge.enable_icc': 'false', 'com.docker.network.bridge.name': 'svc-sandboxes' },
        Labels: { 'svc.sandbox.network': '1' },
      });
      if (created.status === 201) return;
      if (Date.now() > deadline) {
        const message = (created.body as { message?: string } | null)?.message ?? created.text.slice(0, 300);
        throw new EngineError(created.status, `Docker engine: POST /networks/create answered ${created.status}: ${message} (svc's network ${NETWORK} needs ${DOCKER_SANDBOX_RANGE}; remove the network that holds it)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** svc's URL as a container reaches it: an engine on this machine reaches a loopback svc through the network's gateway. */
  private async routeToSvc(env: Record<string, string>): Promise<Record<string, string>> {
    const apiUrl = env.SVC_API_URL;
    if (!apiUrl || !this.engine.local) return env;
    const api = new URL(apiUrl);
    const port = Number(api.port || 80);
    await allowHostPort('svc-sandboxes', GATEWAY, port, isLoopback(api.hostname));
    if (!isLoopback(api.hostname)) return env;
    const rewritten = { ...env };
    for (const name of ['SVC_API_URL', 'SVC_REPO_URL']) {
      const value = rewritten[name];
      if (!value) continue;
      const url = new URL(value);
      if (url.host === api.host) {
        url.hostname = GATEWAY;
        rewritten[name] = value.endsWith('/') ? url.toString() : url.toString().replace(/\/$/, '');
      }
    }
    return rewritten;
  }

  async start(sandbox: SandboxStart): Promise<StartedSandbox> {
    try {
      return await this.startContainer(sandbox);
    } catch (error) {
      // The session's `error` says this; once the engine answers again, resuming is all it takes.
      if (error instanceof EngineUnreachableError) throw new EngineUnreachableError(`${error.message}, then resume the session.`);
      throw error;
    }
  }

  private async startContainer(sandbox: SandboxStart): Promise<StartedSandbox> {
    const name = this.containerName(sandbox.sessionId);
    const existing = await this.engine.request('GET', `/containers/${name}/json`);
    if (existing.status === 200 && existing.body.State?.Running) return { ref: name, daemonUrl: this.daemonUrl(existing.body) };
    if (existing.status === 200) await this.engine.expect([204, 404], 'DELETE', `/containers/${name}?force=1`);
    const env = await this.routeToSvc({ ...sandbox.env, HOME: '/opt/svc/home' });
    const image = sandbox.settings?.image ? await ensureProjectImage(this.engine, this.image, sandbox.settings.image, NETWORK) : this.image;
    const memory = sandbox.settings?.limits.memoryBytes ?? this.options.memoryMb * 1024 * 1024;
    const mounts = await this.disks.open(sandbox.sessionId, sandbox.settings?.limits.diskBytes ?? this.options.diskMb * 1024 * 1024);
    try {
      await this.create(sandbox, { name, image, env, memory, mounts });
      await this.engine.expect([204, 304], 'POST', `/containers/${name}/start`);
    } catch (error) {
      // A sandbox that did not start holds no mount until its next start.
      await this.disks.close(sandbox.sessionId).catch(() => undefined);
      throw error;
    }
    const inspected = await this.engine.expect([200], 'GET', `/containers/${name}/json`);
    return { ref: name, daemonUrl: this.daemonUrl(inspected.body) };
  }

  private async create(sandbox: SandboxStart, { name, image, env, memory, mounts }: { name: string; image: string; env: Record<string, string>; memory: number; mounts: DockerMount[] }): Promise<void> {
    await this.engine.expect([201], 'POST', `/containers/create?name=${name}`, {
      Image: image,
      Hostname: 'sandbox',
      Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
      ExposedPorts: { [`${DAEMON_PORT}/tcp`]: {} },
      Labels: { 'svc.sandbox.owner': this.owner, 'svc.session': sandbox.sessionId },
      HostConfig: {
        NetworkMode: NETWORK,
        Init: true,
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': 'rw,nosuid,size=512m', '/run': 'rw,nosuid,size=16m' },
        Mounts: mounts,
        // Swap as large as memory: no swap, so `memory: 2g` in the manifest is 2 GiB and not 4.
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round((sandbox.settings?.limits.cpus ?? this.options.cpus) * 1e9),
        PidsLimit: sandbox.settings?.limits.pids ?? this.options.pids,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        // A remote engine's containers are reached through a published port; a local one's directly.
        PortBindings: this.engine.local ? {} : { [`${DAEMON_PORT}/tcp`]: [{ HostPort: '' }] },
      },
    });
  }

  private daemonUrl(container: { NetworkSettings?: { Networks?: Record<string, { IPAddress?: string }>; Ports?: Record<string, Array<{ HostPort: string }> | null> } }): string {
    if (this.engine.local) return `http://${container.NetworkSettings?.Networks?.[NETWORK]?.IPAddress ?? ''}:${DAEMON_PORT}`;
    const port = container.NetworkSettings?.Ports?.[`${DAEMON_PORT}/tcp`]?.[0]?.HostPort ?? '';
    return `http://${this.engine.host}:${port}`;
  }

  async stop(sessionId: string): Promise<void> {
    try {
      await this.engine.expect([204, 304, 404], 'POST', `/containers/${this.containerName(sessionId)}/stop?t=${STOP_GRACE_S}`, undefined, { timeoutMs: (STOP_GRACE_S + 30) * 1000 });
    } finally {
      // After the container: nothing of it writes to the disk any more. Also when the engine does not
      // answer: a container that still runs keeps its own mount of the disk, and the kernel frees the disk
      // when that container ends; svc's mount goes so that a stopped session holds nothing on the host.
      await this.disks.close(sessionId);
    }
  }

  async remove(sessionId: string): Promise<void> {
    // Removing a running container kills it first, and a busy engine (or one that just restarted) can answer 409
    // (a removal already in progress) or 500 (the kill not yet seen) for a moment: tried again before giving up.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.engine.expect([204, 404], 'DELETE', `/containers/${this.containerName(sessionId)}?force=1&v=1`);
        break;
      } catch (error) {
        if (!(error instanceof EngineError) || ![409, 500].includes(error.status) || attempt >= REMOVE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
    await this.disks.remove(sessionId);
  }

  async isAlive(sessionId: string): Promise<boolean> {
    // A busy engine can answer 500 or drop a connection for a moment (seen in CI while another engine copied a
    // 600 MB image out of it): asked again before a running session is failed for it. An engine that is really
    // gone is reported a couple of seconds later.
    for (let attempt = 1; ; attempt += 1) {
      const inspected = await this.engine.request('GET', `/containers/${this.containerName(sessionId)}/json`, undefined, { timeoutMs: 10_000 }).catch(() => null);
      if (inspected && inspected.status < 500) return inspected.status === 200 && inspected.body.State?.Running === true;
      if (attempt >= ALIVE_ATTEMPTS) return false;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  async endedReason(sessionId: string): Promise<string> {
    const name = this.containerName(sessionId);
    const inspected = await this.engine.request('GET', `/containers/${name}/json`, undefined, { timeoutMs: 5_000 }).catch(() => null);
    const resume = 'Resume the session to start it again with its files.';
    // Not "the sandbox is not running": an engine that crashed leaves its containers running until it starts again.
    if (!inspected || inspected.status >= 500) return `The Docker engine at ${this.engine.address} does not answer (it stopped, crashed or is restarting), so svc cannot manage the sandbox's container any more. ${resume}`;
    if (inspected.status === 404) return `The sandbox's container ${name} is gone from the Docker engine (removed outside svc). ${resume}`;
    const state = inspected.body.State as { OOMKilled?: boolean; ExitCode?: number; FinishedAt?: string; Status?: string } | undefined;
    if (state?.OOMKilled) return `The sandbox ran out of memory (its limit is ${this.options.memoryMb} MiB, SVC_SANDBOX_MEMORY_MB) and its container was killed. ${resume}`;
    return `The sandbox's container ${state?.Status ?? 'stopped'} with code ${state?.ExitCode ?? '?'}${state?.FinishedAt ? ` at ${state.FinishedAt}` : ''} (killed, crashed, or the engine restarted). ${resume}`;
  }
}

