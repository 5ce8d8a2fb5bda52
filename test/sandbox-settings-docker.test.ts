/**
 * A project's `sandbox:` settings on the docker provider: the container the engine runs has the manifest's
 * memory, CPU and process limits, and is made from the project's Dockerfile built on svc's image (a file it
 * adds is there inside); a Dockerfile that does not build on svc's image fails the session with the fix.
 * Its disk setting sizes the sandbox's volumes where the engine can limit a volume (XFS with pquota), else
 * the sandbox's own disk that svc mounts for an engine on this machine (docker-disk.ts), seen at
 * /workspace and /opt/svc/home as a filesystem of that size; elsewhere the provider says why there is none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import type { DockerProvider } from '../src/sessions/providers/docker-provider.js';
import { buildSandboxImage } from '../src/sessions/providers/sandbox-image.js';
import { projectWithClone, removeTempDirs } from './support/change-request-fixtures.js';
import { poll } from './support/poll.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

const engine = new DockerEngine();
let svc: TestServer;

beforeAll(async () => {
  await buildSandboxImage(engine, { log: (line) => process.stderr.write(`${line}\n`) });
  svc = await startTestServer({ env: { SVC_SANDBOX_PROVIDER: 'docker', SVC_MAX_SESSIONS: '3' } });
}, 900_000);
afterAll(async () => {
  await svc?.close();
  removeTempDirs();
});

interface Session {
  id: string;
  status: string;
  error: string | null;
}

async function sessionIn(files: Record<string, string>): Promise<{ projectId: string; session: Session }> {
  const { project } = await projectWithClone(svc, { 'README.md': 'hello\n', ...files });
  const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} });
  expect(created.status, created.text).toBe(201);
  const id = created.body.session.id as string;
  const session = await poll(
    `session ${id} running or failed`,
    async () => (await svc.request('GET', `/v1/projects/${project.id}/sessions/${id}`)).body.session as Session,
    (current) => current.status === 'running' || current.status === 'failed',
    { withinMs: 600_000, everyMs: 100 },
  );
  return { projectId: project.id, session };
}

async function containerOf(sessionId: string): Promise<{ Id: string; Image: string; HostConfig: { Memory: number; MemorySwap: number; NanoCpus: number; PidsLimit: number }; Mounts: Array<{ Type: string; Name?: string; Destination: string }> }> {
  const filter = encodeURIComponent(JSON.stringify({ label: [`svc.session=${sessionId}`] }));
  const [listed] = (await engine.expect([200], 'GET', `/containers/json?filters=${filter}`)).body as Array<{ Id: string }>;
  if (!listed) throw new Error(`no running container for session ${sessionId}`);
  return (await engine.expect([200], 'GET', `/containers/${listed.Id}/json`)).body;
}

/** Runs a command in the container through the engine, as `docker exec` does; returns what it printed. */
async function exec(containerId: string, command: string[]): Promise<string> {
  const created = await engine.expect([201], 'POST', `/containers/${containerId}/exec`, { Cmd: command, AttachStdout: true, AttachStderr: true, Tty: true });
  const started = await engine.expect([200], 'POST', `/exec/${created.body.Id}/start`, { Detach: false, Tty: true });
  return started.text.trim();
}

describe(`sandbox settings on the docker provider (${testDialect})`, () => {
  it("runs the container with the manifest's limits, made from the project's Dockerfile", async () => {
    const { session } = await sessionIn({
      'svc.yaml': 'sandbox:\n  memory: 768m\n  cpus: 1.5\n  pids: 300\n  disk: 1g\n  image:\n    dockerfile: .svc/sandbox/Dockerfile\n',
      '.svc/sandbox/Dockerfile': 'ARG SVC_SANDBOX_IMAGE\nFROM ${SVC_SANDBOX_IMAGE}\nCOPY greeting.txt /opt/project/greeting.txt\nRUN echo "built by RUN" > /opt/project/run.txt\n',
      '.svc/sandbox/greeting.txt': 'hello from the project image\n',
    });
    expect(session.error).toBeNull();
    expect(session.status).toBe('running');
    const container = await containerOf(session.id);
    expect(container.HostConfig).toMatchObject({ Memory: 768 * 1024 * 1024, MemorySwap: 768 * 1024 * 1024, NanoCpus: 1_500_000_000, PidsLimit: 300 });
    const image = (await engine.expect([200], 'GET', `/images/${container.Image}/json`)).body as { RepoTags: string[] };
    expect(image.RepoTags.some((tag) => tag.startsWith('svc-sandbox-project:'))).toBe(true);
    expect(await exec(container.Id, ['cat', '/opt/project/greeting.txt', '/opt/project/run.txt'])).toBe('hello from the project image\r\nbuilt by RUN');
    // The kernel's view from inside: the memory limit the container runs under.
    expect(await exec(container.Id, ['cat', '/sys/fs/cgroup/memory/memory.limit_in_bytes'])).toBe(String(768 * 1024 * 1024));

    // The disk limit: the volumes' size on an engine that can limit one, else a disk of the sandbox's own
    // mounted by svc; this engine's answer decides which.
    const { kind, withoutDiskLimit } = (svc.server.services.sessions.supervisor.provider as DockerProvider).disks;
    const mounts = container.Mounts.filter((mount) => mount.Destination === '/workspace' || mount.Destination === '/opt/svc/home');
    expect(mounts.map((mount) => mount.Destination).sort()).toEqual(['/opt/svc/home', '/workspace']);
    expect(mounts.map((mount) => mount.Type)).toEqual(kind === 'own-disk' ? ['bind', 'bind'] : ['volume', 'volume']);
    if (kind === 'own-disk') {
      const [size, device] = (await exec(container.Id, ['sh', '-c', 'df -k --output=size,source /workspace | tail -1; df --output=source /opt/svc/home | tail -1'])).split(/\s+/);
      expect(Number(size) / 1024).toBeGreaterThan(1024 * 0.9);
      expect(Number(size) / 1024).toBeLessThanOrEqual(1024);
      expect(device).toMatch(/^\/dev\/loop\d+$/);
    }
    for (const mount of mounts.filter((each) => each.Type === 'volume')) {
      const options = ((await engine.expect([200], 'GET', `/volumes/${mount.Name}`)).body as { Options: Record<string, string> | null }).Options ?? {};
      expect(options).toEqual(kind === 'volume-size' ? { size: String(1024 ** 3) } : {});
    }
    if (kind === 'unlimited') expect(withoutDiskLimit).toMatch(/^the engine at \S+ cannot limit a volume's size \(.+\); it can where its data root is on XFS mounted with pquota/);
    else expect(withoutDiskLimit).toBeNull();
  }, 900_000);

  it("fails the session, saying what to write, when the Dockerfile does not build on svc's image", async () => {
    const { session } = await sessionIn({
      'svc.yaml': 'sandbox:\n  image:\n    dockerfile: .svc/Dockerfile\n',
      '.svc/Dockerfile': 'FROM scratch\nCOPY Dockerfile /Dockerfile\n',
    });
    expect(session.status).toBe('failed');
    expect(session.error).toBe(
      'The sandbox could not be started: .svc/Dockerfile on main does not build FROM svc\'s sandbox image, which holds the sandbox\'s entrypoint and daemon: start it with "ARG SVC_SANDBOX_IMAGE" and "FROM ${SVC_SANDBOX_IMAGE}"',
    );
  }, 600_000);
});
