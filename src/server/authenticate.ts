import type { FastifyRequest } from 'fastify';
import { authenticateToken } from '../accounts/principal.js';
import type { ActorContext, Services } from '../context.js';
import { AppError } from '../errors.js';

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Resolves the bearer token into the request's actor, or answers 401 with what to do about it. */
export async function authenticate(services: Services, request: FastifyRequest): Promise<ActorContext> {
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
