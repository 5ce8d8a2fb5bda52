import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/** Enough drawings of every chart kind for V8 to compile ECharts' hot paths (see web/render-warmup.ts). */
const DEFAULT_RENDER_WARMUP_ROUNDS = 6;
/** 1 GiB: a whole repository with its history fits in one first push; a runaway one does not fill the disk. */
const DEFAULT_MAX_PUSH_BYTES = 1024 * 1024 * 1024;
/**
 * What one chart may cost a page: a few seconds of a person's wait, and of a render thread that other
 * pages wait for. The gallery's charts take milliseconds each; the largest a spec allows, well under a second.
 */
const DEFAULT_RENDER_CHART_TIMEOUT_MS = 5_000;

/** Everything `svc serve` reads from flags and the environment (contract §1). */
export interface Config {
  host: string;
  port: number;
  /** Public origin without a trailing slash, used in links and clone URLs. */
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  mergeAuthor: { name: string; email: string };
  logLevel: string;
  /**
   * Worker threads per pool for CPU-heavy work (validating published dashboards, drawing pages);
   * 0 does that work in the thread that answers requests.
   */
  threads: number;
  /**
   * Threads that draw dashboard pages (0: in the thread that answers requests). They run at low
   * priority, so by default there is one per core: a page's charts are drawn side by side.
   */
  renderThreads: number;
  /** A page render running longer than this is stopped. */
  renderTimeoutMs: number;
  /** Times each render thread draws the warm-up samples when it starts (see render-warmup.ts); 0 for none. */
  renderWarmupRounds: number;
  /** Versions kept per dashboard: a publish past this many deletes the oldest (SVC_DASHBOARD_VERSIONS_KEPT). */
  dashboardVersionsKept: number;
  /** A published dashboard is drawn in the background once it has not been republished for this long. */
  prerenderQuietMs: number;
  /** A mirror fetched by this process within this long counts as fresh; reads older than it fetch first. */
  mirrorMaxAgeMs: number;
  /** How long a resolved token is reused without asking the database; another replica's revocation takes this long. */
  tokenCacheMs: number;
  /** Fastify's trustProxy (SVC_TRUST_PROXY): which proxies' X-Forwarded-For names the client. */
  trustProxy: TrustProxy;
  sessions: SessionsConfig;
  triggers: TriggersConfig;
  /**
   * A merge renews its intent's heartbeat several times within this; an intent whose heartbeat is older
   * belongs to a process that died mid-merge, and any replica settles it (see merge-intent-lease.ts).
   */
  mergeHeartbeatTimeoutMs: number;
  /** A file whose part of a CR's diff is larger is listed but its patch left out (GitHub's "Large diffs are not rendered"). */
  diffMaxFileBytes: number;
  /** The patch of a CR's diff stops (at a file boundary) before it grows past this; later files are listed only. */
  diffMaxBytes: number;
  /** The largest push (request body) the git host accepts; a bigger one is refused and nothing of it is stored. */
  maxPushBytes: number;
  /** One chart drawing running longer than this is stopped and its chart says why (at most renderTimeoutMs). */
  renderChartTimeoutMs: number;
  /**
   * The operator's model gateway (SVC_LLM_API_KEY and SVC_LLM_BASE_URL): given to sessions of projects that
   * opted into bundled model access and launched by users entitled to it; undefined when the operator offers none.
   */
  modelGateway: ModelGateway | undefined;
}

export interface ModelGateway {
  apiKey: string;
  baseUrl: string;
}

/** Sessions and their sandboxes (contract §6). */
export interface SessionsConfig {
  /** `process` (no isolation; development), `bubblewrap` or `docker`. */
  provider: 'process' | 'bubblewrap' | 'docker';
  /** Sessions in `provisioning` or `running` per account. */
  maxSessions: number;
  /** A running session with no live lease and no activity for this long is stopped. */
  idleTimeoutMs: number;
  /** How often the idle sweep looks (the sweep stops a session within this long of its deadline). */
  sweepIntervalMs: number;
  /** A sandbox whose daemon has not answered after this long has failed to start. */
  /** How often a sandbox's daemon renews the execution lease while its agent works; a lease lives three of these. */
  leaseRenewMs: number;
  bootTimeoutMs: number;
  /** Derives each session's sandbox and CLI tokens; from SVC_SECRET_KEY, else a file in the data directory. */
  secretKey: string | undefined;
  /** The agent runtime's command inside process sandboxes (default: the one svc ships). */
  runtimeCommand: string | undefined;
  /** The docker provider's image; by default the one `svc sandbox image build` makes of this svc. */
  image: string | undefined;
  /** Memory, CPUs and processes of each sandbox when its project's manifest does not set them (`sandbox:`). */
  memoryMb: number;
  cpus: number;
  /** Processes and threads one sandbox may hold (bubblewrap: its cgroup's pids.max; docker: PidsLimit). */
  pids: number;
  /** The size of each sandbox's writable state (bubblewrap: its disk image; docker: its volumes where the engine can limit them, else its disk image). */
  diskMb: number;
  /** The most a project's manifest may ask for each sandbox; the merge gate refuses more. */
  maxMemoryMb: number;
  maxCpus: number;
  maxPids: number;
  maxDiskMb: number;
  /**
   * How often svc checks that running sessions' sandboxes are alive and their daemons answer: a sandbox
   * that died is marked `failed` within this long; one whose daemon stays silent for bootTimeoutMs too.
   */
  watchIntervalMs: number;
}

