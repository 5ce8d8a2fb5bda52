/** svc killed with bubblewrap sandboxes running (support/sandbox-crash.ts): namespaces, links, rules and cgroups are what a dead one leaves. */
import { bubblewrapTraces } from './support/bubblewrap-traces.js';
import { sandboxCrash } from './support/sandbox-crash.js';

sandboxCrash({ provider: 'bubblewrap', hostTraces: async (sessionId) => bubblewrapTraces(sessionId) });
