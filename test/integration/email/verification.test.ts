// Email verification under requireEmailVerification, by code (POST /api/auth/email/verify signs
// the user in) and by link (GET /api/auth/email/verify-link redirects the browser to redirectTo
// with svc_status), including expired, reused and no-longer-allowlisted links, and a failed
// delivery at registration.
import { describe, expect, it } from 'vitest';
import { codeFrom, linkFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import { cookieFrom, type TestApp } from '../../harness/test-app.js';
import {
  type EmailApi,
  freshIp,
  INVALID_CODE,
  redirectOf,
  uniqueEmail,
  useEmailTestApp,
  wrongCode,
} from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: true }, (ctx) => ({ t, peer, api } = ctx));

const PASSWORD = 'first-password-1';
const APP_URL = 'https://app.example.com/verified';
const HOUR = 3_600_000;

/** Registers `email` and returns the registration response and the verification email. */
async function registerUnverified(email: string, extra: Record<string, unknown> = {}, clientType = 'mobile') {
  const res = await api.register({ email, password: PASSWORD, ...extra }, clientType);
  expect(res.statusCode, res.body).toBe(200);
  return { res, email: await peer.nextMessageTo(email) };
}

describe('verification by code', () => {
  it('registration returns the user with null tokens and emails a 6-digit code', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('reg');
    const { res, email } = await registerUnverified(address, { name: 'Ada' }, 'web');
    expect(res.json).toEqual({
      user: expect.objectContaining({ email: address, emailVerified: false, profile: { name: 'Ada' } }),
      accessToken: null,
      csrfToken: null,
      refreshToken: null,
      requireEmailVerification: true,
    });
    expect(cookieFrom(res, 'svc_refresh_token')).toBeUndefined();
    expect(email.subject).toMatch(/verification code/i);
    expect(codeFrom(email)).toMatch(/^\d{6}$/);
  });

  it('password sign-in before verification: 403 with a nextActions hint', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('blocked');
    await registerUnverified(address);
    const res = await api.passwordSignIn(address, PASSWORD);
    expect(res.statusCode).toBe(403);
    expect(res.json).toMatchObject({
      statusCode: 403,
      error: 'FORBIDDEN',
      nextActions: expect.stringContaining('send-verification'),
    });
    expect(res.json).not.toHaveProperty('accessToken');
  });

  it('the emailed code verifies and signs in; password sign-in works afterwards; the code is spent', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('verify');
    const { res: registered, email } = await registerUnverified(address);
    const code = codeFrom(email);

    const verified = await api.verify(address, code);
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json.user).toMatchObject({
      id: registered.json.user.id,
      emailVerified: true,
      providers: ['email'],
    });
    expect(verified.json.accessToken).toEqual(expect.any(String));
    expect(verified.json.refreshToken).toEqual(expect.any(String));
    expect((await api.currentSession(verified.json.accessToken)).statusCode).toBe(200);

    expect((await api.passwordSignIn(address, PASSWORD)).statusCode).toBe(200);
    const again = await api.verify(address, code);
    expect(again.statusCode).toBe(400);
    expect(again.json).toMatchObject(INVALID_CODE);
  });

  it('a web client verifying gets the refresh cookie and a CSRF token', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('verify-web');
    const { email } = await registerUnverified(address);
    const res = await api.verify(address, codeFrom(email), { clientType: 'web' });
    expect(res.statusCode).toBe(200);
    expect(res.json.csrfToken).toEqual(expect.any(String));
    expect(cookieFrom(res, 'svc_refresh_token')?.httpOnly).toBe(true);
  });

  it('three wrong codes kill it; send-verification delivers a new one that works', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('retry');
    const { email } = await registerUnverified(address);
    const code = codeFrom(email);
    for (let i = 0; i < 3; i++) expect((await api.verify(address, wrongCode(code))).statusCode).toBe(400);
    expect((await api.verify(address, code)).statusCode).toBe(400);

    t.clock.advance(60_000); // clear of any per-address cooldown
    const resent = await api.sendVerification(address);
    expect(resent.statusCode).toBe(202);
    const fresh = codeFrom(await peer.nextMessageTo(address));
    expect((await api.verify(address, fresh)).statusCode).toBe(200);
  });

  it('a verification code expires after 15 minutes', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('stale');
    const { email } = await registerUnverified(address);
    t.clock.advance(15 * 60_000 + 1000);
    expect((await api.verify(address, codeFrom(email))).statusCode).toBe(400);
    expect((await api.passwordSignIn(address, PASSWORD)).statusCode).toBe(403);
  });

  it('send-verification answers the same 202 for unknown, unverified and verified emails, and mails only the unverified', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const unverified = uniqueEmail('unv');
    await registerUnverified(unverified);
    const verified = uniqueEmail('ver');
    const { email } = await registerUnverified(verified);
    expect((await api.verify(verified, codeFrom(email))).statusCode).toBe(200);
    const unknown = uniqueEmail('nobody');

    const answers = [];
    for (const address of [unknown, verified, unverified]) {
      const res = await api.sendVerification(address);
      expect(res.statusCode).toBe(202);
      answers.push(res.body);
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!)).toEqual({ success: true, message: expect.stringContaining('verification code') });

    // Sending happens before the 202, so anything sent has arrived by now.
    expect(codeFrom(await peer.nextMessageTo(unverified))).toMatch(/^\d{6}$/);
    expect(peer.pendingFor(unknown)).toEqual([]);
    expect(peer.pendingFor(verified)).toEqual([]);
    expect(await api.usersWithEmail(unknown)).toEqual([]);
  });

  it('two concurrent verifications of one code: exactly one wins', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('race');
    const { email } = await registerUnverified(address);
    const code = codeFrom(email);
    const results = await Promise.all([
      api.verify(address, code, { ip: freshIp() }),
      api.verify(address, code, { ip: freshIp() }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });
});

