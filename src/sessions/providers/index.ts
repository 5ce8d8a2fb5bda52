import path from 'node:path';
import type { Config } from '../../config.js';
import { ProcessProvider } from './process-provider.js';
import type { SandboxProvider } from './provider.js';

/** The configured provider, or a one-line reason it cannot run here (svc serve prints it and stops). */
export function createSandboxProvider(config: Pick<Config, 'dataDir' | 'sessions'>): SandboxProvider {
  const { provider, runtimeCommand } = config.sessions;
  if (provider === 'process') return new ProcessProvider({ root: path.join(config.dataDir, 'sandboxes'), runtimeCommand });
  throw new Error(`SVC_SANDBOX_PROVIDER=${provider} is not available in this version of svc; use SVC_SANDBOX_PROVIDER=process (the default).`);
}
