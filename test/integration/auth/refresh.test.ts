// Refresh-token rotation, reuse detection, concurrent refreshes, web cookie + CSRF, and logout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, cookieFrom, startTestApp, type TestApp } from '../../harness/test-app.js';
import { refreshMobile, signedInWebUser, webLogout, webRefresh } from '../../harness/sessions.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('non-web refresh', () => {
  it('rotates the refresh token on every use and returns the user', async () => {
    const session = await t.signUp();
    const first = await refreshMobile(t, session.refreshToken);
    expect(first.statusCode).toBe(200);
    expect(first.json.refreshToken).toEqual(expect.any(String));
    expect(first.json.refreshToken).not.toBe(session.refreshToken);
    expect(first.json.user.email).toBe(session.email);
    expect(first.json.csrfToken).toBeUndefined();

    const second = await refreshMobile(t, first.json.refreshToken);
    expect(second.statusCode).toBe(200);
    expect(second.json.refreshToken).not.toBe(first.json.refreshToken);

    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(second.json.accessToken),
    });
    expect(me.statusCode).toBe(200);
    expect(me.json.user).toMatchObject({ id: session.user.id, email: session.email, role: 'authenticated' });
  });

  it('accepts the snake_case refresh_token alias', async () => {
    const session = await t.signUp();
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/refresh?client_type=server',
      payload: { refresh_token: session.refreshToken },
    });
    expect(res.statusCode).toBe(200);
  });

  it('revokes the whole session when a rotated token is reused after the grace window', async () => {
    const session = await t.signUp();
    const rotated = await refreshMobile(t, session.refreshToken);
    expect(rotated.statusCode).toBe(200);
    t.clock.advance(11_000);

    const reuse = await refreshMobile(t, session.refreshToken);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401 });

    // The legitimate successor dies with the family.
    const successor = await refreshMobile(t, rotated.json.refreshToken);
    expect(successor.statusCode).toBe(401);
    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(rotated.json.accessToken),
    });
    expect(me.statusCode).toBe(401);
  });

  it('gives two concurrent refreshes of one token the same successor', async () => {
    const session = await t.signUp();
    const [a, b] = await Promise.all([refreshMobile(t, session.refreshToken), refreshMobile(t, session.refreshToken)]);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(a.json.refreshToken).toBe(b.json.refreshToken);
    const next = await refreshMobile(t, a.json.refreshToken);
    expect(next.statusCode).toBe(200);
  });

  it('rejects unknown, missing and expired refresh tokens', async () => {
    expect((await refreshMobile(t, 'not-a-token')).statusCode).toBe(401);
    const missing = await t.request({ method: 'POST', url: '/api/auth/refresh?client_type=mobile', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json.error).toBe('VALIDATION_ERROR');

    const session = await t.signUp();
    t.clock.advance((t.config.refreshTokenTtlSeconds + 1) * 1000);
    expect((await refreshMobile(t, session.refreshToken)).statusCode).toBe(401);
  });

  it('logout revokes the session: refresh then answers 401', async () => {
    const session = await t.signUp();
    const out = await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      payload: { refreshToken: session.refreshToken },
    });
    expect(out.statusCode).toBe(200);
    expect(out.json).toEqual({ success: true, message: 'Logged out successfully' });
    expect((await refreshMobile(t, session.refreshToken)).statusCode).toBe(401);
  });
});

describe('web refresh (cookie + CSRF)', () => {
  it('sets an httpOnly refresh cookie and returns a CSRF token, not the refresh token', async () => {
    const { res, csrf } = await signedInWebUser(t);
    const cookie = cookieFrom(res, 'svc_refresh_token');
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api/auth' });
    expect(csrf).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(res.json.refreshToken).toBeUndefined();
  });

  it('rotates cookie and CSRF token together', async () => {
    const { cookie, csrf } = await signedInWebUser(t);
    const res = await webRefresh(t, { cookie, csrf });
    expect(res.statusCode).toBe(200);
    const next = cookieFrom(res, 'svc_refresh_token')!.value;
    expect(next).not.toBe(cookie);
    expect(res.json.csrfToken).not.toBe(csrf);
    expect(res.json.accessToken).toEqual(expect.any(String));

    // The old CSRF token does not go with the new cookie.
    const stale = await webRefresh(t, { cookie: next, csrf });
    expect(stale.statusCode).toBe(403);
  });

  it.each([
    ['missing', undefined],
    ['wrong', 'not-the-csrf-token'],
  ])('answers 403 for a %s CSRF token and leaves the session usable', async (_label, header) => {
    const { cookie, csrf } = await signedInWebUser(t);
    const res = await webRefresh(t, { cookie, csrf: header });
    expect(res.statusCode).toBe(403);
    expect(res.json.error).toBe('FORBIDDEN');
    const ok = await webRefresh(t, { cookie, csrf });
    expect(ok.statusCode).toBe(200);
  });

  it('answers 401 without a cookie', async () => {
    const res = await webRefresh(t, { csrf: 'x' });
    expect(res.statusCode).toBe(401);
  });

  it('logout needs the CSRF token of a live cookie, then clears the cookie and revokes', async () => {
    const { cookie, csrf } = await signedInWebUser(t);
    const forged = await webLogout(t, { cookie });
    expect(forged.statusCode).toBe(403);

    const out = await webLogout(t, { cookie, csrf });
    expect(out.statusCode).toBe(200);
    expect(cookieFrom(out, 'svc_refresh_token')?.value).toBe('');

    const after = await webRefresh(t, { cookie, csrf });
    expect(after.statusCode).toBe(401);
  });
});

describe('refresh cost', () => {
  it('reads the refreshed session by its key, however many sessions the database holds', async () => {
    // The rotation function returns one row; planned as PostgreSQL's default of 1000, the refresh
    // statement (sessions.repo.ts) hashed all of auth.sessions on every refresh.
    const session = await t.signUp();
    await t.deps.sql`
      select count(auth.start_session(gen_random_uuid(), ${session.user.id}::uuid, null,
        decode(md5(random()::text), 'hex'), now(), interval '1 day'))
      from generate_series(1, 20000)`;
    await t.deps.sql`analyze auth.sessions`;
    const plan = await t.deps.sql.unsafe(
      `explain (format json)
       select r.outcome, s.aal, s.amr
       from auth.rotate_refresh_token('\\x00'::bytea, '\\x01'::bytea, now(), interval '10 seconds', interval '1 day', false) r
       left join auth.sessions s on s.id = r.session_id`,
    );
    const text = JSON.stringify(plan);
    expect(text).toContain('sessions_pkey');
    expect(text).not.toContain('Seq Scan');
    // And a refresh still answers.
    expect((await refreshMobile(t, session.refreshToken)).statusCode).toBe(200);
  });
});

describe('two servers on one database', () => {
  it('a session started on one server refreshes and reads on the other', async () => {
    const other = await t.startAnotherServer();
    try {
      const session = await t.signUp();
      const refreshed = await other.app.inject({
        method: 'POST',
        url: '/api/auth/refresh?client_type=mobile',
        payload: { refreshToken: session.refreshToken },
      });
      expect(refreshed.statusCode).toBe(200);
      const me = await other.app.inject({
        method: 'GET',
        url: '/api/auth/sessions/current',
        headers: bearer(refreshed.json().accessToken),
      });
      expect(me.statusCode).toBe(200);
      expect(me.json().user.id).toBe(session.user.id);
      // And reuse of the rotated token is caught by the first server.
      t.clock.advance(11_000);
      expect((await refreshMobile(t, session.refreshToken)).statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });
});