describe('verification by link', () => {
  const linkConfig = (allowedRedirectUrls: string[] = [APP_URL]) =>
    api.setConfig({ requireEmailVerification: true, verifyEmailMethod: 'link', allowedRedirectUrls });

  it('registration without redirectTo: 400, and no user is created', async () => {
    await linkConfig();
    const address = uniqueEmail('noredirect');
    const res = await api.register({ email: address, password: PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringContaining('redirectTo') });
    expect(await api.usersWithEmail(address)).toEqual([]);
  });

  it.each([
    ['a URL not in the list', 'https://evil.example.net/verified'],
    ['another path on an allowed host', 'https://app.example.com/other'],
    ['a subdomain of an exact entry', 'https://x.app.example.com/verified'],
  ])(
    'registration with %s: 400 naming the URL with a nextActions hint, no user, no email',
    async (_label, redirectTo) => {
      await linkConfig();
      const address = uniqueEmail('badredirect');
      const res = await api.register({ email: address, password: PASSWORD, redirectTo });
      expect(res.statusCode).toBe(400);
      expect(res.json.message).toContain(redirectTo);
      expect(res.json.nextActions).toContain('allowedRedirectUrls');
      expect(await api.usersWithEmail(address)).toEqual([]);
      expect(peer.pendingFor(address)).toEqual([]);
    },
  );

  it.each(['javascript:alert(1)', 'data:text/html,hi', 'file:///etc/passwd'])(
    'a dangerous redirectTo (%s) is refused even when every URL is allowed',
    async (redirectTo) => {
      await linkConfig([]);
      const address = uniqueEmail('dangerous');
      const res = await api.register({ email: address, password: PASSWORD, redirectTo });
      expect(res.statusCode).toBe(400);
      expect(await api.usersWithEmail(address)).toEqual([]);
    },
  );

  it('the emailed link verifies and redirects to redirectTo with svc_status=success; a reused link redirects with an error', async () => {
    await linkConfig();
    const address = uniqueEmail('link');
    const redirectTo = `${APP_URL}?from=email`; // the query is not part of the allowlist match
    const { res, email } = await registerUnverified(address, { redirectTo });
    expect(res.json).toMatchObject({ accessToken: null, requireEmailVerification: true });
    expect(email.subject).toMatch(/verify/i);

    const link = linkFrom(email);
    expect(`${link.origin}${link.pathname}`).toBe(`${t.config.apiBaseUrl}/api/auth/email/verify-link`);
    expect(link.searchParams.get('token')).toMatch(/^[0-9a-f]{64}$/);

    const opened = await api.openLink(link);
    expect(opened.statusCode).toBe(302);
    const { base, params } = redirectOf(opened.headers.location);
    expect(base).toBe(APP_URL);
    expect(params).toEqual({ from: 'email', svc_status: 'success', svc_type: 'verify_email' });
    expect(opened.cookies).toEqual([]); // a link verification does not sign in

    expect((await api.passwordSignIn(address, PASSWORD)).statusCode).toBe(200);

    const reused = await api.openLink(link);
    expect(reused.statusCode).toBe(302);
    const again = redirectOf(reused.headers.location);
    expect(again.base).toBe(APP_URL);
    expect(again.params).toMatchObject({
      svc_status: 'error',
      svc_type: 'verify_email',
      svc_error: expect.stringMatching(/\w/),
    });
  });

  it('an expired link (24 hours) redirects with svc_status=error and leaves the email unverified', async () => {
    await linkConfig();
    const address = uniqueEmail('expired');
    const { email } = await registerUnverified(address, { redirectTo: APP_URL });
    t.clock.advance(24 * HOUR + 1000);
    const opened = await api.openLink(linkFrom(email));
    expect(opened.statusCode).toBe(302);
    expect(redirectOf(opened.headers.location).params).toMatchObject({
      svc_status: 'error',
      svc_type: 'verify_email',
      svc_error: expect.stringMatching(/\w/),
    });
    expect((await api.passwordSignIn(address, PASSWORD)).statusCode).toBe(403);
  });

  it('a redirectTo removed from the allowlist after sending: 400 JSON, and the link is not spent', async () => {
    await linkConfig(['https://old.example.com/cb', APP_URL]);
    const address = uniqueEmail('delisted');
    const { email } = await registerUnverified(address, { redirectTo: 'https://old.example.com/cb' });
    await api.setConfig({ allowedRedirectUrls: [APP_URL] });

    const opened = await api.openLink(linkFrom(email));
    expect(opened.statusCode).toBe(400);
    expect(opened.headers.location).toBeUndefined();
    expect(opened.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('https://old.example.com/cb'),
      nextActions: expect.stringContaining('allowedRedirectUrls'),
    });
    // A rejected request changes nothing: still unverified, and the link works once allowed again.
    expect((await api.passwordSignIn(address, PASSWORD)).statusCode).toBe(403);
    await api.setConfig({ allowedRedirectUrls: ['https://old.example.com/cb'] });
    const retried = await api.openLink(linkFrom(email));
    expect(retried.statusCode).toBe(302);
    expect(redirectOf(retried.headers.location).params.svc_status).toBe('success');
  });

  it.each([
    ['not hex', 'z'.repeat(64)],
    ['too short', 'ab12'],
    ['empty', ''],
    ['well-formed but unknown', 'a'.repeat(64)],
  ])('a %s token: 400 JSON, no redirect', async (_label, token) => {
    await linkConfig();
    const res = await t.request({ method: 'GET', url: `/api/auth/email/verify-link?token=${token}` });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it('a missing token: 400', async () => {
    const res = await t.request({ method: 'GET', url: '/api/auth/email/verify-link' });
    expect(res.statusCode).toBe(400);
  });

  it.each([
    ['a host wildcard', 'https://*.preview.example.com/cb', 'https://pr-42.preview.example.com/cb'],
    ['a deep link', 'myapp://auth/callback', 'myapp://auth/callback'],
    ['a reverse-domain deep link', 'com.example.app:/verified', 'com.example.app:/verified'],
  ])('redirects to %s entry', async (_label, entry, redirectTo) => {
    await linkConfig([entry]);
    const address = uniqueEmail('pattern');
    const { email } = await registerUnverified(address, { redirectTo });
    const opened = await api.openLink(linkFrom(email));
    expect(opened.statusCode).toBe(302);
    const location = opened.headers.location as string;
    expect(location.startsWith(`${redirectTo}?`)).toBe(true);
    expect(redirectOf(location).params).toMatchObject({ svc_status: 'success', svc_type: 'verify_email' });
  });

  it('send-verification needs an allowlisted redirectTo, for any address, and then mails a link', async () => {
    await linkConfig();
    const address = uniqueEmail('resend-link');
    await registerUnverified(address, { redirectTo: APP_URL });

    for (const target of [address, uniqueEmail('unknown')]) {
      const missing = await api.sendVerification(target);
      expect(missing.statusCode).toBe(400);
      const refused = await api.sendVerification(target, 'https://evil.example.net/');
      expect(refused.statusCode).toBe(400);
      expect(refused.json.message).toContain('https://evil.example.net/');
    }

    const ok = await api.sendVerification(address, APP_URL);
    expect(ok.statusCode).toBe(202);
    expect(ok.json.message).toContain('verification link');
    const opened = await api.openLink(linkFrom(await peer.nextMessageTo(address)));
    expect(redirectOf(opened.headers.location).params.svc_status).toBe('success');
  });
});

describe('delivery failure at registration', () => {
  it('503 AUTH_VERIFICATION_EMAIL_DELIVERY_FAILED with nextActions; the user exists; send-verification then delivers', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const address = uniqueEmail('undelivered');
    peer.failNext();
    const res = await api.register({ email: address, password: PASSWORD });
    expect(res.statusCode).toBe(503);
    expect(res.json).toMatchObject({
      error: 'AUTH_VERIFICATION_EMAIL_DELIVERY_FAILED',
      statusCode: 503,
      nextActions: expect.stringContaining('/api/auth/email/send-verification'),
    });
    expect(peer.pendingFor(address)).toEqual([]);

    expect(await api.usersWithEmail(address)).toEqual([expect.objectContaining({ emailVerified: false })]);
    const twice = await api.register({ email: address, password: PASSWORD });
    expect(twice.statusCode).toBe(409);

    const resent = await api.sendVerification(address);
    expect(resent.statusCode).toBe(202);
    const code = codeFrom(await peer.nextMessageTo(address));
    expect((await api.verify(address, code)).statusCode).toBe(200);
  });
});
