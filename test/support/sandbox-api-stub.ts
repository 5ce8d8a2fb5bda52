/**
 * A test double of svc's own sandbox protocol, for tests of the daemon on its own: exactly
 * `GET /v1/projects/:id/git/clone-credential`, `POST /v1/sandbox/lease` and `PUT /v1/sandbox/runtime-session`,
 * with the sandbox token as bearer, plus a real git repository over smart HTTP (`git http-backend`) that
 * accepts only the issued clone credential. Every call is recorded.
 *
 * Kept beside the real server on purpose: these tests look at what the daemon sends and when (each lease
 * renewal and release, the token it presents, how it behaves while the API is away), which the real server
 * keeps only as a row's latest state, and they start in a fraction of a second. The same routes of the real
 * server are exercised end to end, daemon included, by sessions-process, sessions-lease and sessions-api.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubCall {
  method: string;
  path: string;
  body: any;
  at: number;
  authorized: boolean;
}

export interface SandboxApiStub {
  url: string;
  apiUrl: string;
  /** Clone URL of the repository `<gitRoot>/<name>`. */
  repoUrl(name: string): string;
  calls: StubCall[];
  /** Passwords handed out by clone-credential. */
  issued: string[];
  /** While false, every API route answers 503 (an unreachable API). */
  available: boolean;
  until(predicate: (calls: StubCall[]) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startSandboxApiStub(options: { projectId: string; sandboxToken: string; gitRoot: string }): Promise<SandboxApiStub> {
  const calls: StubCall[] = [];
  const issued: string[] = [];
  const waiters: Array<{ predicate: (calls: StubCall[]) => boolean; resolve: () => void }> = [];
  const notify = () => {
    for (const waiter of [...waiters]) if (waiter.predicate(calls)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };

  const gitBackend = (request: http.IncomingMessage, response: http.ServerResponse, url: URL) => {
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
    const password = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':') : '';
    if (!issued.includes(password)) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="svc"', 'content-type': 'text/plain' });
      response.end('A clone credential is required.\n');
      return;
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '',
        GIT_PROJECT_ROOT: options.gitRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        PATH_INFO: decodeURIComponent(url.pathname.slice('/git'.length)),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        REMOTE_USER: 'sandbox',
        REMOTE_ADDR: '127.0.0.1',
        GIT_HTTP_RECEIVE_PACK: '1',
        HTTP_GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    request.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void response.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const index = line.indexOf(':');
        const name = line.slice(0, index).trim().toLowerCase();
        const value = line.slice(index + 1).trim();
        if (name === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      response.write(head.subarray(end + 4));
    });
    child.on('close', () => response.end());
  };

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/git/')) return gitBackend(request, response, url);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {}
      const authorized = request.headers.authorization === `Bearer ${options.sandboxToken}`;
      calls.push({ method: request.method ?? '', path: url.pathname, body, at: Date.now(), authorized });
      notify();
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (!stub.available) return json(503, { error: 'The API is unavailable.', code: 'UNAVAILABLE' });
      if (!authorized) return json(401, { error: 'A sandbox token is required.', code: 'UNAUTHENTICATED' });
      if (request.method === 'GET' && url.pathname === `/v1/projects/${options.projectId}/git/clone-credential`) {
        const password = `svc_s_clone_${randomBytes(12).toString('hex')}`;
        issued.push(password);
        return json(200, { username: 'x-svc-sandbox', password, url: stub.repoUrl('repo.git'), expires_at: new Date(Date.now() + 3600_000).toISOString() });
      }
      if (request.method === 'POST' && url.pathname === '/v1/sandbox/lease') {
        return json(200, { lease_expires_at: body?.busy ? new Date(Date.now() + 60_000).toISOString() : null });
      }
      if (request.method === 'PUT' && url.pathname === '/v1/sandbox/runtime-session') return json(200, { runtime_session_id: body?.runtime_session_id });
      json(404, { error: 'Not found.', code: 'NOT_FOUND' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stub: SandboxApiStub = {
    url,
    apiUrl: `${url}/v1`,
    repoUrl: (name) => `${url}/git/${name}`,
    calls,
    issued,
    available: true,
    until(predicate) {
      if (predicate(calls)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return stub;
}
