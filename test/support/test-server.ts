import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import type { BackgroundTask } from '../../src/background/task-runner.js';
import { startServer, type RunningServer } from '../../src/server/start.js';

/** `DATABASE_URL=postgres://… npm test` runs the whole suite against PostgreSQL; otherwise SQLite. */
export const testDatabaseUrl = process.env.DATABASE_URL && /^postgres/.test(process.env.DATABASE_URL) ? process.env.DATABASE_URL : undefined;
export const testDialect = testDatabaseUrl ? 'postgres' : 'sqlite';

export interface TestDatabase {
  url: string | undefined;
  drop(): Promise<void>;
}

/** A private PostgreSQL schema per server, so test files run in parallel without seeing each other. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!testDatabaseUrl) return { url: undefined, drop: async () => {} };
  const schema = `svc_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = new URL(testDatabaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: testDatabaseUrl });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await dropper.end();
    },
  };
}

export interface TestServer {
  url: string;
  adminToken: string;
  dataDir: string;
  server: RunningServer;
  /** JSON request helper: returns status, headers and the parsed (or raw) body. */
  request(method: string, route: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // Tests read arbitrary response shapes; a loose type keeps assertions readable.
  body: any;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  adminToken?: string | null;
  dataDir?: string;
  databaseUrl?: string;
  /** Where svc listens (and so its URLs): 127.0.0.1 unless sandboxes must reach it elsewhere (another engine's containers). */
  host?: string;
  /** Background tasks beside svc's own, e.g. probes of how replicas share work. */
  extraTasks?: readonly BackgroundTask[];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await createTestDatabase();
  const adminToken = options.adminToken === null ? undefined : (options.adminToken ?? `svc_u_test_${randomBytes(12).toString('hex')}`);
  const config = loadConfig(
    // Render threads warm up only where a test asks: dozens of test servers would spend seconds of CPU on it.
    { SVC_RENDER_WARMUP_ROUNDS: '0', ...options.env },
    { port: 0, host: options.host ?? '127.0.0.1', dataDir, databaseUrl: database.url, adminToken, logLevel: 'error' },
  );
  const server = await startServer(config, { baseUrlExplicit: false, extraTasks: options.extraTasks ?? [] });
  const url = server.url;
  const effectiveAdminToken = adminToken ?? server.bootstrap.generatedToken ?? '';

  async function request(method: string, route: string, requestOptions: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...requestOptions.headers };
    const token = requestOptions.token === undefined ? effectiveAdminToken : requestOptions.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Blob | undefined;
    if (requestOptions.rawBody !== undefined) body = typeof requestOptions.rawBody === 'string' ? requestOptions.rawBody : new Blob([new Uint8Array(requestOptions.rawBody)]);
    else if (requestOptions.body !== undefined) {
      body = JSON.stringify(requestOptions.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url + route, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  return {
    url,
    adminToken: effectiveAdminToken,
    dataDir,
    server,
    request,
    async close() {
      // Sandboxes run detached from the server (so a restart finds them); a test server's go with it.
      // Removed after the server closed, so a session that background work (a trigger fire) started while it
      // closed goes too; the provider keeps a directory per sandbox.
      const { db, sessions } = server.services;
      const known = await db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute().catch(() => []);
      await server.close();
      const sandboxDir = path.join(dataDir, 'sandboxes');
      const late = fs.existsSync(sandboxDir) ? fs.readdirSync(sandboxDir).filter((id) => !known.some((session) => session.id === id)) : [];
      for (const session of [...known, ...late.map((id) => ({ id, sandbox_ref: null }))]) {
        await sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
      }
      await database.drop();
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
