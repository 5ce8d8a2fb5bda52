/**
 * The in-sandbox programs ship on their own: src/daemon may import only Node built-ins (`node:*`),
 * its own files and src/shared, never the server, the database or any npm package.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from './support/runtime-fixture.js';

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

test('src/daemon imports only node: built-ins, src/daemon and src/shared', () => {
  const daemonDir = path.join(repoRoot, 'src', 'daemon');
  const sharedDir = path.join(repoRoot, 'src', 'shared');
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = fs.readdirSync(daemonDir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts')).map((name) => path.join(daemonDir, name));
  expect(queue.length).toBeGreaterThan(5);
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('node:')) continue;
      const where = path.relative(repoRoot, file);
      if (!specifier.startsWith('.')) {
        problems.push(`${where} imports the package "${specifier}"`);
        continue;
      }
      const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      if (!target.startsWith(daemonDir + path.sep) && !target.startsWith(sharedDir + path.sep)) {
        problems.push(`${where} imports ${path.relative(repoRoot, target)}, outside src/daemon and src/shared`);
        continue;
      }
      queue.push(target);
    }
  }
  expect(problems).toEqual([]);
  // The walk reached the shared module the daemon needs.
  expect([...seen].map((file) => path.relative(repoRoot, file))).toContain(path.join('src', 'shared', 'user-context.ts'));
});

test('the import check notices a forbidden import', () => {
  const sample = "import { Kysely } from 'kysely';\nimport type { X } from '../server/x.js';\nexport { y } from './y.js';\nconst z = await import('fastify');\nimport 'node:fs';";
  const found = [...sample.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]);
  expect(found).toEqual(['kysely', '../server/x.js', './y.js', 'fastify', 'node:fs']);
});
