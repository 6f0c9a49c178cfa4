// The official JavaScript client's auth module against a listening Plinth: sign-up, password and
// email-code sign-in, current user, profiles, refresh (server mode with the rotated refresh token
// in the body; browser mode with the httpOnly cookie and the CSRF token in document.cookie),
// sign-out, and the emailed verification and password-reset flows through the SMTP peer.
import { randomBytes } from 'node:crypto';
import { InsForgeError } from '@insforge/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codeFrom } from '../../harness/smtp-peer.js';
import { bearer, DEFAULT_AUTH_CONFIG } from '../../harness/test-app.js';
import { installBrowser, startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
beforeAll(async () => {
  s = await startSdkApp({ smtp: true });
});
afterAll(() => s.close());

const email = (tag = 'sdk') => `${tag}-${randomBytes(4).toString('hex')}@example.com`;
const PASSWORD = 'sdk-password-1';
const MINUTE = 60_000;

async function setAuthConfig(changes: Record<string, unknown>) {
  const res = await s.t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: bearer(s.t.apiKey),
    payload: changes,
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('server mode (isServerMode: true, the client_type=mobile flow a Node app uses)', () => {
  it('signUp returns the session and the client then acts as the user', async () => {
    const client = s.client({ isServerMode: true });
    const address = email();
    const { data, error } = await client.auth.signUp({ email: address, password: PASSWORD, name: 'Ada' });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      user: { id: expect.any(String), email: address, emailVerified: false, profile: { name: 'Ada' } },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    // The access token is in use: the profile route needs a user token.
    const profile = await client.auth.setProfile({ bio: 'hello' });
    expect(profile.error).toBeNull();
    expect(profile.data).toEqual({ id: data!.user!.id, profile: { name: 'Ada', bio: 'hello' } });
  });

  it('signInWithPassword, wrong password, duplicate sign-up: errors arrive as InsForgeError with the spec code', async () => {
    const client = s.client({ isServerMode: true });
    const address = email();
    expect((await client.auth.signUp({ email: address, password: PASSWORD })).error).toBeNull();

    const duplicate = await client.auth.signUp({ email: address, password: PASSWORD });
    expect(duplicate.error).toBeInstanceOf(InsForgeError);
    expect(duplicate.error).toMatchObject({
      statusCode: 409,
      error: 'AUTH_EMAIL_EXISTS',
      message: 'User already exists',
    });

    const wrong = await client.auth.signInWithPassword({ email: address, password: 'not-the-password' });
    expect(wrong.data).toBeNull();
    // Spec: a wrong password is 401 UNAUTHORIZED (no access token was presented), with the
    // reference's text (api-contract item 17).
    expect(wrong.error).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED', message: 'Invalid credentials' });

    const ok = await client.auth.signInWithPassword({ email: address, password: PASSWORD });
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({
      user: { email: address },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
  });

  it('a client built on the access token (accessToken option) reads the current user from the server', async () => {
    const signer = s.client({ isServerMode: true });
    const address = email();
    const { data } = await signer.auth.signUp({ email: address, password: PASSWORD });
    const client = s.client({ accessToken: data!.accessToken! });
    const current = await client.auth.getCurrentUser();
    expect(current.error).toBeNull();
    expect(current.data.user).toMatchObject({ id: data!.user!.id, email: address, role: 'authenticated' });
  });

  it('refreshSession rotates the refresh token; the old one is then refused', async () => {
    const client = s.client({ isServerMode: true });
    const { data } = await client.auth.signUp({ email: email(), password: PASSWORD });
    const first = data!.refreshToken!;
    const refreshed = await client.auth.refreshSession({ refreshToken: first });
    expect(refreshed.error).toBeNull();
    expect(refreshed.data).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      user: { id: data!.user!.id },
    });
    expect(refreshed.data!.refreshToken).not.toBe(first);

    // Past the grace window a reused token is refused (and revokes the session family).
    s.t.clock.advance(MINUTE);
    const reused = await client.auth.refreshSession({ refreshToken: first });
    expect(reused.error).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED' });
  });

  it('an expired access token is a 401 AUTH_UNAUTHORIZED; a server-mode app refreshes explicitly and carries on', async () => {
    const client = s.client({ isServerMode: true });
    const { data } = await client.auth.signUp({ email: email(), password: PASSWORD });
    s.t.clock.advance(16 * MINUTE);
    const expired = await client.auth.setProfile({ x: 1 });
    // AUTH_UNAUTHORIZED (api-contract item 14); the client never refreshes by itself in server
    // mode, so the app calls refreshSession — the spec's rule 5.
    expect(expired.error).toMatchObject({ statusCode: 401, error: 'AUTH_UNAUTHORIZED' });
    const refreshed = await client.auth.refreshSession({ refreshToken: data!.refreshToken! });
    expect(refreshed.error).toBeNull();
    expect((await client.auth.setProfile({ x: 1 })).error).toBeNull();
  });

  it('signOut ends the session named by its access token: the refresh token no longer works', async () => {
    const client = s.client({ isServerMode: true });
    const { data } = await client.auth.signUp({ email: email(), password: PASSWORD });
    // Server-mode signOut posts no body; Plinth revokes the session the bearer token's sid names.
    expect(await client.auth.signOut()).toEqual({ error: null });
    const after = await client.auth.refreshSession({ refreshToken: data!.refreshToken! });
    expect(after.error).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED' });
  });
});

describe('browser mode (cookie jar + document.cookie, the default createClient)', () => {
  let browser: ReturnType<typeof installBrowser>;
  beforeAll(() => {
    browser = installBrowser();
  });
  afterAll(() => browser.uninstall());

  it('signUp sets the refresh cookie and the CSRF cookie; getCurrentUser answers from the session', async () => {
    const client = s.client({ fetch: browser.fetch });
    const address = email('web');
    const { data, error } = await client.auth.signUp({ email: address, password: PASSWORD });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      accessToken: expect.any(String),
      csrfToken: expect.any(String),
      user: { email: address },
    });
    expect(browser.jar.get('svc_refresh_token')?.path).toBe('/api/auth');
    // The client stores the CSRF token URL-encoded and reads it back raw: it must be URL-safe.
    expect(browser.pageCookies.get('insforge_csrf_token')).toBe(data!.csrfToken);
    const current = await client.auth.getCurrentUser();
    expect(current.data.user).toMatchObject({ email: address });
  });

  it('refreshSession sends the cookie and X-CSRF-Token; the rotated CSRF token replaces the old one', async () => {
    const client = s.client({ fetch: browser.fetch });
    const { data } = await client.auth.signInWithPassword({
      email: (await client.auth.signUp({ email: email('web'), password: PASSWORD })).data!.user!.email,
      password: PASSWORD,
    });
    const oldCsrf = data!.csrfToken!;
    const refreshed = await client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data).toMatchObject({ accessToken: expect.any(String), csrfToken: expect.any(String) });
    expect(refreshed.data!.csrfToken).not.toBe(oldCsrf);
    expect(browser.pageCookies.get('insforge_csrf_token')).toBe(refreshed.data!.csrfToken);
    // The new access token is the client's: a user-only route works.
    expect((await client.auth.setProfile({ theme: 'dark' })).error).toBeNull();
  });

  it('after a page reload (a new client, same cookies) getCurrentUser restores the session by refreshing', async () => {
    const address = email('reload');
    await s.client({ fetch: browser.fetch }).auth.signUp({ email: address, password: PASSWORD });
    const g = globalThis as { window?: unknown };
    g.window = { location: { search: '', href: 'http://app.test/', protocol: 'http:' } };
    try {
      const reloaded = s.client({ fetch: browser.fetch });
      const current = await reloaded.auth.getCurrentUser();
      expect(current.error).toBeNull();
      expect(current.data.user).toMatchObject({ email: address });
      expect((await reloaded.auth.setProfile({ reloaded: true })).error).toBeNull();
    } finally {
      delete g.window;
    }
  });

  it('signOut revokes the cookie session and clears both cookies; refresh then fails', async () => {
    const client = s.client({ fetch: browser.fetch });
    await client.auth.signUp({ email: email('web'), password: PASSWORD });
    expect(browser.jar.has('svc_refresh_token')).toBe(true);
    expect(await client.auth.signOut()).toEqual({ error: null });
    expect(browser.jar.has('svc_refresh_token')).toBe(false);
    expect(browser.pageCookies.has('insforge_csrf_token')).toBe(false);
    const after = await client.auth.refreshSession();
    expect(after.error).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED' });
  });
});

