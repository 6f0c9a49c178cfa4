// Password reset by code (send → exchange the code for a token → reset) and by link (send → the
// link redirects with svc_status=ready and the token → reset). A reset ends every session of the
// user; a weak new password is refused without spending the token.
import { describe, expect, it } from 'vitest';
import { codeFrom, linkFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import type { TestApp } from '../../harness/test-app.js';
import {
  type EmailApi,
  freshIp,
  INVALID_CODE,
  INVALID_RESET_TOKEN,
  redirectOf,
  uniqueEmail,
  useEmailTestApp,
  wrongCode,
} from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: true }, (ctx) => ({ t, peer, api } = ctx));

const NEW_PASSWORD = 'brand-new-password-2';
const APP_URL = 'https://app.example.com/reset';
const HOUR = 3_600_000;
const RESET_DONE = { message: 'Password reset successfully. Please login with your new password.' };

/** Asks for a reset code for `email` and returns it, read from the email. */
async function resetCodeFor(email: string): Promise<string> {
  const sent = await api.sendReset(email);
  expect(sent.statusCode, sent.body).toBe(202);
  const message = await peer.nextMessageTo(email);
  expect(message.subject).toMatch(/reset/i);
  return codeFrom(message);
}

async function resetTokenFor(email: string): Promise<string> {
  const exchanged = await api.exchangeResetCode(email, await resetCodeFor(email));
  expect(exchanged.statusCode, exchanged.body).toBe(200);
  return exchanged.json.token;
}

