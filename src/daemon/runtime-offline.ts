/**
 * What the agent runtime (opencode 1.18.x, pinned) needs to start offline. Verified in its bundled source:
 * - OPENCODE_DISABLE_AUTOUPDATE: no release check at start.
 * - OPENCODE_DISABLE_MODELS_FETCH: no models.dev catalog download (custom providers in opencode.json still work).
 * - OPENCODE_DISABLE_LSP_DOWNLOAD: no language-server downloads when files are edited.
 * - OPENCODE_DISABLE_SHARE: no share service.
 * - Provider packages: `@ai-sdk/openai-compatible` and the other common providers are bundled in the binary,
 *   so a custom provider never installs anything.
 * - Config directories: for every config directory (the global one under HOME, each `.opencode` and
 *   OPENCODE_CONFIG_DIR) the runtime installs `@opencode-ai/plugin` from the npm registry unless the
 *   directory already has `node_modules/` and a `package-lock.json` that lists it. While that install runs,
 *   its first HTTP requests hang. `prepareConfigDirectory` writes exactly those two markers; the runtime's own
 *   `.gitignore` in the directory ignores both, so the repository stays clean.
 */
import fs from 'node:fs';
import path from 'node:path';

export const RUNTIME_OFFLINE_ENV: Readonly<Record<string, string>> = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
};

const LOCK_MARKER = { name: 'svc-runtime-config', lockfileVersion: 3, requires: true, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } };

/** Makes the runtime consider a config directory's dependencies installed (see the module comment). */
export function prepareConfigDirectory(directory: string): void {
  fs.mkdirSync(path.join(directory, 'node_modules'), { recursive: true });
  const lockPath = path.join(directory, 'package-lock.json');
  let lock: any;
  try {
    lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
  } catch {
    lock = undefined;
  }
  if (lock?.packages?.['']?.dependencies?.['@opencode-ai/plugin']) return;
  if (lock && typeof lock === 'object') {
    // A lock the project keeps for its own plugins: add the one entry, keep the rest.
    lock.packages ??= {};
    lock.packages[''] ??= {};
    lock.packages[''].dependencies = { ...lock.packages[''].dependencies, '@opencode-ai/plugin': '*' };
  } else {
    lock = LOCK_MARKER;
  }
  fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
  const ignorePath = path.join(directory, '.gitignore');
  // Written before the runtime starts, with the runtime's own content, so git never shows the markers.
  if (!fs.existsSync(ignorePath)) fs.writeFileSync(ignorePath, ['node_modules', 'package.json', 'package-lock.json', 'bun.lock', '.gitignore'].join('\n'));
}

/** The global config directory the runtime reads under its HOME (XDG layout). */
export function globalConfigDirectory(runtimeHome: string): string {
  return path.join(runtimeHome, '.config', 'opencode');
}

/**
 * Defaults the sandbox gives every runtime, below the project's own config (which wins): allow every
 * permission, because a headless "ask" waits forever and the sandbox itself is the boundary.
 */
export const RUNTIME_GLOBAL_CONFIG = {
  $schema: 'https://opencode.ai/config.json',
  autoupdate: false,
  share: 'disabled',
  permission: { '*': 'allow', doom_loop: 'allow', external_directory: 'allow' },
};

/** Writes the global config and the offline markers under the runtime's HOME. */
export function prepareRuntimeHome(runtimeHome: string): void {
  const directory = globalConfigDirectory(runtimeHome);
  fs.mkdirSync(directory, { recursive: true });
  fs.writeFileSync(path.join(directory, 'opencode.json'), JSON.stringify(RUNTIME_GLOBAL_CONFIG, null, 2) + '\n');
  prepareConfigDirectory(directory);
}
