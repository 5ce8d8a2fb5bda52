/**
 * What a Docker engine keeps of a docker sandbox (its container, running or only its files, and its volumes)
 * and what the host does of its own disk where it has one (mount, loop device), and the sandbox image.
 */
import { DockerEngine } from '../../src/sessions/providers/docker-engine.js';
import { buildSandboxImage } from '../../src/sessions/providers/sandbox-image.js';
import { diskTraces } from './disk-traces.js';

export async function dockerTraces(sessionId: string, engine = new DockerEngine()): Promise<string[]> {
  const filter = encodeURIComponent(JSON.stringify({ label: [`svc.session=${sessionId}`] }));
  const containers = (await engine.expect([200], 'GET', `/containers/json?all=1&filters=${filter}`)).body as Array<{ Names: string[]; State: string }>;
  const volumes = ((await engine.expect([200], 'GET', '/volumes')).body as { Volumes: Array<{ Name: string }> | null }).Volumes ?? [];
  return [
    // A stopped sandbox keeps its container (its files): only a running one, or any after delete, is a trace.
    ...containers.map((container) => `${container.State === 'running' ? 'running' : 'files:'} container ${container.Names.join(',')}`),
    ...volumes.filter((volume) => volume.Name.includes(sessionId)).map((volume) => `files: volume ${volume.Name}`),
    ...diskTraces(sessionId),
  ];
}

/** Builds the sandbox image when svc's files changed since the last build (instant otherwise). */
export async function buildSandboxImageOnce(engine = new DockerEngine()): Promise<void> {
  const { tag, built } = await buildSandboxImage(engine, { log: (line) => process.stderr.write(`${line}\n`) });
  if (built) process.stderr.write(`built ${tag}\n`);
}
