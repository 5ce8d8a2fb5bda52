import type { Config } from '../config.js';
import type { Services } from '../context.js';
import type { DatabaseHandle } from '../db/database.js';
import { SpecChecker } from '../dashboards/check-spec.js';
import { DomainEventBus } from '../events.js';
import { createSandboxProvider } from '../sessions/providers/index.js';
import { SandboxSupervisor } from '../sessions/sandbox-supervisor.js';
import { loadSecretKey } from '../sessions/session-tokens.js';

export interface ServiceOptions {
  /** Threads validating published dashboards; start-up tasks publish nothing and take 0. */
  checkerThreads: number;
}

/** Everything operations share, built once per process and never changed after. */
export function createServices(config: Config, database: DatabaseHandle, options: ServiceOptions): Services & { close(): Promise<void> } {
  const events = new DomainEventBus();
  const secretKey = loadSecretKey(config);
  const specChecker = new SpecChecker({ threads: options.checkerThreads });
  const services: Services = {
    db: database.db,
    dialect: database.dialect,
    transactions: database.transactions,
    config,
    events,
    specChecker,
    sessions: {
      secretKey,
      supervisor: new SandboxSupervisor(createSandboxProvider(config), () => services, (event) => events.emit('session.status', event)),
    },
  };
  return {
    ...services,
    async close() {
      await services.sessions.supervisor.close();
      await specChecker.close();
    },
  };
}
