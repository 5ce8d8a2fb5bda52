import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

/**
 * Sign-in throttling counts failures by the client's address: the connection's, or behind a trusted
 * proxy (SVC_TRUST_PROXY) the client it names in X-Forwarded-For, which is ignored otherwise.
 */
async function signIn(svc: TestServer, password: string, forwardedFor: string): Promise<number> {
  const response = await fetch(`${svc.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
    body: new URLSearchParams({ name: 'target', password }).toString(),
    redirect: 'manual',
  });
  await response.arrayBuffer();
  return response.status;
}

/** Ten wrong passwords for one name, each claiming another client address. */
async function failTenTimes(svc: TestServer, forwardedFor: (attempt: number) => string): Promise<void> {
  expect((await svc.request('POST', '/v1/users', { body: { name: 'target', password: 'the right password' } })).status).toBe(201);
  for (let attempt = 1; attempt <= 10; attempt += 1) expect(await signIn(svc, `guess ${attempt}`, forwardedFor(attempt))).toBe(401);
}

async function withServer(env: Record<string, string>, test: (svc: TestServer) => Promise<void>): Promise<void> {
  const svc = await startTestServer({ env });
  try {
    await test(svc);
  } finally {
    await svc.close();
  }
}

describe(`sign-in throttling behind a proxy on ${testDialect}`, () => {
  it('ignores X-Forwarded-For unless a proxy is trusted: a spoofed header does not escape the throttle', async () => {
    await withServer({}, async (svc) => {
      await failTenTimes(svc, (attempt) => `203.0.113.${attempt}`);
      expect(await signIn(svc, 'the right password', '203.0.113.99')).toBe(429);
    });
  });

  it('counts each client a trusted proxy names on its own', async () => {
    await withServer({ SVC_TRUST_PROXY: '127.0.0.1,::1' }, async (svc) => {
      await failTenTimes(svc, () => '203.0.113.7');
      expect(await signIn(svc, 'the right password', '203.0.113.7')).toBe(429);
      // Another client behind the same proxy is not blocked by the first one's failures.
      expect(await signIn(svc, 'the right password', '198.51.100.4')).toBe(303);
    });
  });

  it('trusts as many hops as a count says, and only those', async () => {
    await withServer({ SVC_TRUST_PROXY: '1' }, async (svc) => {
      // One trusted hop: the client is the last address the proxy appended, not what the client claimed before it.
      await failTenTimes(svc, (attempt) => `10.9.9.${attempt}, 203.0.113.7`);
      expect(await signIn(svc, 'the right password', '10.0.0.1, 203.0.113.7')).toBe(429);
      expect(await signIn(svc, 'the right password', '198.51.100.4')).toBe(303);
    });
  });

  it('takes true, false, a hop count, addresses and CIDR ranges, and refuses anything else at start', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ SVC_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ SVC_TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8,loopback' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16', 'fd00::/8', 'loopback']);
    expect(() => loadConfig({ SVC_TRUST_PROXY: '10.0.0.0/33' })).toThrow(
      'SVC_TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses and CIDR ranges such as 10.0.0.1,192.168.0.0/16 (got "10.0.0.0/33"; "10.0.0.0/33" is none of these)',
    );
    expect(() => loadConfig({ SVC_TRUST_PROXY: 'proxy.example' })).toThrow('SVC_TRUST_PROXY must be');
  });
});
