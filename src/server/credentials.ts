/**
 * The one way in: every surface (the JSON API, the git host, the web pages, sign-in, and later the
 * webhook receiver's token fallback and the sandbox routes) reads credentials here, resolves them here,
 * and words its refusals here. A surface declares where it reads credentials from and which token kinds
 * it takes; a route may narrow the kinds (e.g. minting tokens acts for a person: user tokens only).
 * Sandbox tokens are refused everywhere no surface or route names them.
 */
import type { FastifyRequest } from 'fastify';
import { checkToken, type Principal, type TokenRefusal } from '../accounts/principal.js';
import type { TokenKind } from '../accounts/token-secrets.js';
import type { ActorContext, Services } from '../context.js';
import { AppError } from '../errors.js';
import { SIGN_IN_COOKIE, findSignIn } from '../accounts/sign-ins.js';

export type CredentialSource = 'bearer' | 'basic' | 'cookie';

export interface Surface {
  /** Where credentials are read from, in the order they are looked for. */
  sources: readonly CredentialSource[];
  /** The token kinds the surface takes. */
  accepts: readonly TokenKind[];
  /** How to send credentials here, for the refusal of a request that has none: "send …". */
  howToSend: string;
}

export const API_SURFACE: Surface = {
  sources: ['bearer'],
  accepts: ['user', 'project'],
  howToSend: 'send "Authorization: Bearer <token>" (the CLI reads SVC_CLI_TOKEN, or run svc login)',
};

export const GIT_SURFACE: Surface = {
  sources: ['basic', 'bearer'],
  accepts: ['user', 'project'],
  howToSend: 'use any user name and an svc token as the password',
};

export const PAGES_SURFACE: Surface = {
  sources: ['bearer', 'cookie'],
  accepts: ['user', 'project'],
  howToSend: 'sign in at /login, or send "Authorization: Bearer <token>"',
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The token kinds a route takes when narrower than its surface's (e.g. `['user']`). */
    tokenKinds?: readonly TokenKind[];
  }
}

/** A credential as the request presents it, before it is looked up. */
export type Presented =
  | { source: CredentialSource; secret: string }
  | { malformed: string }
  | null;

const KIND_NAMES: Record<TokenKind, string> = { user: 'user token (svc_u_…)', project: 'project token (svc_p_…)', sandbox: 'sandbox token (svc_s_…)' };

function basicSecret(encoded: string): string {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Any user name and the token as the password; a token given as the user name with no password works too, as on other git hosts.
  if (colon === -1) return decoded;
  return decoded.slice(colon + 1) || decoded.slice(0, colon);
}

/** The credential a request presents to a surface, read from the sources it accepts. */
export function presentedCredential(request: FastifyRequest, surface: Surface): Presented {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const bearer = /^Bearer(?:\s+(\S*))?\s*$/i.exec(header);
    if (bearer && surface.sources.includes('bearer')) return { source: 'bearer', secret: bearer[1] ?? '' };
    const basic = /^Basic\s+([A-Za-z0-9+/=]*)\s*$/i.exec(header);
    if (basic && surface.sources.includes('basic')) return { source: 'basic', secret: basicSecret(basic[1] ?? '') };
    const forms = surface.sources.filter((source) => source !== 'cookie').map((source) => (source === 'bearer' ? '"Bearer <token>"' : '"Basic <base64 of name:token>"'));
    return { malformed: `The Authorization header must be ${forms.join(' or ')}.` };
  }
  if (surface.sources.includes('cookie')) {
    const secret = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[SIGN_IN_COOKIE];
    if (secret) return { source: 'cookie', secret };
  }
  return null;
}

