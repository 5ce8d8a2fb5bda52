import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of svc's package.json, whether this module runs from src/ (tests, tsx) or from dist/src/
 * (the built program): the programs in bin/ and the runtime in node_modules/ are found from there.
 */
function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'bin', 'svc.js'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('svc cannot find its own package directory (package.json beside bin/svc.js)');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();
