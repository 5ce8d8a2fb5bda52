/**
 * Who is looking at a web page: `Authorization: Bearer <token>` (scripts, curl) or the session
 * cookie (browsers). Without either, pages send the browser to /login and back afterwards.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ActorContext, Services } from '../context.js';
import { AppError } from '../errors.js';
import { PAGES_SURFACE, actorFor } from '../server/credentials.js';
import { SIGN_IN_COOKIE } from '../accounts/sign-ins.js';

/**
 * The request's actor, or null when it carries no credentials that still work: a browser whose cookie no
 * longer opens a session is sent to sign in again, while a script that sent a bad token hears so.
 */
export async function webActor(services: Services, request: FastifyRequest): Promise<ActorContext | null> {
  try {
    return await actorFor(services, request, PAGES_SURFACE);
  } catch (error) {
    if (error instanceof AppError && request.headers.authorization === undefined) return null;
    throw error;
  }
}

export function redirectToLogin(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const next = request.url;
  const location = next === '/' || next === '/d' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
  // A cookie that no longer opens a session is cleared so the browser stops sending it.
  if (request.cookies[SIGN_IN_COOKIE]) reply.clearCookie(SIGN_IN_COOKIE, { path: '/' });
  return reply.header('cache-control', 'no-store').redirect(location, 302);
}
