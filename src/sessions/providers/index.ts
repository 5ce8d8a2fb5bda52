import path from 'node:path';
import type { Config } from '../../config.js';
import { BubblewrapProvider } from './bubblewrap-provider.js';
import { DockerProvider } from './docker-provider.js';
import { ProcessProvider } from './process-provider.js';
import type { SandboxProvider } from './provider.js';

/** The configured provider; whether it can run here is checked by its prepare() when svc starts. */
export function createSandboxProvider(config: Pick<Config, 'dataDir' | 'sessions'>): SandboxProvider {
  const { provider, runtimeCommand, image, memoryMb, cpus, pids, diskMb } = config.sessions;
  const root = path.join(config.dataDir, 'sandboxes');
  if (provider === 'bubblewrap') return new BubblewrapProvider({ root, limits: { memoryBytes: memoryMb * 1024 * 1024, cpus, pids, diskBytes: diskMb * 1024 * 1024 } });
  if (provider === 'docker') return new DockerProvider({ root, image, memoryMb, cpus, pids, diskMb });
  return new ProcessProvider({ root, runtimeCommand });
}
