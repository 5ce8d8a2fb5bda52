/**
 * The sandbox conformance suite on the docker provider (the engine DOCKER_HOST names, the image the test
 * suite builds when svc's files changed), with what the engine must not keep of a stopped or deleted sandbox.
 */
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { sandboxConformance } from './support/sandbox-conformance.js';

sandboxConformance({ provider: 'docker', hostTraces: async (_svc, sessionId) => dockerTraces(sessionId), setup: () => buildSandboxImageOnce() });
