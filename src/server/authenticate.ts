import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateToken } from '../accounts/principal.js';
import type { ActorContext, Services } from '../context.js';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the bearer token acts as: set before the body is read on routes that take a token. */
    actorContext: ActorContext | null;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

async function resolveActor(services: Services, request: FastifyRequest): Promise<ActorContext> {
  const token = bearerToken(request);
  if (!token) {
    throw new AppError(
      'UNAUTHENTICATED',
      request.headers.authorization
        ? 'The Authorization header must be "Bearer <token>".'
        : 'This route needs a token: send "Authorization: Bearer <token>" (the CLI reads SVC_CLI_TOKEN, or run svc login).',
    );
  }
  const actor = await authenticateToken(services.db, token);
  if (!actor) throw new AppError('UNAUTHENTICATED', 'The token is not recognised: it is mistyped, revoked or expired.');
  return { ...services, actor };
}

/**
 * Every route of `scope` takes a bearer token, checked as the request arrives: a request without one,
 * or with an unknown one, is answered 401 before its body is read, parsed or validated.
 */
export function authenticateRequests(scope: FastifyInstance, services: Services): void {
  scope.decorateRequest('actorContext', null);
  scope.addHook('onRequest', async (request) => {
    request.actorContext = await resolveActor(services, request);
  });
}

/** The request's actor (already resolved by authenticateRequests), or answers 401 with what to do about it. */
export async function authenticate(services: Services, request: FastifyRequest): Promise<ActorContext> {
  request.actorContext ??= await resolveActor(services, request);
  return request.actorContext;
}