/** Triggers (contract §7). */
export interface TriggersConfig {
  /** The scheduler looks for due fires at least this often; it also wakes at the next due fire. */
  schedulerIntervalMs: number;
  /** Fires recorded but not started (a crash between the two) and queued fires are looked at this often. */
  dispatchIntervalMs: number;
}

/** false (the default), true, a hop count, or addresses and CIDR ranges of the proxies to trust. */
export type TrustProxy = boolean | number | string[];

export interface ConfigOverrides {
  host?: string | undefined;
  port?: number | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
  baseUrl?: string | undefined;
  adminToken?: string | undefined;
  logLevel?: string | undefined;
  threads?: number | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv, overrides: ConfigOverrides = {}): Config {
  const host = overrides.host ?? env.SVC_HOST ?? '127.0.0.1';
  const port = overrides.port ?? parsePort(env.SVC_PORT) ?? 8080;
  const threadsGiven = overrides.threads ?? parseCount('SVC_THREADS', env.SVC_THREADS, 0, 64);
  const threads = threadsGiven ?? defaultThreads();
  const baseUrl = (overrides.baseUrl ?? env.SVC_BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  return {
    host,
    port,
    baseUrl,
    dataDir: path.resolve(overrides.dataDir ?? env.SVC_DATA_DIR ?? './.svc-data'),
    databaseUrl: overrides.databaseUrl ?? (env.DATABASE_URL || undefined),
    adminToken: overrides.adminToken ?? (env.SVC_ADMIN_TOKEN || undefined),
    mergeAuthor: {
      name: env.SVC_MERGE_AUTHOR_NAME || 'svc',
      email: env.SVC_MERGE_AUTHOR_EMAIL || 'svc@noreply.invalid',
    },
    logLevel: overrides.logLevel ?? env.SVC_LOG_LEVEL ?? 'info',
    threads,
    renderThreads: parseCount('SVC_RENDER_THREADS', env.SVC_RENDER_THREADS, 0, 64) ?? (threadsGiven !== undefined ? threadsGiven : Math.min(4, availableParallelism())),
    renderTimeoutMs: parseCount('SVC_RENDER_TIMEOUT_MS', env.SVC_RENDER_TIMEOUT_MS, 100, 600_000) ?? 20_000,
    renderWarmupRounds: parseCount('SVC_RENDER_WARMUP_ROUNDS', env.SVC_RENDER_WARMUP_ROUNDS, 0, 50) ?? DEFAULT_RENDER_WARMUP_ROUNDS,
    dashboardVersionsKept: parseCount('SVC_DASHBOARD_VERSIONS_KEPT', env.SVC_DASHBOARD_VERSIONS_KEPT, 1, 1_000_000) ?? 100,
    prerenderQuietMs: parseCount('SVC_PRERENDER_QUIET_MS', env.SVC_PRERENDER_QUIET_MS, 1, 600_000) ?? 500,
    mirrorMaxAgeMs: parseCount('SVC_MIRROR_MAX_AGE_MS', env.SVC_MIRROR_MAX_AGE_MS, 0, 3_600_000) ?? 5_000,
    tokenCacheMs: parseCount('SVC_TOKEN_CACHE_MS', env.SVC_TOKEN_CACHE_MS, 0, 60_000) ?? 1_000,
    trustProxy: parseTrustProxy(env.SVC_TRUST_PROXY),
    sessions: {
      provider: parseProvider(env.SVC_SANDBOX_PROVIDER),
      maxSessions: parseCount('SVC_MAX_SESSIONS', env.SVC_MAX_SESSIONS, 1, 100_000) ?? 10,
      idleTimeoutMs: (parseCount('SVC_IDLE_TIMEOUT_S', env.SVC_IDLE_TIMEOUT_S, 1, 30 * 86_400) ?? 900) * 1000,
      sweepIntervalMs: parseCount('SVC_IDLE_SWEEP_INTERVAL_MS', env.SVC_IDLE_SWEEP_INTERVAL_MS, 50, 600_000) ?? 5_000,
      leaseRenewMs: parseCount('SVC_LEASE_RENEW_MS', env.SVC_LEASE_RENEW_MS, 10, 3_600_000) ?? 20_000,
      bootTimeoutMs: parseCount('SVC_SANDBOX_BOOT_TIMEOUT_MS', env.SVC_SANDBOX_BOOT_TIMEOUT_MS, 100, 3_600_000) ?? 60_000,
      secretKey: env.SVC_SECRET_KEY || undefined,
      runtimeCommand: env.SVC_RUNTIME_COMMAND || undefined,
      image: env.SVC_SANDBOX_IMAGE || undefined,
      memoryMb: parseCount('SVC_SANDBOX_MEMORY_MB', env.SVC_SANDBOX_MEMORY_MB, 64, 1_048_576) ?? 2048,
      cpus: parseCount('SVC_SANDBOX_CPUS', env.SVC_SANDBOX_CPUS, 1, 256) ?? 2,
      pids: parseCount('SVC_SANDBOX_PIDS', env.SVC_SANDBOX_PIDS, 64, 4_194_304) ?? 4096,
      diskMb: parseDiskMb('SVC_SANDBOX_DISK_MB', env.SVC_SANDBOX_DISK_MB) ?? DEFAULT_SANDBOX_DISK_MB,
      ...sandboxMaximums(env),
      watchIntervalMs: parseCount('SVC_SANDBOX_WATCH_INTERVAL_MS', env.SVC_SANDBOX_WATCH_INTERVAL_MS, 50, 600_000) ?? 5_000,
    },
    triggers: {
      schedulerIntervalMs: parseCount('SVC_TRIGGER_SCHEDULER_INTERVAL_MS', env.SVC_TRIGGER_SCHEDULER_INTERVAL_MS, 50, 3_600_000) ?? 60_000,
      dispatchIntervalMs: parseCount('SVC_TRIGGER_DISPATCH_INTERVAL_MS', env.SVC_TRIGGER_DISPATCH_INTERVAL_MS, 50, 3_600_000) ?? 5_000,
    },
    mergeHeartbeatTimeoutMs: parseCount('SVC_MERGE_HEARTBEAT_TIMEOUT_MS', env.SVC_MERGE_HEARTBEAT_TIMEOUT_MS, 500, 600_000) ?? 10_000,
    diffMaxFileBytes: parseCount('SVC_DIFF_MAX_FILE_BYTES', env.SVC_DIFF_MAX_FILE_BYTES, 1_024, 1_073_741_824) ?? 1_048_576,
    diffMaxBytes: parseCount('SVC_DIFF_MAX_BYTES', env.SVC_DIFF_MAX_BYTES, 1_024, 1_073_741_824) ?? 10_485_760,
    maxPushBytes: parseCount('SVC_MAX_PUSH_BYTES', env.SVC_MAX_PUSH_BYTES, 1024, Number.MAX_SAFE_INTEGER) ?? DEFAULT_MAX_PUSH_BYTES,
    renderChartTimeoutMs: parseCount('SVC_RENDER_CHART_TIMEOUT_MS', env.SVC_RENDER_CHART_TIMEOUT_MS, 100, 600_000) ?? DEFAULT_RENDER_CHART_TIMEOUT_MS,
    modelGateway: parseModelGateway(env.SVC_LLM_API_KEY, env.SVC_LLM_BASE_URL),
  };
}

/** Both variables or neither: a key without an address (or the reverse) is a half-made setting, refused at start. */
function parseModelGateway(apiKey: string | undefined, baseUrl: string | undefined): ModelGateway | undefined {
  if (!apiKey && !baseUrl) return undefined;
  if (!apiKey || !baseUrl) {
    throw new Error(`SVC_LLM_API_KEY and SVC_LLM_BASE_URL are set together or not at all (only ${apiKey ? 'SVC_LLM_API_KEY' : 'SVC_LLM_BASE_URL'} is set)`);
  }
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`SVC_LLM_BASE_URL must be an http:// or https:// URL (got ${JSON.stringify(baseUrl)})`);
  }
  return { apiKey, baseUrl };
}

