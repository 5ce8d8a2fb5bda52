import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'user' | 'project' | 'sandbox';

const PREFIX: Record<TokenKind, string> = { user: 'svc_u_', project: 'svc_p_', sandbox: 'svc_s_' };

/** 32 random bytes in base64url: 256 bits, prefixed so a leaked token is recognisable (and greppable). */
export function generateToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

/**
 * Tokens carry 256 bits of entropy, so a fast unsalted hash is the right tool (as GitHub does): it is
 * indexable for lookup and useless to an attacker who steals the table.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
