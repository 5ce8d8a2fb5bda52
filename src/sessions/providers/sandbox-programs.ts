/**
 * What every provider puts in a sandbox: svc's three programs as self-contained bundles (built by
 * scripts/bundle-sandbox.ts into dist/sandbox/ as part of `npm run build`), and the agent runtime's own
 * binary. Nothing else of svc's package goes in: no node_modules, so no database driver, web framework or
 * chart engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';
import { SandboxUnavailableError } from './unavailable.js';

/** The programs of spec 3's layout, each `/usr/local/bin/<name>` in an isolating sandbox. */
export const SANDBOX_PROGRAMS = ['svc', 'svc-agent', 'svc-entrypoint'] as const;
export type SandboxProgram = (typeof SANDBOX_PROGRAMS)[number];

export const SANDBOX_BUNDLE_DIR = path.join(PACKAGE_ROOT, 'dist', 'sandbox');

/** A program's bundle: `.mjs`, so Node reads it as a module wherever it is copied, with no package.json beside it. */
export function bundleFile(program: SandboxProgram): string {
  return `${program}.mjs`;
}

export function bundlePath(program: SandboxProgram): string {
  return path.join(SANDBOX_BUNDLE_DIR, bundleFile(program));
}

/** The bundles, or one line saying how to make them when any is missing. */
export function sandboxBundles(): Record<SandboxProgram, string> {
  const missing = SANDBOX_PROGRAMS.filter((program) => !fs.existsSync(bundlePath(program)));
  if (missing.length > 0) throw new SandboxUnavailableError(`svc's sandbox programs are not built (${missing.map((program) => path.relative(PACKAGE_ROOT, bundlePath(program))).join(', ')} missing): run npm run build in ${PACKAGE_ROOT}`);
  return Object.fromEntries(SANDBOX_PROGRAMS.map((program) => [program, bundlePath(program)])) as Record<SandboxProgram, string>;
}

/** The runtime installed with svc (`opencode-ai`, pinned), as the command a process sandbox runs on the host. */
export const SHIPPED_RUNTIME_COMMAND = path.join(PACKAGE_ROOT, 'node_modules', '.bin', 'opencode');

export interface RuntimeBinary {
  /** The executable itself (npm's link resolved): a standalone binary that needs only the C library. */
  file: string;
  /** The package.json of the npm package that holds it, whose pinned version names the binary. */
  manifest: string;
}

/**
 * The runtime's binary, for sandboxes that carry their own copy. opencode compiles its providers in,
 * `@ai-sdk/openai-compatible` among them, so the binary needs no node_modules beside it.
 */
export function shippedRuntimeBinary(): RuntimeBinary {
  let file: string;
  try {
    file = fs.realpathSync(SHIPPED_RUNTIME_COMMAND);
  } catch {
    throw new SandboxUnavailableError(`the agent runtime is not installed (${path.relative(PACKAGE_ROOT, SHIPPED_RUNTIME_COMMAND)} missing): run npm ci in ${PACKAGE_ROOT}`);
  }
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return { file, manifest: path.join(dir, 'package.json') };
  }
  throw new Error(`no package.json holds the agent runtime ${file}`);
}
