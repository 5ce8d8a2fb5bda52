import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ActorContext, Services } from '../context.js';
import { API_SURFACE, requireActor } from './credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the credentials act as: set before the body is read on routes that take a token. */
    actorContext: ActorContext | null;
  }
}

function resolveActor(services: Services, request: FastifyRequest): Promise<ActorContext> {
  return requireActor(services, request, API_SURFACE, request.routeOptions.config.tokenKinds);
}

/**
 * Every route of `scope` takes a bearer token, checked as the request arrives: a request without one,
 * with an unknown one, or with a kind of token the route does not take, is answered 401 before its body
 * is read, parsed or validated.
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
