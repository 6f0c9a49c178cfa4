// Anonymous users: the admin switch (off by default), sign-in with no email, is_anonymous in the
// user and the token, RLS telling them apart, the per-IP limit, conversion with an email and
// password (same id and data; with required verification the user stays anonymous until the
// address is verified), and the admin's list filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFrom, type SmtpPeer, startSmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { currentSession, passwordSignIn, refreshMobile } from '../../harness/sessions.js';

let t: TestApp;
let peer: SmtpPeer;
const admin = () => ({ 'x-api-key': t.apiKey });
let ipCounter = 0;
const freshIp = () => `10.34.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({ env: peer.env });
  await t.deps.sql.unsafe(`
    create table public.notes (
      id bigserial primary key,
      owner uuid not null default auth.uid(),
      body text not null,
      shared boolean not null default false
    );
    create policy owner_all on public.notes for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    -- Only users who are not anonymous may share a note.
    create policy shared_needs_account on public.notes as restrictive for insert to authenticated
      with check (not shared or not coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false));
  `);
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

async function setAuthConfig(changes: Record<string, unknown>) {
  const res = await t.request({ method: 'PUT', url: '/api/auth/config', headers: admin(), payload: changes });
  expect(res.statusCode, res.body).toBe(200);
  return res.json;
}

const anonymousSignIn = (ip = freshIp()) =>
  t.request({ method: 'POST', url: '/api/auth/anonymous?client_type=mobile', remoteAddress: ip });

async function anonymousUser() {
  const res = await anonymousSignIn();
  expect(res.statusCode, res.body).toBe(200);
  return res.json as { user: { id: string }; accessToken: string; refreshToken: string };
}

const addEmail = (token: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/auth/identities/email', headers: bearer(token), payload });

const notes = (method: 'GET' | 'POST', token: string, payload?: unknown) =>
  t.request({
    method,
    url: '/api/database/records/notes',
    headers: { ...bearer(token), prefer: 'return=representation' },
    payload: payload as never,
  });

describe('the admin switch', () => {
  it('is off by default: 403 with nextActions, and no user is created', async () => {
    const config = await t.request({ method: 'GET', url: '/api/auth/config', headers: admin() });
    expect(config.json).toMatchObject({ anonymousSignInsEnabled: false, anonymousRetentionDays: 30 });
    const before = await t.request({ method: 'GET', url: '/api/auth/users?anonymous=true', headers: admin() });
    const res = await anonymousSignIn();
    expect(res.statusCode).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', nextActions: expect.stringContaining('admin') });
    const after = await t.request({ method: 'GET', url: '/api/auth/users?anonymous=true', headers: admin() });
    expect(after.json.pagination.total).toBe(before.json.pagination.total);
  });

  it('is public in /api/auth/public-config, and switching it is an audited admin change', async () => {
    await setAuthConfig({ anonymousSignInsEnabled: true });
    const pub = await t.request({ method: 'GET', url: '/api/auth/public-config' });
    expect(pub.json.anonymousSignInsEnabled).toBe(true);
    expect(pub.json).not.toHaveProperty('linkOAuthByEmail');
    await expect
      .poll(async () => {
        const audit = await t.request({ method: 'GET', url: '/api/logs/audits?limit=50', headers: admin() });
        return JSON.stringify(audit.json);
      })
      .toContain('anonymousSignInsEnabled');
  });

  it('a retention outside 1..3650 days is a 400 that changes nothing', async () => {
    const res = await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: admin(),
      payload: { anonymousSignInsEnabled: false, anonymousRetentionDays: 0 },
    });
    expect(res.statusCode).toBe(400);
    const config = await t.request({ method: 'GET', url: '/api/auth/config', headers: admin() });
    expect(config.json).toMatchObject({ anonymousSignInsEnabled: true, anonymousRetentionDays: 30 });
  });
});

describe('an anonymous user', () => {
  it('has no email and is_anonymous true, in the user, the token and the current session', async () => {
    const { user, accessToken, refreshToken } = await anonymousUser();
    expect(user).toMatchObject({ email: null, emailVerified: false, isAnonymous: true, providers: [] });
    expect(claimsOf(accessToken)).toMatchObject({ sub: user.id, role: 'authenticated', email: '', is_anonymous: true });
    const current = await currentSession(t, accessToken);
    expect(current.json.user).toMatchObject({ id: user.id, isAnonymous: true, email: null });
    // A normal session: it refreshes, and the new token still says anonymous.
    const refreshed = await refreshMobile(t, refreshToken);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(claimsOf(refreshed.json.accessToken).is_anonymous).toBe(true);
  });

  it('RLS tells it apart: it keeps private rows, but a policy on is_anonymous refuses it shared ones', async () => {
    const { accessToken } = await anonymousUser();
    expect((await notes('POST', accessToken, { body: 'mine' })).statusCode).toBe(201);
    const shared = await notes('POST', accessToken, { body: 'for all', shared: true });
    expect(shared.statusCode).toBe(403);
    const registered = await t.signUp();
    expect(claimsOf(registered.accessToken).is_anonymous).toBe(false);
    expect((await notes('POST', registered.accessToken, { body: 'for all', shared: true })).statusCode).toBe(201);
  });

  it('is refused while signups are disabled', async () => {
    await setAuthConfig({ disableSignup: true });
    try {
      expect((await anonymousSignIn()).json.error).toBe('AUTH_SIGNUP_DISABLED');
    } finally {
      await setAuthConfig({ disableSignup: false });
    }
  });
});

describe('the per-IP limit of anonymous sign-ins', () => {
  it('refuses the sign-in past the limit with 429 and Retry-After, for that IP only', async () => {
    const set = await t.request({
      method: 'PUT',
      url: '/api/auth/rate-limits',
      headers: admin(),
      payload: { limits: [{ name: 'anonymous-sign-in:ip', max: 2, windowSeconds: 3600 }] },
    });
    expect(set.statusCode, set.body).toBe(200);
    try {
      const ip = freshIp();
      expect((await anonymousSignIn(ip)).statusCode).toBe(200);
      expect((await anonymousSignIn(ip)).statusCode).toBe(200);
      const refused = await anonymousSignIn(ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toEqual(expect.any(String));
      expect((await anonymousSignIn(freshIp())).statusCode).toBe(200);
      // Password registrations from that IP have their own limit.
      const registration = await t.request({
        method: 'POST',
        url: '/api/auth/users?client_type=mobile',
        remoteAddress: ip,
        payload: { email: `limit-${ipCounter}@example.com`, password: 'password-123' },
      });
      expect(registration.statusCode).toBe(200);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/rate-limits',
        headers: admin(),
        payload: { limits: [{ name: 'anonymous-sign-in:ip', reset: true }] },
      });
    }
  });
});

describe('conversion with an email and password', () => {
  it('keeps the id and the rows; the new token says is_anonymous false; the password signs in', async () => {
    const anon = await anonymousUser();
    expect((await notes('POST', anon.accessToken, { body: 'before' })).statusCode).toBe(201);
    const email = `convert-${Date.now()}@example.com`;
    const res = await addEmail(anon.accessToken, { email, password: 'password-123' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({
      user: { id: anon.user.id, email, isAnonymous: false, providers: ['email'] },
      requireEmailVerification: false,
    });
    expect(claimsOf(res.json.accessToken)).toMatchObject({ sub: anon.user.id, email, is_anonymous: false });
    // The same session's refresh now issues non-anonymous tokens too.
    const refreshed = await refreshMobile(t, anon.refreshToken);
    expect(claimsOf(refreshed.json.accessToken).is_anonymous).toBe(false);
    const mine = await notes('GET', res.json.accessToken);
    expect(mine.json.map((n: { body: string }) => n.body)).toEqual(['before']);
    expect((await notes('POST', res.json.accessToken, { body: 'now shared', shared: true })).statusCode).toBe(201);
    const signIn = await passwordSignIn(t, { email, password: 'password-123' }, 'mobile');
    expect(signIn.statusCode, signIn.body).toBe(200);
    expect(signIn.json.user).toMatchObject({ id: anon.user.id, isAnonymous: false });
  });

  it('an address another user has is a 409 that changes nothing', async () => {
    const other = await t.signUp();
    const anon = await anonymousUser();
    const res = await addEmail(anon.accessToken, { email: other.email, password: 'password-123' });
    expect(res.statusCode).toBe(409);
    expect(res.json).toMatchObject({ error: 'AUTH_EMAIL_EXISTS', nextActions: expect.any(String) });
    const user = await t.request({ method: 'GET', url: `/api/auth/users/${anon.user.id}`, headers: admin() });
    expect(user.json).toMatchObject({ email: null, isAnonymous: true, providers: [] });
  });

  it('a user that already has an email gets 409; a weak password 400; a bad email 400', async () => {
    const registered = await t.signUp();
    const taken = await addEmail(registered.accessToken, {
      email: `x-${Date.now()}@example.com`,
      password: 'pw-123456',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json.error).toBe('CONFLICT');
    const anon = await anonymousUser();
    expect((await addEmail(anon.accessToken, { email: 'new@example.com', password: 'abc' })).statusCode).toBe(400);
    expect((await addEmail(anon.accessToken, { email: 'not-an-email', password: 'password-123' })).statusCode).toBe(
      400,
    );
    const user = await t.request({ method: 'GET', url: `/api/auth/users/${anon.user.id}`, headers: admin() });
    expect(user.json).toMatchObject({ email: null, isAnonymous: true });
  });

  it('with required verification the user stays anonymous until the emailed code is verified', async () => {
    await setAuthConfig({ requireEmailVerification: true });
    try {
      const anon = await anonymousUser();
      const email = `verify-${Date.now()}@example.com`;
      const res = await addEmail(anon.accessToken, { email, password: 'password-123' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json).toMatchObject({
        user: { id: anon.user.id, email, emailVerified: false, isAnonymous: true },
        requireEmailVerification: true,
      });
      expect(claimsOf(res.json.accessToken).is_anonymous).toBe(true);
      // The password does not sign in before the address is verified.
      expect((await passwordSignIn(t, { email, password: 'password-123' }, 'mobile')).statusCode).toBe(403);
      const code = codeFrom(await peer.nextMessageTo(email));
      const verified = await t.request({
        method: 'POST',
        url: '/api/auth/email/verify?client_type=mobile',
        payload: { email, otp: code },
      });
      expect(verified.statusCode, verified.body).toBe(200);
      expect(verified.json.user).toMatchObject({ id: anon.user.id, emailVerified: true, isAnonymous: false });
      const refreshed = await refreshMobile(t, anon.refreshToken);
      expect(claimsOf(refreshed.json.accessToken).is_anonymous).toBe(false);
    } finally {
      await setAuthConfig({ requireEmailVerification: false });
    }
  });
});

describe("the admin's user list", () => {
  it('marks anonymous users and filters them (anonymous=true|false); a bad filter is a 400', async () => {
    const anon = await anonymousUser();
    const registered = await t.signUp();
    const only = await t.request({ method: 'GET', url: '/api/auth/users?anonymous=true&limit=100', headers: admin() });
    expect(only.statusCode).toBe(200);
    const ids = only.json.data.map((u: { id: string }) => u.id);
    expect(ids).toContain(anon.user.id);
    expect(ids).not.toContain(registered.user.id);
    expect(only.json.data.every((u: { isAnonymous: boolean }) => u.isAnonymous)).toBe(true);
    const none = await t.request({ method: 'GET', url: '/api/auth/users?anonymous=false&limit=100', headers: admin() });
    expect(none.json.data.map((u: { id: string }) => u.id)).toContain(registered.user.id);
    expect(none.json.data.some((u: { isAnonymous: boolean }) => u.isAnonymous)).toBe(false);
    const bad = await t.request({ method: 'GET', url: '/api/auth/users?anonymous=maybe', headers: admin() });
    expect(bad.statusCode).toBe(400);
  });
});
