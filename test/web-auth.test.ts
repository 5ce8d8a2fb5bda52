import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiredLoginFailuresSweep } from '../src/accounts/login-throttle.js';
import { generateToken, hashToken } from '../src/accounts/token-secrets.js';
import { newId } from '../src/ids.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let memberToken: string;

beforeAll(async () => {
  svc = await startTestServer();
  const created = await svc.request('POST', '/v1/users', { body: { name: 'grace', password: 'correct horse battery' } });
  memberToken = created.body.token;
  await svc.request('POST', '/api/dashboards', { body: { slug: 'weekly', title: 'Weekly report' } });
});
afterAll(async () => {
  await svc.close();
});

interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A browser-like request that does not follow redirects, so each hop can be checked. */
async function page(path: string, init: { method?: string; cookie?: string; token?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<PageResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await fetch(svc.url + path, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** `name=value` of the session cookie set by a response. */
function sessionCookie(response: PageResponse): string {
  const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith('svc_session='));
  if (!setCookie) throw new Error('no session cookie was set');
  return setCookie.split(';')[0] ?? '';
}

describe(`web sign-in on ${testDialect}`, () => {
  it('sends visitors without credentials to /login, remembering where they were going', async () => {
    const index = await page('/d');
    expect(index.status).toBe(302);
    expect(index.headers.get('location')).toBe('/login');
    const dashboard = await page('/d/weekly?print=1');
    expect(dashboard.status).toBe(302);
    expect(dashboard.headers.get('location')).toBe('/login?next=%2Fd%2Fweekly%3Fprint%3D1');
    expect((await page('/')).headers.get('location')).toBe('/login');
  });

  it('shows a sign-in form with both ways in, carrying a local next path only', async () => {
    const form = await page('/login?next=%2Fd%2Fweekly');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toContain('text/html');
    expect(form.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(form.text).toContain('name="name"');
    expect(form.text).toContain('type="password" name="password"');
    expect(form.text).toContain('name="token"');
    expect(form.text).toContain('<input type="hidden" name="next" value="/d/weekly">');
    for (const hostile of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/login']) {
      const response = await page(`/login?next=${encodeURIComponent(hostile)}`);
      expect(response.text).toContain('<input type="hidden" name="next" value="/">');
      expect(response.text).not.toContain('evil.example');
    }
    const quoted = await page(`/login?next=${encodeURIComponent('/d/"><script>alert(1)</script>')}`);
    expect(quoted.text).toContain('value="/d/%22%3E%3Cscript%3Ealert(1)%3C/script%3E"');
    expect(quoted.text).not.toContain('<script>alert(1)');
  });

  it('signs in with a user name and password and sets a hardened session cookie', async () => {
    const response = await page('/login', { method: 'POST', form: { name: 'grace', password: 'correct horse battery', next: '/d/weekly' } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/d/weekly');
    const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith('svc_session=')) ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Max-Age=2592000/);
    expect(setCookie).not.toMatch(/Secure/i);
    const cookie = sessionCookie(response);

    const dashboard = await page('/d/weekly', { cookie });
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Weekly report');

    // Only the hash of the cookie is stored.
    const secret = cookie.slice('svc_session='.length);
    const rows = await svc.server.services.db.selectFrom('sign_ins').select(['id_hash', 'expires_at']).execute();
    expect(rows.some((row) => row.id_hash === hashToken(secret))).toBe(true);
    expect(rows.some((row) => row.id_hash === secret)).toBe(false);
    const expiry = rows.find((row) => row.id_hash === hashToken(secret))?.expires_at ?? '';
    expect(Date.parse(expiry) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
  });

  it('redirects to a next path outside Latin-1 percent-encoded, as a path on this site', async () => {
    const signedIn = await page('/login', { method: 'POST', form: { name: 'grace', password: 'correct horse battery', next: '/。evil.example/é?q=ü' } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/%E3%80%82evil.example/%C3%A9?q=%C3%BC');
    const again = await page(`/login?next=${encodeURIComponent('/d/weekly?by=négligé')}`, { cookie: sessionCookie(signedIn) });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/d/weekly?by=n%C3%A9glig%C3%A9');
    const dotted = await page(`/login?next=${encodeURIComponent('/d/../login')}`, { cookie: sessionCookie(signedIn) });
    expect(dotted.headers.get('location')).toBe('/');
  });

  it('never sends a signed-in browser off-site, however next spells another host', async () => {
    const signedIn = await page('/login', { method: 'POST', form: { token: svc.adminToken } });
    const cookie = sessionCookie(signedIn);
    // Each resolves, as a browser resolves a Location, to another host (or to sign-in again).
    const hostile = [
      '/d/..//evil.example',
      '/d/../..//evil.example/x',
      '/d/%2e%2e//evil.example',
      '/d/%2E%2E/%2Fevil.example',
      '/d/.%2e//evil.example',
      '/d/./..//evil.example',
      '/d/%252e%252e//evil.example',
      '/%2f%2fevil.example',
      '/%2fevil.example',
      '/%5cevil.example',
      '/\\evil.example',
      '/d/..\\/evil.example',
      '/\t/evil.example',
      '/%09/evil.example',
      '/\n/evil.example',
      '/%0a/evil.example',
      '/d/%2e%2e/login',
    ];
    for (const next of hostile) {
      // Given as the query string of a link (encoded once, and also as written) and as the form's field.
      for (const query of [encodeURIComponent(next), next.replace(/[\t\n]/g, encodeURIComponent)]) {
        const again = await page(`/login?next=${query}`, { cookie });
        expect(again.status, `GET /login?next=${query}`).toBe(303);
        expect(again.headers.get('location'), `GET /login?next=${query}`).toBe('/');
      }
      const form = await page(`/login?next=${encodeURIComponent(next)}`);
      expect(form.text, next).toContain('<input type="hidden" name="next" value="/">');
      const posted = await page('/login', { method: 'POST', form: { token: svc.adminToken, next } });
      expect(posted.status, `POST next=${next}`).toBe(303);
      expect(posted.headers.get('location'), `POST next=${next}`).toBe('/');
    }
    // Paths of this site still work, dot segments resolved.
    const local = await page(`/login?next=${encodeURIComponent('/d/x/../weekly?print=1')}`, { cookie });
    expect(local.headers.get('location')).toBe('/d/weekly?print=1');
  });

  it('refuses a wrong password or an unknown user with the same message', async () => {
    const wrong = await page('/login', { method: 'POST', form: { name: 'grace', password: 'wrong password', next: '/d' } });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The user name or password is wrong.');
    expect(wrong.text).toContain('value="grace"');
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const unknown = await page('/login', { method: 'POST', form: { name: 'nobody', password: 'whatever it is', next: '/d' } });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('The user name or password is wrong.');
    // The admin has no password: it can only sign in with its token.
    expect((await page('/login', { method: 'POST', form: { name: 'admin', password: 'anything at all' } })).status).toBe(401);
  });

  it('blocks a name at one address for 15 minutes after ten wrong passwords, even with the right one', async () => {
    await svc.request('POST', '/v1/users', { body: { name: 'target', password: 'the right password' } });
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const wrong = await page('/login', { method: 'POST', form: { name: 'target', password: `guess ${attempt}`, next: '/d' } });
      expect(wrong.status).toBe(401);
    }
    const blocked = await page('/login', { method: 'POST', form: { name: 'target', password: 'the right password', next: '/d' } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(blocked.text).toContain('Too many failed sign-ins for this name from your address. Try again in 15 minutes, or ask an admin to set a new password.');
    expect(blocked.headers.getSetCookie().some((cookie) => cookie.startsWith('svc_session='))).toBe(false);
    // Another name from the same address still signs in, and a success clears its own count.
    const other = await page('/login', { method: 'POST', form: { name: 'grace', password: 'correct horse battery', next: '/d' } });
    expect(other.status).toBe(303);
    // A name no user can have (NUL, which PostgreSQL cannot compare with) is refused before it is looked up.
    const odd = await page('/login', { method: 'POST', form: { name: 'nul\u0000name', password: 'x', next: '/d' } });
    expect(odd.status).toBe(400);
    expect(odd.text).toContain('The form field &quot;name&quot; has a NUL character (U+0000)');

    // The sweep of run-out counts (every 5 minutes, on one replica) keeps a block until it ran out an hour ago.
    const sweep = (now: Date) => expiredLoginFailuresSweep.run({ services: svc.server.services, now, signal: new AbortController().signal, holder: 'test' });
    await sweep(new Date());
    expect((await page('/login', { method: 'POST', form: { name: 'target', password: 'the right password', next: '/d' } })).status).toBe(429);
    await sweep(new Date(Date.now() + 3 * 60 * 60 * 1000));
    expect((await page('/login', { method: 'POST', form: { name: 'target', password: 'the right password', next: '/d' } })).status).toBe(303);
  });

  it('signs in with a user token (the admin’s, or a member’s)', async () => {
    for (const token of [svc.adminToken, memberToken]) {
      const response = await page('/login', { method: 'POST', form: { token, next: '/d' } });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/d');
      const index = await page('/d', { cookie: sessionCookie(response) });
      expect(index.status).toBe(200);
      expect(index.text).toContain('Weekly report');
    }
  });

  it('refuses unknown tokens and project tokens on the form', async () => {
    const unknown = await page('/login', { method: 'POST', form: { token: 'svc_u_not-a-real-token' } });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('The token is not recognised: it is mistyped, revoked or expired.');
    const project = (await svc.request('POST', '/v1/projects', { body: { name: 'Web auth' } })).body.project;
    const projectToken = (await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'p', capabilities: ['project.read'] } })).body.token;
    const refused = await page('/login', { method: 'POST', form: { token: projectToken } });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('This route needs a user token (svc_u_…); this is a project token (svc_p_…), which acts only inside its project.');
  });

  it('refuses sign-in and sign-out posted from another site', async () => {
    const forged = await page('/login', { method: 'POST', form: { token: svc.adminToken }, headers: { origin: 'https://evil.example' } });
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    const viaReferer = await page('/login', { method: 'POST', form: { token: svc.adminToken }, headers: { referer: 'https://evil.example/page' } });
    expect(viaReferer.status).toBe(403);
    const sameSite = await page('/login', { method: 'POST', form: { token: svc.adminToken }, headers: { origin: svc.url } });
    expect(sameSite.status).toBe(303);
    const logout = await page('/logout', { method: 'POST', cookie: sessionCookie(sameSite), headers: { origin: 'https://evil.example' } });
    expect(logout.status).toBe(403);
  });

  it('signs out: the session is deleted and the cookie cleared', async () => {
    const signedIn = await page('/login', { method: 'POST', form: { token: svc.adminToken } });
    const cookie = sessionCookie(signedIn);
    expect((await page('/d', { cookie })).status).toBe(200);
    const logout = await page('/logout', { method: 'POST', cookie });
    expect(logout.status).toBe(303);
    expect(logout.headers.get('location')).toBe('/login');
    expect(logout.headers.getSetCookie().some((value) => value.startsWith('svc_session=;') && /Expires=Thu, 01 Jan 1970/i.test(value))).toBe(true);
    const after = await page('/d', { cookie });
    expect(after.status).toBe(302);
    expect(after.headers.get('location')).toBe('/login');
  });

  it('redirects a signed-in visitor away from the form, and ignores forged or expired cookies', async () => {
    const signedIn = await page('/login', { method: 'POST', form: { token: svc.adminToken } });
    const again = await page('/login?next=%2Fd%2Fweekly', { cookie: sessionCookie(signedIn) });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/d/weekly');

    expect((await page('/d', { cookie: 'svc_session=forged-value' })).status).toBe(302);
    const expiredSecret = 'expired-session-secret-value';
    const admin = await svc.server.services.db.selectFrom('users').select(['id', 'account_id']).where('name', '=', 'admin').executeTakeFirstOrThrow();
    await svc.server.services.db
      .insertInto('sign_ins')
      .values({ id_hash: hashToken(expiredSecret), user_id: admin.id, account_id: admin.account_id, created_at: '2020-01-01T00:00:00.000Z', expires_at: '2020-02-01T00:00:00.000Z' })
      .execute();
    const expired = await page('/d', { cookie: `svc_session=${expiredSecret}` });
    expect(expired.status).toBe(302);
    expect(expired.headers.getSetCookie().some((value) => value.startsWith('svc_session=;'))).toBe(true);
  });

  it('accepts bearer tokens on pages: 401 for unknown and sandbox tokens, 403 without a read capability', async () => {
    expect((await page('/d/weekly', { token: svc.adminToken })).status).toBe(200);
    const unknown = await page('/d/weekly', { token: 'svc_u_unknown' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('content-type')).toContain('text/html');
    expect(unknown.text).toContain('Sign in to continue');

    const project = (await svc.request('POST', '/v1/projects', { body: { name: 'Page access' } })).body.project;
    const mint = async (capabilities: string[]) =>
      (await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 't', capabilities } })).body.token as string;
    expect((await page('/d/weekly', { token: await mint(['project.read']) })).status).toBe(200);
    expect((await page('/d', { token: await mint(['dashboards.publish']) })).status).toBe(200);
    const writer = await page('/d/weekly', { token: await mint(['project.write']) });
    expect(writer.status).toBe(403);
    expect(writer.text).toContain('You do not have access to this');
    expect((await page('/d', { token: await mint(['sessions.write']) })).status).toBe(403);

    const sandboxToken = generateToken('sandbox');
    const admin = await svc.server.services.db.selectFrom('users').select(['id', 'account_id']).where('name', '=', 'admin').executeTakeFirstOrThrow();
    await svc.server.services.db
      .insertInto('tokens')
      .values({
        id: newId(),
        account_id: admin.account_id,
        kind: 'sandbox',
        name: 'sandbox',
        token_hash: hashToken(sandboxToken),
        user_id: admin.id,
        project_id: project.id,
        capabilities: JSON.stringify(['project.read', 'dashboards.publish']),
        created_at: new Date().toISOString(),
        expires_at: null,
      })
      .execute();
    expect((await page('/d/weekly', { token: sandboxToken })).status).toBe(401);
    expect((await page('/d', { token: sandboxToken })).status).toBe(401);
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    const secure = await startTestServer();
    // The harness always serves on its own http URL; the public URL is what a proxy in front would be.
    secure.server.services.config.baseUrl = 'https://svc.example.com';
    try {
      const response = await fetch(`${secure.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://svc.example.com' },
        body: new URLSearchParams({ token: secure.adminToken }).toString(),
        redirect: 'manual',
      });
      expect(response.status).toBe(303);
      expect(response.headers.getSetCookie().find((value) => value.startsWith('svc_session='))).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });
});
