import { LoginThrottle } from '../accounts/login-throttle.js';
import type { FastifyInstance } from 'fastify';
import { bootstrap, type BootstrapResult } from '../accounts/bootstrap.js';
import { repairInterruptedMerges } from '../changes/repair-interrupted-merges.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { TaskRunner, type BackgroundTask } from '../background/task-runner.js';
import { buildApp } from './app.js';
import { createServices } from './services.js';
import { backgroundTasks } from './background-tasks.js';
import { wireTriggers } from './trigger-wiring.js';
import { startReplicaWakes } from '../background/replica-wakes.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  bootstrap: BootstrapResult;
  tasks: TaskRunner;
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
  /** Background tasks beside svc's own (see background-tasks.ts); tests add probes here. */
  extraTasks?: readonly BackgroundTask[];
}

/** Opens and migrates the database and runs first-boot setup and crash repair, without listening. */
export async function prepareDatabase(config: Config): Promise<BootstrapResult> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Start-up tasks publish nothing: no checker threads.
  const services = createServices(config, database, { checkerThreads: 0 });
  try {
    await services.sessions.supervisor.provider.prepare();
    const boot = await bootstrap(services);
    await repairInterruptedMerges(services);
    return boot;
  } finally {
    await services.close();
    await database.close();
  }
}

export async function startServer(config: Config, options: StartOptions): Promise<RunningServer> {
  const database: DatabaseHandle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  let services: ReturnType<typeof createServices>;
  try {
    services = createServices(config, database, { checkerThreads: config.threads });
  } catch (error) {
    await database.close();
    throw error;
  }
  try {
    const startupTasks = options.startupTasks ?? true;
    if (startupTasks) await services.sessions.supervisor.provider.prepare();
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
    const logFailure = (error: unknown, what: string) => app.log.error({ err: error }, `failed ${what}`);
    const tasks = new TaskRunner(services, [...backgroundTasks(config, logFailure), ...(options.extraTasks ?? [])], {
      onError: (error, task) => app.log.error({ err: error, task: task.name }, 'a background task failed'),
    });
    const wakes = await startReplicaWakes({
      driver: database.driver,
      dataDir: config.dataDir,
      wake: (task) => tasks.wake(task),
      onError: (error) => logFailure(error, 'waking the other replicas'),
    });
    const unwireTriggers = wireTriggers(services, tasks, wakes, logFailure);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    if (!options.baseUrlExplicit) config.baseUrl = url;
    tasks.start();
    return {
      app,
      services,
      bootstrap: boot,
      url,
      tasks,
      async close() {
        await tasks.stop();
        await wakes.close();
        await unwireTriggers();
        await app.close();
        await services.close();
        await database.close();
      },
    };
  } catch (error) {
    await services.close();
    await database.close();
    throw error;
  }
}
