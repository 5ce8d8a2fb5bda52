/**
 * vitest's global set-up: builds dist/ before any test runs, as `npm run build` does (tsc, then the
 * sandbox bundles of scripts/bundle-sandbox.ts), so a test that spawns bin/svc.js, bin/svc-agent.js,
 * bin/svc-entrypoint.js or a sandbox never runs an older build than the sources it sits beside, however it
 * was started (`npm test`, `npx vitest run test/x.test.ts`). tsc is incremental and the bundles take a
 * second, so an up-to-date dist/ costs a few seconds.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

export default function buildOnce(): void {
  const root = path.resolve(import.meta.dirname, '../..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'dist', 'scripts', 'bundle-sandbox.js')], { cwd: root, stdio: 'inherit' });
}
