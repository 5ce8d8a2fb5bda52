import path from 'node:path';
import type { Config } from '../../config.js';
import { BubblewrapProvider } from './bubblewrap-provider.js';
import { ProcessProvider } from './process-provider.js';
import type { SandboxProvider } from './provider.js';

/** The configured provider; whether it can run here is checked by its prepare() when svc starts. */
export function createSandboxProvider(config: Pick<Config, 'dataDir' | 'sessions'>): SandboxProvider {
  const { provider, runtimeCommand } = config.sessions;
  const root = path.join(config.dataDir, 'sandboxes');
  if (provider === 'bubblewrap') return new BubblewrapProvider({ root });
  if (provider === 'process') return new ProcessProvider({ root, runtimeCommand });
  throw new Error(`SVC_SANDBOX_PROVIDER=${provider} is not available in this version of svc; use SVC_SANDBOX_PROVIDER=process (the default).`);
}
