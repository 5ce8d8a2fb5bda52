/**
 * People (and their tools) reach a session's sandbox through svc (contract §6):
 *
 *   ANY /v1/projects/:id/sessions/:sid/runtime/*      → the daemon's catch-all: the agent runtime's own API
 *   ANY /v1/projects/:id/sessions/:sid/ports/:port/*  → the daemon's /proxy/:port/* (a dev server's preview)
 *   GET /v1/projects/:id/sessions/:sid/events         → svc's session.status events merged with the runtime's
 *
 * svc signs X-Svc-User-Context for the caller; the caller's own credentials never reach the sandbox.
 * Bodies and answers stream through untouched (server-sent events included), so the runtime's web UI and
 * SDKs work through it. Reading needs project.read; anything that may change the sandbox, sessions.write.
 */
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../context.js';
import { AppError, sessionNotRunning } from '../errors.js';
import { authenticate } from '../server/authenticate.js';
import { toAppError } from '../server/error-handler.js';
import { signUserContext, USER_CONTEXT_HEADER } from '../shared/user-context.js';
import { loadSession } from './session-access.js';
import type { SessionRow } from './session-row.js';
import { sessionsOf } from './session-services.js';
import { sandboxTokenOf } from './session-tokens.js';
import { streamSessionEvents } from './session-events.js';

interface ProxyParams {
  id: string;
  sid: string;
  port?: string;
  '*': string;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the caller's credentials stay on this side. */
const DROPPED_REQUEST_HEADERS = new Set(['authorization', 'cookie', 'host', 'connection', 'keep-alive', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', USER_CONTEXT_HEADER]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'trailer', 'upgrade']);

function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
  const appError = toAppError(error);
  if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'session proxy failed');
  if (!request.raw.readableEnded) request.raw.resume();
  void reply.code(appError.status).type('application/json; charset=utf-8').send(appError.toBody());
}

function queryOf(url: string): string {
  const index = url.indexOf('?');
  return index === -1 ? '' : url.slice(index);
}

async function runningSession(services: Services, request: FastifyRequest<{ Params: ProxyParams }>): Promise<{ session: SessionRow; userId: string }> {
  const ctx = await authenticate(services, request);
  const write = request.method !== 'GET' && request.method !== 'HEAD';
  const { session } = await loadSession(ctx, request.params.id, request.params.sid, write ? 'write' : 'read');
  if (session.status !== 'running' || !session.daemon_url) {
    throw sessionNotRunning(`Session ${session.id} is ${session.status}, so its sandbox is not running; resume it (or send it a message) first.`);
  }
  return { session, userId: ctx.actor.userId };
}

function forward(services: Services, request: FastifyRequest, reply: FastifyReply, session: SessionRow, userId: string, daemonPath: string): void {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) if (!DROPPED_REQUEST_HEADERS.has(name) && value !== undefined) headers[name] = value;
  headers[USER_CONTEXT_HEADER] = signUserContext({ user_id: userId, project_id: session.project_id, session_id: session.id }, sandboxTokenOf(sessionsOf(services).secretKey, session.id));
  const target = new URL(daemonPath, session.daemon_url ?? '');
  reply.hijack();
  const upstream = http.request(target, { method: request.method, headers }, (answer) => {
    const answerHeaders: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) if (!DROPPED_RESPONSE_HEADERS.has(name) && value !== undefined) answerHeaders[name] = value;
    reply.raw.writeHead(answer.statusCode ?? 502, answerHeaders);
    // Event streams are flushed as they come: nothing is buffered on this side.
    reply.raw.flushHeaders();
    answer.pipe(reply.raw);
  });
  // Each event leaves as it comes on both sockets of this hop (Nagle's algorithm off, whatever the defaults).
  upstream.setNoDelay(true);
  request.raw.socket.setNoDelay(true);
  upstream.on('error', () => {
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end(JSON.stringify({ error: 'The session’s sandbox did not answer; it may be restarting. Try again, or read its status.', code: 'UPSTREAM_UNAVAILABLE' }));
    } else reply.raw.destroy();
  });
  // A client that leaves ends the exchange with the sandbox too.
  reply.raw.on('close', () => upstream.destroy());
  request.raw.pipe(upstream);
}

export function sessionProxyRoutes(app: FastifyInstance, services: Services): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  // Bodies are the runtime's business: hand them through unread.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
  const hidden = { schema: { hide: true } };

  app.route<{ Params: ProxyParams }>({
    method: [...methods],
    url: '/v1/projects/:id/sessions/:sid/runtime/*',
    ...hidden,
    handler: async (request, reply) => {
      const { session, userId } = await runningSession(services, request);
      forward(services, request, reply, session, userId, `/${request.params['*']}${queryOf(request.url)}`);
    },
  });

  app.route<{ Params: ProxyParams }>({
    method: [...methods],
    url: '/v1/projects/:id/sessions/:sid/ports/:port/*',
    ...hidden,
    handler: async (request, reply) => {
      const port = Number(request.params.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AppError('BAD_REQUEST', `${JSON.stringify(request.params.port)} is not a port number (1 to 65535).`);
      const { session, userId } = await runningSession(services, request);
      forward(services, request, reply, session, userId, `/proxy/${port}/${request.params['*']}${queryOf(request.url)}`);
    },
  });

  app.get<{ Params: { id: string; sid: string } }>('/v1/projects/:id/sessions/:sid/events', hidden, async (request, reply) => {
    const ctx = await authenticate(services, request);
    const { session } = await loadSession(ctx, request.params.id, request.params.sid, 'read');
    reply.hijack();
    await streamSessionEvents(services, session, ctx.actor.userId, request.raw, reply.raw);
  });
}
