/**
 * The sandbox conformance suite on the bubblewrap provider, with what the host must not keep of a
 * stopped or deleted sandbox: its network namespace, its link and its firewall rules.
 */
import { bubblewrapTraces } from './support/bubblewrap-traces.js';
import { sandboxConformance } from './support/sandbox-conformance.js';

sandboxConformance({ provider: 'bubblewrap', hostTraces: async (_svc, sessionId) => bubblewrapTraces(sessionId) });