/** The sentence of each refusal, the same on every surface. */
export const refusals = {
  missing: (surface: Surface) => `This needs a token: ${surface.howToSend}.`,
  empty: (surface: Surface) => `The token is empty: ${surface.howToSend}, with the token after it (is the variable holding it set?).`,
  unknown: () => 'The token is not recognised: it is mistyped, revoked or expired.',
  sessionEnded: () => 'Your sign-in has ended (signed out, expired or ended by an administrator); sign in again.',
  userDisabled: (userName: string) => `This token belongs to user ${userName}, whom an administrator has disabled; it no longer works.`,
  creatorLostAccess: (userName: string, projectSlug: string) =>
    `This token no longer works: ${userName}, who created it, no longer has access to project ${projectSlug}. Ask an admin of the project for a new token.`,
  wrongKind: (kind: TokenKind, accepts: readonly TokenKind[]) => {
    if (kind === 'sandbox') return 'A sandbox token is accepted only on sandbox-identity routes; call this route with the project token in SVC_CLI_TOKEN.';
    const wanted = accepts.map((accepted) => KIND_NAMES[accepted]).join(' or ');
    const hint = kind === 'project' && accepts.includes('user') ? ', which acts only inside its project. Call it with your own user token' : '';
    return `This route needs a ${wanted}; this is a ${KIND_NAMES[kind]}${hint}.`;
  },
} as const;

function refusalMessage(refusal: TokenRefusal): string {
  switch (refusal.reason) {
    case 'user-disabled':
      return refusals.userDisabled(refusal.userName);
    case 'creator-lost-access':
      return refusals.creatorLostAccess(refusal.userName, refusal.projectSlug);
    default:
      return refusals.unknown();
  }
}

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message);
}

/**
 * The actor of a request on a surface; null when it presents no credentials at all (a page then sends
 * the browser to sign in). Anything presented that does not act is refused with 401 and why.
 */
export async function actorFor(services: Services, request: FastifyRequest, surface: Surface, accepts: readonly TokenKind[] = surface.accepts): Promise<ActorContext | null> {
  const presented = presentedCredential(request, surface);
  if (presented === null) return null;
  if ('malformed' in presented) throw unauthenticated(presented.malformed);
  if (presented.secret.trim() === '') throw unauthenticated(refusals.empty(surface));
  if (presented.source === 'cookie') {
    const principal = await findSignIn(services, presented.secret);
    if (!principal) throw unauthenticated(refusals.sessionEnded());
    return { ...services, actor: principal };
  }
  const check = await checkToken(services.db, presented.secret, services.config.tokenCacheMs);
  if ('refusal' in check) throw unauthenticated(refusalMessage(check.refusal));
  if (!accepts.includes(check.principal.kind)) throw unauthenticated(refusals.wrongKind(check.principal.kind, accepts));
  return { ...services, actor: check.principal };
}

/** Like actorFor, but a request without credentials is refused too. */
export async function requireActor(services: Services, request: FastifyRequest, surface: Surface, accepts?: readonly TokenKind[]): Promise<ActorContext> {
  const ctx = await actorFor(services, request, surface, accepts);
  if (!ctx) throw unauthenticated(refusals.missing(surface));
  return ctx;
}

/** The sandbox-identity routes (contract §6): the daemon's own sandbox token, and nothing else. */
export const SANDBOX_SURFACE: Surface = {
  sources: ['bearer'],
  accepts: ['sandbox'],
  howToSend: 'send "Authorization: Bearer $SVC_SANDBOX_TOKEN"',
};

/**
 * A token pasted where only some kinds act (the sign-in form takes user tokens): its principal, or the
 * same refusal sentence the other surfaces give.
 */
export async function tokenOfKinds(services: Pick<Services, 'db' | 'config'>, token: string, accepts: readonly TokenKind[]): Promise<{ principal: Principal } | { refusal: string }> {
  const check = await checkToken(services.db, token, services.config.tokenCacheMs);
  if ('refusal' in check) return { refusal: refusalMessage(check.refusal) };
  if (!accepts.includes(check.principal.kind)) return { refusal: refusals.wrongKind(check.principal.kind, accepts) };
  return check;
}
