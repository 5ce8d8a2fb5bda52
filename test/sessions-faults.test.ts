/** Faults and hostile agents on the process and bubblewrap providers, through svc's API (support/sandbox-faults.ts). */
import { bubblewrapTraces } from './support/bubblewrap-traces.js';
import { sandboxFaults } from './support/sandbox-faults.js';

const killed = /^The sandbox stopped running: its processes are gone \(killed, crashed, or the machine restarted\)/;

sandboxFaults({ provider: 'process', hostTraces: async () => [], killedError: killed });
sandboxFaults({ provider: 'bubblewrap', hostTraces: async (sessionId) => bubblewrapTraces(sessionId), killedError: killed });
