import { describe, expect, it } from 'vitest';
import { verifyWebhook, webhookSignature } from './verify-webhook.js';

/** GitHub's published example (docs: "Validating webhook deliveries"). */
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_PAYLOAD = Buffer.from('Hello, World!');
const GITHUB_SIGNATURE = '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('webhook signatures and tokens (spec 3 authentication 4-6)', () => {
  it("computes GitHub's published test vector", () => {
    expect(webhookSignature(GITHUB_SECRET, GITHUB_PAYLOAD)).toBe(GITHUB_SIGNATURE);
  });

  it('accepts either header, with or without sha256=, in any case', () => {
    for (const headers of [
      { 'x-hub-signature-256': `sha256=${GITHUB_SIGNATURE}` },
      { 'x-svc-signature': `sha256=${GITHUB_SIGNATURE}` },
      { 'x-svc-signature': GITHUB_SIGNATURE.toUpperCase() },
      { 'x-hub-signature-256': `sha256=${GITHUB_SIGNATURE.slice(0, 32).toUpperCase()}${GITHUB_SIGNATURE.slice(32)}` },
    ]) {
      expect(verifyWebhook(GITHUB_SECRET, GITHUB_PAYLOAD, headers)).toEqual({ ok: true, method: 'signature' });
    }
  });

  it('refuses a wrong, short or non-hex signature, naming what to send', () => {
    const wrong = verifyWebhook(GITHUB_SECRET, Buffer.from('Hello, World?'), { 'x-hub-signature-256': `sha256=${GITHUB_SIGNATURE}` });
    expect(wrong).toEqual({ ok: false, message: "X-Hub-Signature-256 does not match the body: sign the exact bytes sent with the secret in the trigger's secret_env." });
    const short = verifyWebhook(GITHUB_SECRET, GITHUB_PAYLOAD, { 'x-svc-signature': `sha256=${GITHUB_SIGNATURE.slice(1)}` });
    expect(short).toEqual({ ok: false, message: 'X-Svc-Signature must be sha256= followed by the 64 hex characters of the HMAC-SHA256 of the body; got 63 characters.' });
    expect(verifyWebhook(GITHUB_SECRET, GITHUB_PAYLOAD, { 'x-svc-signature': 'z'.repeat(64) }).ok).toBe(false);
  });

  it('takes the secret as a token only when no signature header is present', () => {
    expect(verifyWebhook('s3cret', GITHUB_PAYLOAD, { 'x-svc-token': 's3cret' })).toEqual({ ok: true, method: 'token' });
    expect(verifyWebhook('s3cret', GITHUB_PAYLOAD, { authorization: 'Bearer s3cret' })).toEqual({ ok: true, method: 'token' });
    const basic = `Basic ${Buffer.from('anyone:s3cret').toString('base64')}`;
    expect(verifyWebhook('s3cret', GITHUB_PAYLOAD, { authorization: basic })).toEqual({ ok: true, method: 'token' });
    expect(verifyWebhook('s3cret', GITHUB_PAYLOAD, { 'x-svc-token': 'other' })).toEqual({ ok: false, message: "The webhook token does not match the secret in the trigger's secret_env." });
    // A signature header present: the (right) token is ignored and the (wrong) signature decides.
    expect(verifyWebhook('s3cret', GITHUB_PAYLOAD, { 'x-svc-token': 's3cret', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }).ok).toBe(false);
    expect(verifyWebhook('s3cret', GITHUB_PAYLOAD, {})).toMatchObject({ ok: false, message: expect.stringContaining('The webhook is not signed') });
  });
});
