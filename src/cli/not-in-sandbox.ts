/**
 * What the sandbox's bundled `svc` loads in place of the server (`svc serve`) and the image builder
 * (`svc sandbox image build`); scripts/bundle-sandbox.ts swaps it in. Those verbs load their modules
 * lazily, so the other verbs never reach this, and these two end with one line instead of a bundle
 * carrying the database drivers, Fastify and ECharts into every sandbox.
 */
import { CliError } from './deps.js';

throw new CliError('this is the sandbox\'s svc, which talks to svc over HTTP only: it cannot serve or build sandbox images (run svc serve with the svc package on a host)');