/** 10 GiB: room for a large clone and its dependencies; the image is sparse, so it costs what is written. */
const DEFAULT_SANDBOX_DISK_MB = 10_240;

/** ext4 wants a few MiB for itself; 16 TiB is ext4's limit with 4 KiB blocks. */
function parseDiskMb(name: string, value: string | undefined): number | undefined {
  return parseCount(name, value, 64, 16_777_216);
}

/**
 * By default a project may ask for up to 8 GiB and 4 CPUs (or the server's default, when that is more),
 * and no more processes or disk than the default: a fork bomb is the one case where more is never needed,
 * and disk a sandbox fills is the host's, so more of it is the operator's choice.
 */
function sandboxMaximums(env: NodeJS.ProcessEnv): Pick<SessionsConfig, 'maxMemoryMb' | 'maxCpus' | 'maxPids' | 'maxDiskMb'> {
  const memoryMb = parseCount('SVC_SANDBOX_MEMORY_MB', env.SVC_SANDBOX_MEMORY_MB, 64, 1_048_576) ?? 2048;
  const cpus = parseCount('SVC_SANDBOX_CPUS', env.SVC_SANDBOX_CPUS, 1, 256) ?? 2;
  const pids = parseCount('SVC_SANDBOX_PIDS', env.SVC_SANDBOX_PIDS, 64, 4_194_304) ?? 4096;
  const diskMb = parseDiskMb('SVC_SANDBOX_DISK_MB', env.SVC_SANDBOX_DISK_MB) ?? DEFAULT_SANDBOX_DISK_MB;
  const maximums = {
    maxMemoryMb: parseCount('SVC_SANDBOX_MAX_MEMORY_MB', env.SVC_SANDBOX_MAX_MEMORY_MB, 64, 1_048_576) ?? Math.max(memoryMb, 8192),
    maxCpus: parseCount('SVC_SANDBOX_MAX_CPUS', env.SVC_SANDBOX_MAX_CPUS, 1, 256) ?? Math.max(cpus, 4),
    maxPids: parseCount('SVC_SANDBOX_MAX_PIDS', env.SVC_SANDBOX_MAX_PIDS, 64, 4_194_304) ?? pids,
    maxDiskMb: parseDiskMb('SVC_SANDBOX_MAX_DISK_MB', env.SVC_SANDBOX_MAX_DISK_MB) ?? diskMb,
  };
  const pairs = [['MEMORY_MB', maximums.maxMemoryMb, memoryMb], ['CPUS', maximums.maxCpus, cpus], ['PIDS', maximums.maxPids, pids], ['DISK_MB', maximums.maxDiskMb, diskMb]] as const;
  for (const [name, most, byDefault] of pairs) {
    if (most < byDefault) throw new Error(`SVC_SANDBOX_MAX_${name} (${most}) is less than the default SVC_SANDBOX_${name} (${byDefault}); raise the maximum or lower the default`);
  }
  return maximums;
}

