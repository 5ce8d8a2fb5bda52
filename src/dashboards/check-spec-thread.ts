/** A thread that parses and validates published dashboard bodies. See check-spec.ts. */
import { serveThread } from '../thread-pool.js';
import { checkSpecBytes } from './check-spec.js';

serveThread(checkSpecBytes);