describe('reset by code', () => {
  it('code → token → new password; the old password fails, the new one works, every session ends', async () => {
    const user = await t.signUp(uniqueEmail('reset'), 'old-password-1');
    const second = await api.passwordSignIn(user.email, user.password);
    expect(second.statusCode).toBe(200);

    const code = await resetCodeFor(user.email);
    const exchanged = await api.exchangeResetCode(user.email, code);
    expect(exchanged.statusCode).toBe(200);
    expect(exchanged.json).toEqual({ token: expect.stringMatching(/^[0-9a-f]{64}$/), expiresAt: expect.any(String) });
    const expiresIn = Date.parse(exchanged.json.expiresAt) - t.clock.now().getTime();
    expect(expiresIn).toBeGreaterThan(0);

    const reset = await api.resetPassword(NEW_PASSWORD, exchanged.json.token);
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json).toEqual(RESET_DONE);

    expect((await api.passwordSignIn(user.email, user.password)).statusCode).toBe(401);
    expect((await api.passwordSignIn(user.email, NEW_PASSWORD)).statusCode).toBe(200);

    for (const session of [user, second.json]) {
      expect((await api.refresh(session.refreshToken)).statusCode).toBe(401);
      expect((await api.currentSession(session.accessToken)).statusCode).toBe(401);
    }
  });

  it('the code is spent by the exchange, and the token by the reset', async () => {
    const { email } = await t.signUp(uniqueEmail('once'));
    const code = await resetCodeFor(email);
    const exchanged = await api.exchangeResetCode(email, code);
    expect(exchanged.statusCode).toBe(200);
    const again = await api.exchangeResetCode(email, code);
    expect(again.statusCode).toBe(400);
    expect(again.json).toMatchObject(INVALID_CODE);

    expect((await api.resetPassword(NEW_PASSWORD, exchanged.json.token)).statusCode).toBe(200);
    const reused = await api.resetPassword('another-password-3', exchanged.json.token);
    expect(reused.statusCode).toBe(400);
    expect(reused.json).toMatchObject(INVALID_RESET_TOKEN);
    expect((await api.passwordSignIn(email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('a weak new password: 400 with the policy message, and the token still works afterwards', async () => {
    await api.setConfig({ passwordMinLength: 10, requireNumber: true });
    const user = await t.signUp(uniqueEmail('weak'), 'old-password-1');
    const token = await resetTokenFor(user.email);

    for (const weak of ['short1', 'no-digits-at-all']) {
      const res = await api.resetPassword(weak, token);
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
      expect(res.json.message).not.toBe(INVALID_RESET_TOKEN.message);
    }
    // The session is still alive: nothing was reset.
    expect((await api.currentSession(user.accessToken)).statusCode).toBe(200);

    expect((await api.resetPassword('strong-enough-1', token)).statusCode).toBe(200);
    expect((await api.passwordSignIn(user.email, 'strong-enough-1')).statusCode).toBe(200);
  });

  it('three wrong codes kill the reset code', async () => {
    const { email } = await t.signUp(uniqueEmail('wrong'));
    const code = await resetCodeFor(email);
    for (let i = 0; i < 3; i++) expect((await api.exchangeResetCode(email, wrongCode(code))).statusCode).toBe(400);
    expect((await api.exchangeResetCode(email, code)).statusCode).toBe(400);
  });

  it('a reset code expires after 15 minutes; an exchanged token at its expiresAt', async () => {
    const { email: slow } = await t.signUp(uniqueEmail('slow'));
    const code = await resetCodeFor(slow);
    const { email: later } = await t.signUp(uniqueEmail('later'));
    const exchanged = await api.exchangeResetCode(later, await resetCodeFor(later));
    expect(exchanged.statusCode).toBe(200);

    t.clock.advance(15 * 60_000 + 1000);
    expect((await api.exchangeResetCode(slow, code)).statusCode).toBe(400);

    t.clock.advance(Date.parse(exchanged.json.expiresAt) - t.clock.now().getTime() + 1000);
    const res = await api.resetPassword(NEW_PASSWORD, exchanged.json.token);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject(INVALID_RESET_TOKEN);
  });

  it('an unknown or garbage token: 400', async () => {
    for (const otp of ['a'.repeat(64), 'not-a-token', '123456']) {
      const res = await api.resetPassword(NEW_PASSWORD, otp);
      expect(res.statusCode).toBe(400);
      expect(res.json).toMatchObject(INVALID_RESET_TOKEN);
    }
  });

  it('send-reset-password answers the same 202 for unknown and registered emails, and mails only the registered', async () => {
    const { email: known } = await t.signUp(uniqueEmail('known'));
    const unknown = uniqueEmail('unknown');
    const a = await api.sendReset(unknown);
    const b = await api.sendReset(known);
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(a.body).toBe(b.body);
    expect(a.json).toEqual({ success: true, message: expect.stringContaining('password reset code') });
    expect(codeFrom(await peer.nextMessageTo(known))).toMatch(/^\d{6}$/);
    expect(peer.pendingFor(unknown)).toEqual([]);
    expect(await api.usersWithEmail(unknown)).toEqual([]);
  });

  it('a passwordless (code sign-in) user can set a password by reset', async () => {
    const email = uniqueEmail('passwordless');
    expect((await api.sendOtp(email)).statusCode).toBe(202);
    const signedIn = await api.otpSignIn(email, codeFrom(await peer.nextMessageTo(email)));
    expect(signedIn.statusCode).toBe(200);
    expect((await api.resetPassword(NEW_PASSWORD, await resetTokenFor(email))).statusCode).toBe(200);
    expect((await api.passwordSignIn(email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('two concurrent exchanges of one code: exactly one wins', async () => {
    const { email } = await t.signUp(uniqueEmail('race'));
    const code = await resetCodeFor(email);
    const results = await Promise.all([
      api.exchangeResetCode(email, code, freshIp()),
      api.exchangeResetCode(email, code, freshIp()),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('two concurrent resets with one token: exactly one wins', async () => {
    const { email } = await t.signUp(uniqueEmail('race-reset'));
    const token = await resetTokenFor(email);
    const results = await Promise.all([
      api.resetPassword('winner-password-1', token, freshIp()),
      api.resetPassword('winner-password-2', token, freshIp()),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });
});

describe('reset by link', () => {
  const linkConfig = (allowedRedirectUrls: string[] = [APP_URL]) =>
    api.setConfig({ resetPasswordMethod: 'link', allowedRedirectUrls });

  async function resetLinkFor(email: string, redirectTo = APP_URL): Promise<URL> {
    const sent = await api.sendReset(email, redirectTo);
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json.message).toContain('password reset link');
    const link = linkFrom(await peer.nextMessageTo(email));
    expect(`${link.origin}${link.pathname}`).toBe(`${t.config.apiBaseUrl}/api/auth/email/reset-password-link`);
    return link;
  }

  it('redirectTo is required and must be allowlisted, for registered and unknown emails alike', async () => {
    await linkConfig();
    const { email: known } = await t.signUp(uniqueEmail('known'));
    for (const email of [known, uniqueEmail('unknown')]) {
      const missing = await api.sendReset(email);
      expect(missing.statusCode).toBe(400);
      expect(missing.json).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringContaining('redirectTo') });

      const refused = await api.sendReset(email, 'https://evil.example.net/reset');
      expect(refused.statusCode).toBe(400);
      expect(refused.json.message).toContain('https://evil.example.net/reset');
      expect(refused.json.nextActions).toContain('allowedRedirectUrls');
    }
    expect(peer.pendingFor(known)).toEqual([]);
  });

  it('the link redirects with svc_status=ready and the token (not spending it); the token resets the password', async () => {
    await linkConfig();
    const user = await t.signUp(uniqueEmail('link'), 'old-password-1');
    const link = await resetLinkFor(user.email);
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);

    for (let i = 0; i < 2; i++) {
      const opened = await api.openLink(link);
      expect(opened.statusCode).toBe(302);
      const { base, params } = redirectOf(opened.headers.location);
      expect(base).toBe(APP_URL);
      expect(params).toEqual({ token, svc_status: 'ready', svc_type: 'reset_password' });
    }

    const reset = await api.resetPassword(NEW_PASSWORD, token);
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await api.passwordSignIn(user.email, NEW_PASSWORD)).statusCode).toBe(200);
    expect((await api.passwordSignIn(user.email, user.password)).statusCode).toBe(401);
    expect((await api.refresh(user.refreshToken)).statusCode).toBe(401);

    // Used: the link now says so, without a token.
    const after = await api.openLink(link);
    expect(after.statusCode).toBe(302);
    const { params } = redirectOf(after.headers.location);
    expect(params).toMatchObject({
      svc_status: 'error',
      svc_type: 'reset_password',
      svc_error: expect.stringMatching(/\w/),
    });
    expect(params).not.toHaveProperty('token');
    expect((await api.resetPassword('another-password-3', token)).statusCode).toBe(400);
  });

  it('an expired link (24 hours) redirects with svc_status=error and no token; the token no longer resets', async () => {
    await linkConfig();
    const user = await t.signUp(uniqueEmail('expired'), 'old-password-1');
    const link = await resetLinkFor(user.email);
    t.clock.advance(24 * HOUR + 1000);

    const opened = await api.openLink(link);
    expect(opened.statusCode).toBe(302);
    const { params } = redirectOf(opened.headers.location);
    expect(params).toMatchObject({
      svc_status: 'error',
      svc_type: 'reset_password',
      svc_error: expect.stringMatching(/\w/),
    });
    expect(params).not.toHaveProperty('token');

    const res = await api.resetPassword(NEW_PASSWORD, link.searchParams.get('token')!);
    expect(res.statusCode).toBe(400);
    expect((await api.passwordSignIn(user.email, user.password)).statusCode).toBe(200);
  });

  it('a redirectTo removed from the allowlist after sending: 400 JSON naming it', async () => {
    await linkConfig(['https://old.example.com/reset', APP_URL]);
    const { email } = await t.signUp(uniqueEmail('delisted'));
    const link = await resetLinkFor(email, 'https://old.example.com/reset');
    await api.setConfig({ allowedRedirectUrls: [APP_URL] });
    const opened = await api.openLink(link);
    expect(opened.statusCode).toBe(400);
    expect(opened.headers.location).toBeUndefined();
    expect(opened.json.message).toContain('https://old.example.com/reset');
  });

  it('a malformed or unknown token: 400 JSON', async () => {
    for (const token of ['xyz', 'a'.repeat(64)]) {
      const res = await t.request({ method: 'GET', url: `/api/auth/email/reset-password-link?token=${token}` });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.json.error).toBe('VALIDATION_ERROR');
    }
  });
});
