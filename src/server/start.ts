import { LoginThrottle } from '../web/login-throttle.js';
import type { FastifyInstance } from 'fastify';
import { bootstrap, type BootstrapResult } from '../accounts/bootstrap.js';
import { repairInterruptedMerges, startMergeIntentSweeper } from '../changes/repair-interrupted-merges.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { SpecChecker } from '../dashboards/check-spec.js';
import { DomainEventBus } from '../events.js';
import { buildApp } from './app.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  bootstrap: BootstrapResult;
  /** The origin the server answers on, e.g. http://127.0.0.1:8080. */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens the database (migrating it), runs first-boot setup, and listens. With port 0 the base URL is
 * taken from the port the OS chose unless SVC_BASE_URL fixed it.
 */
export interface StartOptions {
  baseUrlExplicit: boolean;
  /**
   * First-boot setup and crash repair. A cluster's primary runs them once before forking, so its
   * workers skip them.
   */
  startupTasks?: boolean;
}

/** Opens and migrates the database and runs first-boot setup and crash repair, without listening. */
export async function prepareDatabase(config: Config): Promise<BootstrapResult> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Start-up tasks publish nothing: no checker threads.
  const services: Services = { db: database.db, dialect: database.dialect, transactions: database.transactions, config, events: new DomainEventBus(), specChecker: new SpecChecker({ threads: 0 }) };
  try {
    const boot = await bootstrap(services);
    await repairInterruptedMerges(services);
    return boot;
  } finally {
    await database.close();
  }
}

export async function startServer(config: Config, options: StartOptions): Promise<RunningServer> {
  const database: DatabaseHandle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const specChecker = new SpecChecker({ threads: config.threads });
  const services: Services = { db: database.db, dialect: database.dialect, transactions: database.transactions, config, events: new DomainEventBus(), specChecker };
  try {
    const startupTasks = options.startupTasks ?? true;
    const boot = startupTasks ? await bootstrap(services) : { accountId: '', adminUserId: '', generatedToken: null, tokenFile: null };
    if (startupTasks) await repairInterruptedMerges(services);
    const loginThrottle = await LoginThrottle.open(database.driver);
    const app = await buildApp(services, { logLevel: config.logLevel, loginThrottle });
    try {
      await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      // Its thread pools (page rendering) would keep the process alive.
      await app.close();
      throw error;
    }
    // Merges whose process died mid-way, on this replica or another, are settled within seconds.
    const mergeSweeper = startMergeIntentSweeper(services);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    if (!options.baseUrlExplicit) config.baseUrl = url;
    return {
      app,
      services,
      bootstrap: boot,
      url,
      async close() {
        await app.close();
        await mergeSweeper.stop();
        await specChecker.close();
        await database.close();
      },
    };
  } catch (error) {
    await specChecker.close();
    await database.close();
    throw error;
  }
}
