/**
 * Faults and hostile agents on the docker provider, through svc's API (support/sandbox-faults.ts). svc
 * reaches the engine through a door (support/engine-door.ts) so that the engine can go away and come back
 * under it without restarting the engine other work shares; what a restart does to svc's containers (they
 * stop) is done to the test's own.
 */
import { afterAll } from 'vitest';
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { EngineDoor } from './support/engine-door.js';
import { sandboxFaults } from './support/sandbox-faults.js';

const engine = new DockerEngine();
if (!engine.socketPath) throw new Error(`these tests need a Docker engine on a unix socket (DOCKER_HOST is ${engine.address})`);
const door = new EngineDoor(engine.socketPath);
const dockerHost = process.env.DOCKER_HOST;

afterAll(async () => {
  await door.remove();
  // Test files share their process: the next one reaches the engine itself, not this door.
  if (dockerHost === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHost;
});

sandboxFaults({
  provider: 'docker',
  async setup() {
    await buildSandboxImageOnce(engine);
    await door.openDoor();
    // The provider reads DOCKER_HOST when svc starts, in this process.
    process.env.DOCKER_HOST = door.address;
  },
  hostTraces: (sessionId) => dockerTraces(sessionId, engine),
  killedError: /^The sandbox's container exited with code 137 at \S+ \(killed, crashed, or the engine restarted\)\./,
  engine: {
    async goAway(sessionIds) {
      await door.closeDoor();
      for (const sessionId of sessionIds) {
        const filter = encodeURIComponent(JSON.stringify({ label: [`svc.session=${sessionId}`] }));
        for (const container of (await engine.expect([200], 'GET', `/containers/json?filters=${filter}`)).body as Array<{ Id: string }>) {
          await engine.expect([204], 'POST', `/containers/${container.Id}/kill`);
        }
      }
    },
    stopAnswering: () => door.closeDoor(),
    comeBack: () => door.openDoor(),
  },
});