function parseProvider(value: string | undefined): SessionsConfig['provider'] {
  if (value === undefined || value === '') return 'process';
  if (value === 'process' || value === 'bubblewrap' || value === 'docker') return value;
  throw new Error(`SVC_SANDBOX_PROVIDER must be process, bubblewrap or docker (got ${JSON.stringify(value)})`);
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SVC_PORT must be a port number from 0 to 65535 (got ${JSON.stringify(value)})`);
  }
  return port;
}

function parseCount(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < min || count > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return count;
}

/** Threads by default: one per core, less the one that answers requests (at least one, at most four). */
function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/**
 * The trustProxy option Fastify takes for a TrustProxy: a hop count becomes a function trusting that many
 * hops, because Fastify 5 itself trusts no hop when given a number (it cannot check the nearest peer).
 */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** proxy-addr's names for address ranges, which Fastify's trustProxy takes beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * SVC_TRUST_PROXY, as Fastify's trustProxy: unset or `false` trusts no proxy (X-Forwarded-For is
 * ignored), `true` trusts every hop (only behind a proxy that overwrites the header), a number trusts
 * that many hops, and a comma-separated list trusts those addresses and CIDR ranges.
 */
function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!(PROXY_RANGE_NAMES.has(entry) || (family !== 0 && bitsOk && extra === undefined))) {
      throw new Error(
        `SVC_TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses and CIDR ranges such as 10.0.0.1,192.168.0.0/16 (got ${JSON.stringify(value)}; ${JSON.stringify(entry)} is none of these)`,
      );
    }
  }
  return entries;
}
