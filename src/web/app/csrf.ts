/**
 * Cross-site request protection for the app's forms (contract §9): the session cookie is SameSite=Lax,
 * a post must come from this site (Origin, else Referer), and every form carries a token derived from the
 * browser's session, which another site can neither read nor compute. A request authenticated by an
 * Authorization header carries no ambient credential, so it needs no form token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../../context.js';
import { AppError } from '../../errors.js';
import { escapeAttr } from '../../dashboards/render/escape.js';
import { sessionsOf } from '../../sessions/session-services.js';
import { isSameOriginPost } from '../login.js';
import { SIGN_IN_COOKIE } from '../../accounts/sign-ins.js';

export const CSRF_FIELD = '_csrf';

/** The form token of the browser session `cookie`: the same for every form of the session. */
export function csrfTokenFor(services: Services, cookie: string): string {
  return createHmac('sha256', sessionsOf(services).secretKey).update(`svc web form\u0000${cookie}`).digest('base64url');
}

/** The token the pages of this request put in their forms ('' when the request carries no session cookie). */
export function csrfTokenOf(services: Services, request: FastifyRequest): string {
  const cookie = request.cookies[SIGN_IN_COOKIE];
  return cookie ? csrfTokenFor(services, cookie) : '';
}

export function csrfField(token: string): string {
  return token ? `<input type="hidden" name="${CSRF_FIELD}" value="${escapeAttr(token)}">` : '';
}

const REFUSED = 'This form was not sent from a page of this site, or the page is from an earlier sign-in; reload the page and send it again.';

/** Refuses (403) a form post that could have been forged by another site. */
export function requireFormToken(services: Services, request: FastifyRequest): void {
  if (request.headers.authorization !== undefined && request.cookies[SIGN_IN_COOKIE] === undefined) return;
  if (!isSameOriginPost(request, services.config.baseUrl)) throw new AppError('FORBIDDEN', REFUSED);
  const body = request.body as Record<string, unknown> | null | undefined;
  const sent = typeof body?.[CSRF_FIELD] === 'string' ? (body[CSRF_FIELD] as string) : '';
  const expected = csrfTokenOf(services, request);
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  if (expected === '' || a.length !== b.length || !timingSafeEqual(a, b)) throw new AppError('FORBIDDEN', REFUSED);
}
