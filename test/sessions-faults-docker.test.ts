/** Faults and hostile agents on the docker provider, through svc's API (support/sandbox-faults.ts). */
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { sandboxFaults } from './support/sandbox-faults.js';

sandboxFaults({
  provider: 'docker',
  setup: () => buildSandboxImageOnce(),
  hostTraces: (sessionId) => dockerTraces(sessionId),
  killedError: /^The sandbox's container exited with code 137 at \S+ \(killed, crashed, or the engine restarted\)\./,
});
