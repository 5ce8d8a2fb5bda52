/** svc killed with docker sandboxes running (support/sandbox-crash.ts): an exited container is what a dead one leaves. */
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { sandboxCrash } from './support/sandbox-crash.js';

sandboxCrash({ provider: 'docker', setup: () => buildSandboxImageOnce(), hostTraces: (sessionId) => dockerTraces(sessionId) });
