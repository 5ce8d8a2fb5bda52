import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from './package-root.js';

const read = (file: string) => JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, file), 'utf8')) as Record<string, unknown>;

describe('npm ci', () => {
  it('has a decision in allowScripts for every dependency with an install script, so it installs without an advisory', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    const decided = Object.keys((read('package.json').allowScripts ?? {}) as Record<string, boolean>).map((key) => key.replace(/(?<=.)@[^@]*$/, ''));
    expect(withScripts.filter((name) => !decided.includes(name))).toEqual([]);
  });
});
