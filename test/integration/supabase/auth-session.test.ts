// supabase-js 2.119.1 against /auth/v1: sign-up with metadata, password and refresh grants, the
// signed-in user (read, update, password change), logout by scope, onAuthStateChange, GoTrue's
// error codes and versioned error bodies, and the access token's Supabase claim set on Plinth's
// own routes too.
import { AuthApiError, AuthSessionMissingError, AuthWeakPasswordError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../harness/test-app.js';
import { claimsOf, newEmail, startSupabaseAuthApp, type SupabaseAuthApp } from './auth-app.js';

let s: SupabaseAuthApp;
beforeAll(async () => {
  s = await startSupabaseAuthApp();
});
afterAll(() => s.close());

const PASSWORD = 'sb-password-1';

async function signedUp(data: Record<string, unknown> = {}) {
  const { sb, events } = s.client();
  const email = newEmail();
  const { data: signed, error } = await sb.auth.signUp({ email, password: PASSWORD, options: { data } });
  expect(error).toBeNull();
  return { sb, events, email, session: signed.session!, user: signed.user! };
}

describe('sign-up and sign-in', () => {
  it('signUp returns a session whose user and token carry the data as user_metadata; SIGNED_IN is emitted', async () => {
    const { events, email, session, user } = await signedUp({ name: 'Ada', plan: 'pro' });
    expect(user).toMatchObject({
      id: expect.any(String),
      aud: 'authenticated',
      role: 'authenticated',
      email,
      user_metadata: { name: 'Ada', plan: 'pro' },
      app_metadata: { provider: 'email', providers: ['email'] },
      is_anonymous: false,
    });
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 900, refresh_token: expect.any(String) });
    expect(events).toEqual(['SIGNED_IN']);
    const claims = claimsOf(session.access_token);
    expect(claims).toMatchObject({
      sub: user.id,
      role: 'authenticated',
      aud: 'authenticated',
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { name: 'Ada', plan: 'pro' },
      session_id: claims.sid,
      is_anonymous: false,
      aal: 'aal1',
      amr: [{ method: 'password', timestamp: claims.iat }],
    });
    expect(claims.exp).toBe((claims.iat as number) + 900);
  });

  it('the same access token works on Plinth’s own routes', async () => {
    const { session, user } = await signedUp();
    const res = await s.t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(session.access_token),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.user.id).toBe(user.id);
  });

  it('signInWithPassword opens a new session; getUser reads it from the server', async () => {
    const { email, user } = await signedUp();
    const { sb, events } = s.client();
    const { data, error } = await sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data.user!.id).toBe(user.id);
    expect(events).toEqual(['SIGNED_IN']);
    const read = await sb.auth.getUser();
    expect(read.error).toBeNull();
    expect(read.data.user).toMatchObject({ id: user.id, email, aud: 'authenticated' });
  });

  it('GoTrue error codes: invalid_credentials (400), user_already_exists (422), weak_password (422), anonymous_provider_disabled', async () => {
    const { email } = await signedUp();
    const { sb } = s.client();
    const wrong = await sb.auth.signInWithPassword({ email, password: 'not-it' });
    expect(wrong.error).toBeInstanceOf(AuthApiError);
    expect(wrong.error).toMatchObject({
      status: 400,
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
    const unknown = await sb.auth.signInWithPassword({ email: newEmail(), password: PASSWORD });
    expect(unknown.error).toMatchObject({ status: 400, code: 'invalid_credentials' });

    const duplicate = await sb.auth.signUp({ email, password: PASSWORD });
    expect(duplicate.error).toMatchObject({ status: 422, code: 'user_already_exists' });

    const weak = await sb.auth.signUp({ email: newEmail(), password: '123' });
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError);
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password', reasons: ['length'] });

    const anonymous = await sb.auth.signInAnonymously();
    expect(anonymous.error).toMatchObject({ status: 422, code: 'anonymous_provider_disabled' });
  });

  it('errors carry X-Supabase-Api-Version; without the request header the body is GoTrue’s legacy shape', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${s.url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: {
          apikey: s.t.anonKey,
          authorization: `Bearer ${s.t.anonKey}`,
          'content-type': 'application/json',
          ...headers,
        },
        body: JSON.stringify({ email: newEmail(), password: 'x' }),
      });
    const versioned = await post({ 'x-supabase-api-version': '2024-01-01' });
    expect(versioned.status).toBe(400);
    expect(versioned.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(await versioned.json()).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    const legacy = await post({});
    expect(await legacy.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });
  });

  it('the JSON endpoints want the project key: no credential is 401 no_authorization', async () => {
    const res = await fetch(`${s.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
      body: JSON.stringify({ email: newEmail(), password: PASSWORD }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('no_authorization');
  });
});

describe('refresh, update and logout', () => {
  it('refreshSession rotates the tokens (TOKEN_REFRESHED), keeps the session and its amr; the used token is refused', async () => {
    const { sb, events, session } = await signedUp();
    s.t.clock.advance(60_000);
    const { data, error } = await sb.auth.refreshSession();
    expect(error).toBeNull();
    expect(events).toEqual(['SIGNED_IN', 'TOKEN_REFRESHED']);
    expect(data.session!.refresh_token).not.toBe(session.refresh_token);
    const before = claimsOf(session.access_token);
    const after = claimsOf(data.session!.access_token);
    expect(after.session_id).toBe(before.session_id);
    expect(after.amr).toEqual(before.amr);
    expect(after.iat).toBe((before.iat as number) + 60);

    // Past the reuse grace window, the first refresh token is reuse: refused, and the session ends.
    s.t.clock.advance(120_000);
    const { sb: other } = s.client();
    const reused = await other.auth.refreshSession({ refresh_token: session.refresh_token });
    expect(reused.error).toMatchObject({ status: 400, code: 'refresh_token_not_found' });
  });

  it('updateUser merges data into user_metadata (USER_UPDATED); email changes are refused', async () => {
    const { sb, events } = await signedUp({ name: 'Ada' });
    const { data, error } = await sb.auth.updateUser({ data: { theme: 'dark' } });
    expect(error).toBeNull();
    expect(data.user!.user_metadata).toEqual({ name: 'Ada', theme: 'dark' });
    expect(events).toEqual(['SIGNED_IN', 'USER_UPDATED']);
    const email = await sb.auth.updateUser({ email: newEmail() });
    expect(email.error).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('updateUser({password}) changes the password and ends the user’s other sessions; a weak one changes nothing', async () => {
    const { sb, email } = await signedUp();
    const { sb: second } = s.client();
    expect((await second.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();

    const weak = await sb.auth.updateUser({ password: '1' });
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' });
    expect((await second.auth.getUser()).error).toBeNull();

    expect((await sb.auth.updateUser({ password: 'new-password-2' })).error).toBeNull();
    expect((await sb.auth.getUser()).error).toBeNull();
    // GoTrue's session_not_found: auth-js reports the session as missing (signed out).
    const ended = await second.auth.getUser();
    expect(ended.error).toBeInstanceOf(AuthSessionMissingError);
    const { sb: third } = s.client();
    expect((await third.auth.signInWithPassword({ email, password: PASSWORD })).error).toMatchObject({
      code: 'invalid_credentials',
    });
    expect((await third.auth.signInWithPassword({ email, password: 'new-password-2' })).error).toBeNull();
  });

  it('signOut (global) answers 204, emits SIGNED_OUT and ends every session of the user', async () => {
    const { sb, events, email, session } = await signedUp();
    const { sb: second, events: secondEvents } = s.client();
    const other = await second.auth.signInWithPassword({ email, password: PASSWORD });

    const raw = await fetch(`${s.url}/auth/v1/logout?scope=global`, {
      method: 'POST',
      headers: { apikey: s.t.anonKey, authorization: `Bearer ${session.access_token}` },
    });
    expect(raw.status).toBe(204);
    expect((await sb.auth.signOut()).error).toBeNull();
    expect(events).toEqual(['SIGNED_IN', 'SIGNED_OUT']);
    expect(secondEvents).toEqual(['SIGNED_IN']);

    const refreshed = await second.auth.refreshSession({ refresh_token: other.data.session!.refresh_token });
    expect(refreshed.error).toMatchObject({ status: 400, code: 'refresh_token_not_found' });
    // The ended session's access token is refused on Plinth's routes too.
    const current = await s.t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(session.access_token),
    });
    expect(current.statusCode).toBe(401);
  });

  it('signOut scope local ends only this session; scope others keeps this one and ends the rest', async () => {
    const { sb, email } = await signedUp();
    const { sb: second } = s.client();
    const { sb: third } = s.client();
    await second.auth.signInWithPassword({ email, password: PASSWORD });
    await third.auth.signInWithPassword({ email, password: PASSWORD });

    expect((await second.auth.signOut({ scope: 'local' })).error).toBeNull();
    expect((await sb.auth.getUser()).error).toBeNull();
    expect((await third.auth.getUser()).error).toBeNull();

    expect((await sb.auth.signOut({ scope: 'others' })).error).toBeNull();
    expect((await sb.auth.getUser()).error).toBeNull();
    expect((await third.auth.getUser()).error).toBeInstanceOf(AuthSessionMissingError);
  });

  it('a user token answers only for its own user; an admin token or the anon key on /user is refused', async () => {
    const headers = (token: string) => ({ apikey: s.t.anonKey, authorization: `Bearer ${token}` });
    const anon = await fetch(`${s.url}/auth/v1/user`, { headers: headers(s.t.anonKey) });
    expect(anon.status).toBe(401);
    const admin = await fetch(`${s.url}/auth/v1/user`, { headers: headers(await s.t.adminToken()) });
    expect(admin.status).toBe(403);
    const forged = await fetch(`${s.url}/auth/v1/user`, { headers: headers('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.') });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error_code).toBe('bad_jwt');
  });
});

describe('settings, health and the features served elsewhere', () => {
  it('/settings and /health answer in GoTrue’s shape', async () => {
    const headers = { apikey: s.t.anonKey, authorization: `Bearer ${s.t.anonKey}` };
    const settings = await (await fetch(`${s.url}/auth/v1/settings`, { headers })).json();
    expect(settings).toMatchObject({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: false,
      mailer_autoconfirm: true,
    });
    const health = await fetch(`${s.url}/auth/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ name: 'GoTrue' });
  });

  it('an unknown path is a GoTrue 404 (MFA and SSO: auth-mfa-anonymous.test.ts)', async () => {
    const missing = await fetch(`${s.url}/auth/v1/nope`, { headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });
});
