/** svc killed with process sandboxes running (support/sandbox-crash.ts): processes that outlived their entrypoint are what a dead one leaves. */
import { sandboxCrash } from './support/sandbox-crash.js';

sandboxCrash({ provider: 'process', hostTraces: async () => [] });
