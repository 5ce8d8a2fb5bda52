/** The sandbox conformance suite on the process provider, which isolates nothing (contract §6). */
import { sandboxConformance } from './support/sandbox-conformance.js';

sandboxConformance({ provider: 'process' });