describe('profiles and public configuration', () => {
  it("getProfile reads anyone's public profile with the anon key", async () => {
    const owner = s.client({ isServerMode: true });
    const { data } = await owner.auth.signUp({ email: email(), password: PASSWORD, name: 'Grace' });
    const visitor = s.client();
    const profile = await visitor.auth.getProfile(data!.user!.id);
    expect(profile.error).toBeNull();
    expect(profile.data).toEqual({ id: data!.user!.id, profile: { name: 'Grace' } });
  });

  it('getPublicAuthConfig returns the public settings', async () => {
    const { data, error } = await s.client().auth.getPublicAuthConfig();
    expect(error).toBeNull();
    expect(data).toMatchObject({
      oAuthProviders: expect.any(Array),
      customOAuthProviders: expect.any(Array),
      requireEmailVerification: false,
      passwordMinLength: 6,
      verifyEmailMethod: 'code',
      resetPasswordMethod: 'code',
    });
  });
});

describe('emailed codes (SMTP peer)', () => {
  afterEach(() => setAuthConfig(DEFAULT_AUTH_CONFIG));

  it('signInWithOtp + verifyOtp creates a passwordless user and signs in', async () => {
    const client = s.client({ isServerMode: true });
    const address = email('otp');
    const sent = await client.auth.signInWithOtp({ email: address });
    expect(sent.error).toBeNull();
    expect(sent.data).toMatchObject({ success: true, message: expect.any(String) });
    const code = codeFrom(await s.smtp!.nextMessageTo(address));
    const { data, error } = await client.auth.verifyOtp({ email: address, otp: code, name: 'Otto' });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      user: { email: address, emailVerified: true, profile: { name: 'Otto' } },
      accessToken: expect.any(String),
    });
  });

  it('registration with verification required: null tokens, then verifyEmail with the emailed code signs in', async () => {
    await setAuthConfig({ requireEmailVerification: true });
    const client = s.client({ isServerMode: true });
    const address = email('verify');
    const registered = await client.auth.signUp({ email: address, password: PASSWORD });
    expect(registered.error).toBeNull();
    expect(registered.data).toMatchObject({
      accessToken: null,
      requireEmailVerification: true,
      user: { emailVerified: false },
    });
    const firstCode = codeFrom(await s.smtp!.nextMessageTo(address));

    const blocked = await client.auth.signInWithPassword({ email: address, password: PASSWORD });
    expect(blocked.error).toMatchObject({ statusCode: 403, error: 'FORBIDDEN' });

    const resent = await client.auth.resendVerificationEmail({ email: address });
    expect(resent.error).toBeNull();
    const code = codeFrom(await s.smtp!.nextMessageTo(address));
    expect(code).toMatch(/^\d{6}$/);
    expect(firstCode).toMatch(/^\d{6}$/);

    const verified = await client.auth.verifyEmail({ email: address, otp: code });
    expect(verified.error).toBeNull();
    expect(verified.data).toMatchObject({
      user: { email: address, emailVerified: true },
      accessToken: expect.any(String),
    });
    expect((await client.auth.signInWithPassword({ email: address, password: PASSWORD })).error).toBeNull();
  });

  it('password reset by code: send, exchange the code for a token, reset, sign in with the new password', async () => {
    const client = s.client({ isServerMode: true });
    const address = email('reset');
    await client.auth.signUp({ email: address, password: PASSWORD });
    expect((await client.auth.sendResetPasswordEmail({ email: address })).error).toBeNull();
    const code = codeFrom(await s.smtp!.nextMessageTo(address));

    const exchanged = await client.auth.exchangeResetPasswordToken({ email: address, code });
    expect(exchanged.error).toBeNull();
    expect(exchanged.data).toMatchObject({ token: expect.any(String), expiresAt: expect.any(String) });

    const reset = await client.auth.resetPassword({ newPassword: 'brand-new-pass-2', otp: exchanged.data!.token });
    expect(reset.error).toBeNull();
    expect(reset.data).toMatchObject({ message: expect.any(String) });

    expect((await client.auth.signInWithPassword({ email: address, password: PASSWORD })).error).toMatchObject({
      statusCode: 401,
    });
    expect((await client.auth.signInWithPassword({ email: address, password: 'brand-new-pass-2' })).error).toBeNull();
  });
});
