/**
 * GET|POST /login and POST /logout. People sign in with their user name and password, or by pasting a
 * user token (the admin has no password and signs in with its token). Success sets the session cookie.
 *
 * Cross-site form posts are refused: the cookie is SameSite=Lax, and a POST whose Origin (or Referer)
 * names another site gets 403, so no other site can sign a visitor in or out.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoginThrottle, Refusal } from '../accounts/login-throttle.js';
import type { Services } from '../context.js';
import { tokenOfKinds } from '../server/credentials.js';
import { escapeAttr, escapeHtml } from '../dashboards/render/escape.js';
import { AppError } from '../errors.js';
import { originOf, safeNextPath } from './http-helpers.js';
import { renderPage } from './layout.js';
import { SIGN_IN_COOKIE, SIGN_IN_LIFETIME_SECONDS, createSignIn, deleteSignIn, findSignIn, userForPassword } from '../accounts/sign-ins.js';
import { sendPage } from './send-page.js';

interface LoginForm {
  name: string;
  error?: string;
  tokenError?: string;
  next: string;
}

function renderLoginPage(form: LoginForm): ReturnType<typeof renderPage> {
  const next = `<input type="hidden" name="next" value="${escapeAttr(form.next)}">`;
  const error = form.error ? `<p class="form-error" role="alert">${escapeHtml(form.error)}</p>` : '';
  const tokenError = form.tokenError ? `<p class="form-error" role="alert">${escapeHtml(form.tokenError)}</p>` : '';
  const body =
    `<div class="auth"><div class="auth-card"><a class="brand" href="/"><span class="brand-mark" aria-hidden="true">s</span>svc</a>` +
    `<h1>Sign in</h1><p class="lede">Review your agents’ work, talk to them, and read their dashboards.</p>${error}` +
    `<form method="post" action="/login" class="login-password">${next}` +
    `<div class="form-row"><label for="login-name">User name</label><input class="input" id="login-name" name="name" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeAttr(form.name)}"${form.tokenError ? '' : ' autofocus'}></div>` +
    `<div class="form-row"><label for="login-password">Password</label><input class="input" id="login-password" type="password" name="password" autocomplete="current-password" required></div>` +
    `<button class="btn btn-primary" type="submit">Sign in</button></form>` +
    `<div class="divider">or</div>` +
    `<details class="token-login"${form.tokenError ? ' open' : ''}><summary>Sign in with a user token</summary>${tokenError}` +
    `<form method="post" action="/login" class="login-token">${next}` +
    `<div class="form-row"><label for="login-token">User token</label><input class="input" id="login-token" type="password" name="token" autocomplete="off" spellcheck="false" placeholder="svc_u_…" required></div>` +
    `<button class="btn btn-primary" type="submit">Sign in with token</button>` +
    `<p class="hint">The admin has no password: use its token (printed at first start and kept in <code>&lt;data-dir&gt;/admin-token</code>).</p></form></details>` +
    `</div></div>`;
  return renderPage({ title: 'Sign in', body, bare: true, signedIn: false });
}

function formField(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * A form post from another site is refused. Browsers send Origin on every POST (Referer as a fallback
 * when a privacy setting strips it); clients that send neither are not browsers and carry no cookies.
 */
export function isSameOriginPost(request: FastifyRequest, baseUrl: string): boolean {
  const origin = request.headers.origin ?? (request.headers.referer ? originOf(request.headers.referer) : undefined);
  if (origin === undefined) return true;
  if (origin === null || origin === 'null') return false;
  return origin === originOf(baseUrl) || origin === `${request.protocol}://${request.host}`;
}

function requireSameOrigin(request: FastifyRequest, baseUrl: string): void {
  if (!isSameOriginPost(request, baseUrl)) {
    throw new AppError('FORBIDDEN', 'This form was posted from another site; sign in from this site’s own sign-in page.');
  }
}

/** The name token sign-ins are counted under (no user name can contain parentheses). */
const TOKEN_SIGN_IN = '(token)';

function minutes(seconds: number): string {
  const count = Math.ceil(seconds / 60);
  return count === 1 ? '1 minute' : `${count} minutes`;
}

function refusalMessage(refusal: Refusal): string {
  return refusal.reason === 'address'
    ? `Too many failed sign-ins from your address. Try again in ${minutes(refusal.retryAfterSeconds)}.`
    : `Too many failed sign-ins for this name from your address. Try again in ${minutes(refusal.retryAfterSeconds)}, or ask an admin to set a new password.`;
}

function setSessionCookie(reply: FastifyReply, secret: string, secure: boolean): void {
  reply.setCookie(SIGN_IN_COOKIE, secret, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: SIGN_IN_LIFETIME_SECONDS });
}

export function loginRoutes(app: FastifyInstance, services: Services, throttle: LoginThrottle): void {
  const secureCookies = () => services.config.baseUrl.startsWith('https:');

  app.get('/login', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const next = safeNextPath(query.next);
    const secret = request.cookies[SIGN_IN_COOKIE];
    if (secret && (await findSignIn(services, secret))) return reply.redirect(next, 303);
    return sendPage(reply, 200, renderLoginPage({ name: '', next }));
  });

  app.post('/login', { schema: { hide: true } }, async (request, reply) => {
    requireSameOrigin(request, services.config.baseUrl);
    const next = safeNextPath(formField(request.body, 'next'));
    const token = formField(request.body, 'token').trim();
    const name = formField(request.body, 'name').trim();
    // Token failures are counted under one name of their own: a token names no user until it works.
    const throttled = token ? TOKEN_SIGN_IN : name;
    const refusal = await throttle.refusal(throttled, request.ip);
    if (refusal) {
      reply.header('retry-after', String(refusal.retryAfterSeconds));
      return sendPage(reply, 429, renderLoginPage({ name, next, ...(token ? { tokenError: refusalMessage(refusal) } : { error: refusalMessage(refusal) }) }));
    }
    let user: { id: string; accountId: string } | null = null;
    if (token) {
      const found = await tokenOfKinds(services, token, ['user']);
      if ('refusal' in found) {
        await throttle.failed(throttled, request.ip);
        return sendPage(reply, 401, renderLoginPage({ name, next, tokenError: found.refusal }));
      }
      user = { id: found.principal.userId, accountId: found.principal.accountId };
    } else {
      const password = formField(request.body, 'password');
      user = name && password ? await userForPassword(services, { name, password }) : null;
      if (!user) {
        if (name && password) await throttle.failed(throttled, request.ip);
        const error = name && password ? 'The user name or password is wrong.' : 'Enter your user name and password.';
        return sendPage(reply, 401, renderLoginPage({ name, next, error }));
      }
    }
    await throttle.succeeded(throttled, request.ip);
    const session = await createSignIn(services, user);
    setSessionCookie(reply, session.secret, secureCookies());
    return reply.header('cache-control', 'no-store').redirect(next, 303);
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    requireSameOrigin(request, services.config.baseUrl);
    const secret = request.cookies[SIGN_IN_COOKIE];
    if (secret) await deleteSignIn(services, secret);
    reply.clearCookie(SIGN_IN_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: secureCookies() });
    return reply.header('cache-control', 'no-store').redirect('/login', 303);
  });
}
