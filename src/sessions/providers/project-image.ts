/**
 * A project's own sandbox image (manifest `sandbox.image.dockerfile`), built by the docker provider on top
 * of svc's sandbox image the first time a session needs it. The Dockerfile receives that image as the build
 * argument SVC_SANDBOX_IMAGE (`ARG SVC_SANDBOX_IMAGE` then `FROM ${SVC_SANDBOX_IMAGE}`), so nothing is pulled
 * from a registry and the sandbox keeps svc's entrypoint, daemon and runtime. The build context is the
 * Dockerfile's folder at the commit read; the tag is made of svc's image and that folder's git tree, so an
 * unchanged Dockerfile is built once per svc image and every later boot finds it.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { DockerEngine } from './docker-engine.js';
import type { ProjectImage } from './provider.js';
import { imageExists, streamError } from './sandbox-image.js';

export const PROJECT_IMAGE_REPOSITORY = 'svc-sandbox-project';
/** The label svc's sandbox image carries; an image built FROM it inherits it. */
const BASE_LABEL = 'svc.sandbox.image';

export function projectImageTag(baseImage: string, image: ProjectImage): string {
  return `${PROJECT_IMAGE_REPOSITORY}:${createHash('sha256').update(`${baseImage}\u0000${image.key}`).digest('hex').slice(0, 16)}`;
}

/** Builds under way, so sessions booting together build an image once. */
const building = new Map<string, Promise<void>>();

/** The tag of the project's image, built now when the engine does not have it. */
export async function ensureProjectImage(engine: DockerEngine, baseImage: string, image: ProjectImage, network: string): Promise<string> {
  const tag = projectImageTag(baseImage, image);
  if (await imageExists(engine, tag)) return tag;
  let build = building.get(tag);
  if (!build) {
    build = buildProjectImage(engine, baseImage, image, tag, network).finally(() => building.delete(tag));
    building.set(tag, build);
  }
  await build;
  return tag;
}

async function labelOf(engine: DockerEngine, tag: string): Promise<string | undefined> {
  const inspected = await engine.expect([200], 'GET', `/images/${encodeURIComponent(tag)}/json`);
  return (inspected.body as { Config?: { Labels?: Record<string, string> | null } }).Config?.Labels?.[BASE_LABEL];
}

async function buildProjectImage(engine: DockerEngine, baseImage: string, image: ProjectImage, tag: string, network: string): Promise<void> {
  const context = await image.context();
  const query = new URLSearchParams({
    t: tag,
    dockerfile: image.dockerfile,
    buildargs: JSON.stringify({ SVC_SANDBOX_IMAGE: baseImage }),
    rm: '1',
    forcerm: '1',
    // RUN steps reach what a sandbox reaches (svc's address, the outside through NAT) and nothing more of the host.
    networkmode: network,
    labels: JSON.stringify({ 'svc.sandbox.project-image': image.key }),
  });
  const built = await engine.expect([200], 'POST', `/build?${query.toString()}`, Readable.from([context]), { timeoutMs: 1_800_000 });
  const failure = streamError(built.text);
  if (failure) throw new Error(`building the sandbox image from ${image.source} failed: ${failure}`);
  const expected = await labelOf(engine, baseImage);
  if (expected !== undefined && (await labelOf(engine, tag)) !== expected) {
    await engine.request('DELETE', `/images/${encodeURIComponent(tag)}?force=1`).catch(() => undefined);
    throw new Error(
      `${image.source} does not build FROM svc's sandbox image, which holds the sandbox's entrypoint and daemon: start it with "ARG SVC_SANDBOX_IMAGE" and "FROM \${SVC_SANDBOX_IMAGE}"`,
    );
  }
}
