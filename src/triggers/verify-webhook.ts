/**
 * Spec 3 authentication 4–6: `X-Svc-Signature` or `X-Hub-Signature-256`, `sha256=` optional, exactly 64 hex
 * characters in any case, HMAC-SHA256 of the raw body keyed with the trigger's secret, compared in constant
 * time. Only when neither signature header is present, the secret itself as a token: `X-Svc-Token`,
 * `Authorization: Bearer`, or the password of `Authorization: Basic`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookCheck = { ok: true; method: 'signature' | 'token' } | { ok: false; message: string };

type Headers = Record<string, string | string[] | undefined>;

const HEX_64 = /^[0-9a-f]{64}$/i;

function single(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** HMAC-SHA256 of the body keyed with the secret: the signature's bytes. */
function webhookDigest(secret: string, rawBody: Buffer): Buffer {
  return createHmac('sha256', secret).update(rawBody).digest();
}

export function webhookSignature(secret: string, rawBody: Buffer): string {
  return webhookDigest(secret, rawBody).toString('hex');
}

/** Equal-length digests of both sides, so neither the comparison nor its length says anything about the secret. */
function secretsEqual(given: string, secret: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(secret).digest());
}

export function verifyWebhook(secret: string, rawBody: Buffer, headers: Headers): WebhookCheck {
  const svcSignature = single(headers, 'x-svc-signature');
  const hubSignature = single(headers, 'x-hub-signature-256');
  const given = svcSignature ?? hubSignature;
  if (given !== undefined) {
    const header = svcSignature !== undefined ? 'X-Svc-Signature' : 'X-Hub-Signature-256';
    const hex = given.trim().replace(/^sha256=/i, '');
    if (!HEX_64.test(hex)) {
      return { ok: false, message: `${header} must be sha256= followed by the 64 hex characters of the HMAC-SHA256 of the body; got ${hex.length} characters.` };
    }
    const expected = webhookDigest(secret, rawBody);
    if (!timingSafeEqual(Buffer.from(hex, 'hex'), expected)) {
      return { ok: false, message: `${header} does not match the body: sign the exact bytes sent with the secret in the trigger's secret_env.` };
    }
    return { ok: true, method: 'signature' };
  }
  const token = staticToken(headers);
  if (token === undefined) {
    return {
      ok: false,
      message: 'The webhook is not signed: send X-Hub-Signature-256 or X-Svc-Signature (sha256=<HMAC-SHA256 of the body>), or the secret as X-Svc-Token or Authorization: Bearer.',
    };
  }
  if (!secretsEqual(token, secret)) return { ok: false, message: "The webhook token does not match the secret in the trigger's secret_env." };
  return { ok: true, method: 'token' };
}

function staticToken(headers: Headers): string | undefined {
  const svcToken = single(headers, 'x-svc-token');
  if (svcToken !== undefined) return svcToken;
  const authorization = single(headers, 'authorization')?.trim();
  if (!authorization) return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}
