/**
 * Who is looking at a web page: `Authorization: Bearer <token>` (scripts, curl) or the session
 * cookie (browsers). Without either, pages send the browser to /login and back afterwards.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateToken } from '../accounts/principal.js';
import type { ActorContext, Services } from '../context.js';
import { AppError } from '../errors.js';
import { bearerToken } from '../server/authenticate.js';
import { SESSION_COOKIE, findWebSession } from './web-sessions.js';

/** The request's actor, or null when it carries no credentials that still work. */
export async function webActor(services: Services, request: FastifyRequest): Promise<ActorContext | null> {
  if (request.headers.authorization !== undefined) {
    const token = bearerToken(request);
    const actor = token ? await authenticateToken(services.db, token) : null;
    // A script that sent a bad token wants to hear so, not to be redirected to a form.
    if (!actor) throw new AppError('UNAUTHENTICATED', 'The bearer token is not recognised: it is mistyped, revoked or expired.');
    return { ...services, actor };
  }
  const secret = request.cookies[SESSION_COOKIE];
  if (!secret) return null;
  const actor = await findWebSession(services.db, secret);
  return actor ? { ...services, actor } : null;
}

export function redirectToLogin(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const next = request.url;
  const location = next === '/' || next === '/d' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
  // A cookie that no longer opens a session is cleared so the browser stops sending it.
  if (request.cookies[SESSION_COOKIE]) reply.clearCookie(SESSION_COOKIE, { path: '/' });
  return reply.header('cache-control', 'no-store').redirect(location, 302);
}
