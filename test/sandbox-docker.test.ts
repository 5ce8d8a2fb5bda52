/**
 * The sandbox conformance suite on the docker provider (the engine DOCKER_HOST names, the image the test
 * suite builds when svc's files changed), with what the engine must not keep of a stopped or deleted sandbox.
 */
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import { buildSandboxImage } from '../src/sessions/providers/sandbox-image.js';
import { sandboxConformance } from './support/sandbox-conformance.js';

const engine = new DockerEngine();

async function hostTraces(_svc: unknown, sessionId: string): Promise<string[]> {
  const filter = encodeURIComponent(JSON.stringify({ label: [`svc.session=${sessionId}`] }));
  const containers = (await engine.expect([200], 'GET', `/containers/json?all=1&filters=${filter}`)).body as Array<{ Names: string[]; State: string }>;
  const volumes = ((await engine.expect([200], 'GET', '/volumes')).body as { Volumes: Array<{ Name: string }> | null }).Volumes ?? [];
  return [
    // A stopped sandbox keeps its container (its files): only a running one, or any after delete, is a trace.
    ...containers.map((container) => `${container.State === 'running' ? 'running' : 'files:'} container ${container.Names.join(',')}`),
    ...volumes.filter((volume) => volume.Name.includes(sessionId)).map((volume) => `files: volume ${volume.Name}`),
  ];
}

async function setup(): Promise<void> {
  const { tag, built } = await buildSandboxImage(engine, { log: (line) => process.stderr.write(`${line}\n`) });
  if (built) process.stderr.write(`built ${tag}\n`);
}

sandboxConformance({ provider: 'docker', hostTraces, setup });
