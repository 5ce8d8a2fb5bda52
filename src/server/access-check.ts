/**
 * Who may call a route is checked before its body is read, parsed or validated: a token without the
 * right gets 403 (or 404 for a project it cannot see), never a list of what its body got wrong, which
 * would teach it the route's schema and keep an agent fixing a request it may not send at all.
 */
import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify';
import type { ActorContext, Services } from '../context.js';
import { authenticate } from './authenticate.js';

/** The raw path parameters, before the route's schema has checked them. */
export function rawParams(request: FastifyRequest): Record<string, string | undefined> {
  return request.params as Record<string, string | undefined>;
}

/**
 * A route's `preParsing` hook that runs `check`: the access check its operation starts with.
 * Operations remember the projects they checked for a request, so the second check costs nothing.
 */
export function checkAccessFirst(services: Services, check: (ctx: ActorContext, request: FastifyRequest) => unknown): preParsingAsyncHookHandler {
  return async (request) => {
    await check(await authenticate(services, request), request);
  };
}
