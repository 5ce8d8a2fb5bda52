/**
 * svc's version, read from its package.json. The sandbox's bundled `svc` has no package.json beside it:
 * scripts/bundle-sandbox.ts replaces this module there with the version written in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

export function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}
