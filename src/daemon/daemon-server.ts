/**
 * The daemon's HTTP surface (spec 3, contract §6): `/svc/health` without authentication; every other path
 * requires a valid `X-Svc-User-Context`, which is removed before anything is proxied. `/svc/refresh`,
 * `/svc/abort`, `/svc/env`, `/proxy/{port}/*` (not the daemon's own port) and the catch-all proxy to the
 * runtime (503 while it boots).
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { USER_CONTEXT_HEADER, verifyUserContext } from '../shared/user-context.js';
import { proxyRequest, proxyUpgrade } from './reverse-proxy.js';

export interface DaemonControl {
  servicePort: () => number;
  runtimePort: number;
  sandboxToken: string;
  runtimeReady: () => boolean;
  /** A prompt reached a runtime session through the proxy (messages from svc, a person's own client). */
  onPromptSent: (runtimeSessionId: string) => void;
  health: () => Promise<Record<string, unknown>>;
  refresh: () => Promise<Record<string, unknown>>;
  abort: () => Promise<Record<string, unknown>>;
  setEnv: (changes: Record<string, string | null>) => Promise<Record<string, unknown>>;
}

class HttpProblem extends Error {
  constructor(readonly status: number, message: string, readonly code: string) {
    super(message);
  }
}

const MAX_BODY = 1024 * 1024;
/** The runtime's route that starts a turn and answers at once (the synchronous one is busy while it answers). */
const PROMPT_PATH = /^\/session\/([^/?]+)\/prompt_async(?:\?|$)/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function send(response: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpProblem(413, 'The body is larger than 1 MiB.', 'PAYLOAD_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpProblem(400, 'The body is not valid JSON; send a JSON object.', 'BAD_REQUEST');
  }
}

function parseEnvChanges(body: unknown): Record<string, string | null> {
  const env = (body as { env?: unknown } | null)?.env;
  if (!env || typeof env !== 'object' || Array.isArray(env)) {
    throw new HttpProblem(400, 'Send {"env": {"NAME": "value"}}; a null value removes the variable.', 'VALIDATION_FAILED');
  }
  const changes: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    if (!ENV_NAME.test(name)) throw new HttpProblem(400, `"${name}" is not a variable name: use letters, digits and underscores, not starting with a digit.`, 'VALIDATION_FAILED');
    if (value !== null && typeof value !== 'string') throw new HttpProblem(400, `The value of ${name} must be a string, or null to remove it.`, 'VALIDATION_FAILED');
    changes[name] = value;
  }
  return changes;
}

/** `/proxy/{port}/rest` → [port, "/rest?query"]; undefined when the path is not a proxy path. */
function proxyTarget(url: string): { port: number; path: string } | 'bad' | undefined {
  const match = /^\/proxy\/([^/?]*)(.*)$/.exec(url);
  if (!match) return undefined;
  const port = Number(match[1]);
  if (!/^\d{1,5}$/.test(match[1]!) || port < 1 || port > 65535) return 'bad';
  const rest = match[2] ?? '';
  return { port, path: rest.startsWith('/') ? rest : `/${rest}` };
}

export function createDaemonServer(control: DaemonControl): http.Server {
  const authenticate = (request: http.IncomingMessage): void => {
    const header = request.headers[USER_CONTEXT_HEADER];
    const check = verifyUserContext(Array.isArray(header) ? header[0] : header, control.sandboxToken);
    if (!check.ok) throw new HttpProblem(401, check.reason, 'UNAUTHENTICATED');
  };

  const route = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const url = request.url ?? '/';
    const pathname = url.split('?')[0]!;
    if (pathname === '/svc/health') {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw new HttpProblem(405, 'Use GET /svc/health.', 'METHOD_NOT_ALLOWED');
      send(response, 200, await control.health());
      return;
    }
    authenticate(request);
    if (pathname === '/svc' || pathname.startsWith('/svc/')) {
      const action = { '/svc/refresh': control.refresh, '/svc/abort': control.abort }[pathname];
      if (pathname === '/svc/env') {
        if (request.method !== 'POST') throw new HttpProblem(405, 'Use POST /svc/env.', 'METHOD_NOT_ALLOWED');
        send(response, 200, await control.setEnv(parseEnvChanges(await readJson(request))));
        return;
      }
      if (!action) throw new HttpProblem(404, `There is no daemon path ${pathname}; the daemon offers /svc/health, /svc/refresh, /svc/abort and /svc/env.`, 'NOT_FOUND');
      if (request.method !== 'POST') throw new HttpProblem(405, `Use POST ${pathname}.`, 'METHOD_NOT_ALLOWED');
      send(response, 200, await action());
      return;
    }
    const target = proxyTarget(url);
    if (target === 'bad') throw new HttpProblem(400, 'The port in /proxy/{port}/ must be a number from 1 to 65535.', 'BAD_REQUEST');
    if (target) {
      if (target.port === control.servicePort()) throw new HttpProblem(403, `Port ${target.port} is the daemon itself; /proxy/ reaches other ports of the sandbox.`, 'FORBIDDEN');
      proxyRequest(request, response, target.port, target.path, [USER_CONTEXT_HEADER]);
      return;
    }
    if (!control.runtimeReady()) throw new HttpProblem(503, 'The agent runtime is starting; try again in a few seconds.', 'RUNTIME_STARTING');
    const prompted = request.method === 'POST' ? PROMPT_PATH.exec(url) : null;
    if (prompted) {
      response.once('finish', () => {
        if (response.statusCode < 300) control.onPromptSent(decodeURIComponent(prompted[1]!));
      });
    }
    proxyRequest(request, response, control.runtimePort, url, [USER_CONTEXT_HEADER]);
  };

  const server = http.createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      const problem = error instanceof HttpProblem ? error : new HttpProblem(500, `The daemon failed: ${(error as Error).message}`, 'INTERNAL');
      if (response.headersSent) {
        response.destroy();
        return;
      }
      request.resume();
      send(response, problem.status, { error: problem.message, code: problem.code }, problem.status === 503 ? { 'retry-after': '2' } : {});
    });
  });

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, text: string, error: string, code: string) => {
      const body = JSON.stringify({ error, code });
      socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    const url = request.url ?? '/';
    try {
      authenticate(request);
    } catch (error) {
      refuse(401, 'Unauthorized', (error as Error).message, 'UNAUTHENTICATED');
      return;
    }
    const target = proxyTarget(url);
    if (target === 'bad') return refuse(400, 'Bad Request', 'The port in /proxy/{port}/ must be a number from 1 to 65535.', 'BAD_REQUEST');
    if (target) {
      if (target.port === control.servicePort()) return refuse(403, 'Forbidden', `Port ${target.port} is the daemon itself.`, 'FORBIDDEN');
      proxyUpgrade(request, socket, head, target.port, target.path, [USER_CONTEXT_HEADER]);
      return;
    }
    if (url.startsWith('/svc/') || !control.runtimeReady()) return refuse(503, 'Service Unavailable', 'The agent runtime is starting; try again in a few seconds.', 'RUNTIME_STARTING');
    proxyUpgrade(request, socket, head, control.runtimePort, url, [USER_CONTEXT_HEADER]);
  });
  // Event streams stay open for hours; only idle keep-alive sockets are timed out.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  return server;
}
