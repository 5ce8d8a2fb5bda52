/** A thread that parses large manifests. See read-manifest-from-tree.ts. */
import { serveThread } from '../thread-pool.js';
import { parseManifest } from './parse-manifest.js';

serveThread(parseManifest);
