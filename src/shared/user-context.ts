/**
 * `X-Svc-User-Context` (contract §6): who a request through the daemon acts for, signed by the control
 * plane with the sandbox token and checked by the daemon. Shared by both sides, so they cannot drift.
 *
 *   v1.<unix seconds>.<base64url(JSON {"user_id","project_id","session_id"})>.<hex HMAC-SHA256>
 *
 * The HMAC is keyed by the sandbox token over `v1.<unix seconds>.<payload>`; a value is accepted for
 * ±300 s around its time and compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const USER_CONTEXT_HEADER = 'x-svc-user-context';
export const USER_CONTEXT_MAX_SKEW_SECONDS = 300;

export interface UserContext {
  user_id: string;
  project_id: string;
  session_id: string;
}

function mac(sandboxToken: string, signed: string): string {
  return createHmac('sha256', sandboxToken).update(signed, 'utf8').digest('hex');
}

export function signUserContext(context: UserContext, sandboxToken: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const payload = Buffer.from(JSON.stringify({ user_id: context.user_id, project_id: context.project_id, session_id: context.session_id }), 'utf8').toString('base64url');
  const signed = `v1.${nowSeconds}.${payload}`;
  return `${signed}.${mac(sandboxToken, signed)}`;
}

export type UserContextCheck = { ok: true; context: UserContext } | { ok: false; reason: string };

/** Checks a header value; the reason says what is wrong without saying what the right value would be. */
export function verifyUserContext(value: string | undefined, sandboxToken: string, nowSeconds = Math.floor(Date.now() / 1000)): UserContextCheck {
  if (!value) return { ok: false, reason: 'The X-Svc-User-Context header is missing; requests reach the sandbox through the svc API, which adds it.' };
  const parts = value.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1' || !/^\d{1,12}$/.test(parts[1] ?? '') || !/^[A-Za-z0-9_-]+$/.test(parts[2] ?? '') || !/^[0-9a-f]{64}$/.test(parts[3] ?? '')) {
    return { ok: false, reason: 'The X-Svc-User-Context header is malformed: expected v1.<unix seconds>.<base64url payload>.<hex HMAC-SHA256>.' };
  }
  const [, time, payload, signature] = parts as [string, string, string, string];
  const expected = Buffer.from(mac(sandboxToken, `v1.${time}.${payload}`), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'The X-Svc-User-Context signature does not match this sandbox.' };
  if (Math.abs(nowSeconds - Number(time)) > USER_CONTEXT_MAX_SKEW_SECONDS) {
    return { ok: false, reason: `The X-Svc-User-Context header has expired (it is valid for ${USER_CONTEXT_MAX_SKEW_SECONDS} s around its time); send the request again.` };
  }
  let context: unknown;
  try {
    context = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'The X-Svc-User-Context payload is not JSON.' };
  }
  const fields = context as Record<string, unknown>;
  if (typeof fields !== 'object' || fields === null || typeof fields.user_id !== 'string' || typeof fields.project_id !== 'string' || typeof fields.session_id !== 'string') {
    return { ok: false, reason: 'The X-Svc-User-Context payload must name user_id, project_id and session_id.' };
  }
  return { ok: true, context: { user_id: fields.user_id, project_id: fields.project_id, session_id: fields.session_id } };
}
