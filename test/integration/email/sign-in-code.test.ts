// Sign-in by emailed code, every transition of the spec's state table: issued → consumed (right
// code; three wrong ones; signups disabled), issued → expired, a new code replacing the old one,
// sign-up of an unknown address, and the takeover of an unverified account. Codes come from real
// emails received by an SMTP peer.
import { describe, expect, it } from 'vitest';
import { codeFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, cookieFrom, type TestApp } from '../../harness/test-app.js';
import {
  type EmailApi,
  freshIp,
  INVALID_CODE,
  SIGN_IN_CODE_MESSAGE,
  uniqueEmail,
  useEmailTestApp,
  wrongCode,
} from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: true }, (ctx) => ({ t, peer, api } = ctx));

/** Sends a sign-in code to `email` and returns it, read from the email. */
async function codeFor(email: string): Promise<string> {
  const sent = await api.sendOtp(email);
  expect(sent.statusCode, sent.body).toBe(202);
  return codeFrom(await peer.nextMessageTo(email));
}

const minutes = (n: number) => n * 60_000;

describe('POST /api/auth/email/send-otp', () => {
  it('answers 202 with the same generic message for a registered and an unknown email, and creates no user', async () => {
    const known = await t.signUp(uniqueEmail('known'));
    const unknown = uniqueEmail('unknown');

    const forKnown = await api.sendOtp(known.email);
    const forUnknown = await api.sendOtp(unknown);
    expect(forKnown.statusCode).toBe(202);
    expect(forUnknown.statusCode).toBe(202);
    expect(forKnown.json).toEqual({ success: true, message: SIGN_IN_CODE_MESSAGE });
    expect(forUnknown.body).toBe(forKnown.body);

    // Both get a code (an unknown address may sign up with it), but nobody was created yet.
    const email = await peer.nextMessageTo(unknown);
    expect(email.subject).toMatch(/sign-in code/i);
    expect(codeFrom(email)).toMatch(/^\d{6}$/);
    expect(codeFrom(await peer.nextMessageTo(known.email))).toMatch(/^\d{6}$/);
    expect(await api.usersWithEmail(unknown)).toEqual([]);
  });

  it('rejects a missing or malformed email with 400 naming the field', async () => {
    for (const payload of [{}, { email: 'not-an-email' }, { email: 42 }]) {
      const res = await api.post('/api/auth/email/send-otp', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
      expect(res.json.details).toEqual([expect.objectContaining({ field: 'email' })]);
    }
  });
});

describe('POST /api/auth/sessions with method "otp"', () => {
  it('a web client signs in with the emailed code: access token, CSRF token and an httpOnly refresh cookie', async () => {
    const { email, user } = await t.signUp(uniqueEmail('web'));
    const code = await codeFor(email);

    const res = await api.otpSignIn(email, code, { clientType: 'web' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.user).toMatchObject({ id: user.id, email, emailVerified: true });
    expect(res.json.accessToken).toEqual(expect.any(String));
    expect(res.json.csrfToken).toEqual(expect.any(String));
    expect(res.json).not.toHaveProperty('refreshToken');
    expect(res.json).not.toHaveProperty('requireEmailVerification');
    expect(cookieFrom(res, 'svc_refresh_token')).toMatchObject({ httpOnly: true, path: '/api/auth' });

    const me = await api.currentSession(res.json.accessToken);
    expect(me.statusCode).toBe(200);
    expect(me.json.user).toMatchObject({ id: user.id, role: 'authenticated' });
  });

  it('a mobile client gets a refresh token in the body, which refreshes', async () => {
    const { email } = await t.signUp(uniqueEmail('mobile'));
    const res = await api.otpSignIn(email, await codeFor(email), { clientType: 'mobile' });
    expect(res.statusCode).toBe(200);
    expect(res.json.refreshToken).toEqual(expect.any(String));
    expect(res.json).not.toHaveProperty('csrfToken');
    expect(cookieFrom(res, 'svc_refresh_token')).toBeUndefined();
    expect((await api.refresh(res.json.refreshToken)).statusCode).toBe(200);
  });

  it('matches the address case-insensitively', async () => {
    const email = uniqueEmail('case');
    const sent = await api.sendOtp(email.toUpperCase());
    expect(sent.statusCode).toBe(202);
    const code = codeFrom(await peer.nextMessageTo(email));
    const res = await api.otpSignIn(
      email.replace(/^./, (c) => c.toUpperCase()),
      code,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json.user.email).toBe(email);
  });

  it('a code works once: the second use is 400', async () => {
    const { email } = await t.signUp(uniqueEmail('once'));
    const code = await codeFor(email);
    expect((await api.otpSignIn(email, code)).statusCode).toBe(200);
    const again = await api.otpSignIn(email, code);
    expect(again.statusCode).toBe(400);
    expect(again.json).toMatchObject(INVALID_CODE);
  });

  it('three wrong codes consume it: then even the right code fails', async () => {
    const { email } = await t.signUp(uniqueEmail('wrong3'));
    const code = await codeFor(email);
    for (let i = 0; i < 3; i++) {
      const res = await api.otpSignIn(email, wrongCode(code));
      expect(res.statusCode).toBe(400);
      expect(res.json).toMatchObject(INVALID_CODE);
    }
    expect((await api.otpSignIn(email, code)).statusCode).toBe(400);
  });

  it('two wrong codes leave it usable', async () => {
    const { email } = await t.signUp(uniqueEmail('wrong2'));
    const code = await codeFor(email);
    expect((await api.otpSignIn(email, wrongCode(code))).statusCode).toBe(400);
    expect((await api.otpSignIn(email, wrongCode(code))).statusCode).toBe(400);
    expect((await api.otpSignIn(email, code)).statusCode).toBe(200);
  });

  it('a code is valid for 5 minutes', async () => {
    const { email: early } = await t.signUp(uniqueEmail('early'));
    const { email: late } = await t.signUp(uniqueEmail('late'));
    const earlyCode = await codeFor(early);
    const lateCode = await codeFor(late);

    t.clock.advance(minutes(5) - 1000);
    expect((await api.otpSignIn(early, earlyCode)).statusCode).toBe(200);

    t.clock.advance(2000);
    const expired = await api.otpSignIn(late, lateCode);
    expect(expired.statusCode).toBe(400);
    expect(expired.json).toMatchObject(INVALID_CODE);
  });

  it('a new send replaces the old code and its failed attempts', async () => {
    const { email } = await t.signUp(uniqueEmail('replace'));
    const first = await codeFor(email);
    expect((await api.otpSignIn(email, wrongCode(first))).statusCode).toBe(400);
    expect((await api.otpSignIn(email, wrongCode(first))).statusCode).toBe(400);

    t.clock.advance(60_000); // the per-address cooldown
    const second = await codeFor(email);
    expect(second).not.toBe(first); // one chance in a million of a false alarm

    expect((await api.otpSignIn(email, first)).statusCode).toBe(400);
    // Two earlier failures plus this one would be three on the old code: the new one starts at zero.
    expect((await api.otpSignIn(email, wrongCode(second))).statusCode).toBe(400);
    expect((await api.otpSignIn(email, second)).statusCode).toBe(200);
  });

  it('rejects a malformed code or a missing one with 400 VALIDATION_ERROR', async () => {
    const email = uniqueEmail('malformed');
    for (const otp of ['12345', '1234567', 'abcdef', undefined]) {
      const res = await api.post('/api/auth/sessions', { method: 'otp', email, ...(otp === undefined ? {} : { otp }) });
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
    }
  });
});

describe('an unknown email', () => {
  it('becomes a verified passwordless user with the given name; password sign-in then fails with 401', async () => {
    const email = uniqueEmail('newbie');
    const res = await api.otpSignIn(email, await codeFor(email), { name: 'Grace' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.user).toMatchObject({
      email,
      emailVerified: true,
      providers: ['email'],
      profile: { name: 'Grace' },
    });
    expect(res.json.accessToken).toEqual(expect.any(String));

    const [listed] = await api.usersWithEmail(email);
    expect(listed).toMatchObject({ id: res.json.user.id, emailVerified: true, providers: ['email'] });

    const signIn = await api.passwordSignIn(email, 'anything-at-all');
    expect(signIn.statusCode).toBe(401);
    expect(signIn.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401 });
  });

  it('`name` is used only when the user is created', async () => {
    const email = uniqueEmail('named');
    const created = await api.otpSignIn(email, await codeFor(email), { name: 'First Name' });
    expect(created.statusCode).toBe(200);

    t.clock.advance(60_000);
    const again = await api.otpSignIn(email, await codeFor(email), { name: 'Second Name' });
    expect(again.statusCode).toBe(200);
    expect(again.json.user.id).toBe(created.json.user.id);
    expect(again.json.user.profile).toEqual({ name: 'First Name' });

    // An existing password user's profile is not touched either.
    const { email: existing } = await t.signUp(uniqueEmail('existing'));
    const signedIn = await api.otpSignIn(existing, await codeFor(existing), { name: 'Ignored' });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json.user.profile).toEqual({});
  });

  it('while signups are disabled: the code is consumed, 403 AUTH_SIGNUP_DISABLED, and no user is created', async () => {
    const email = uniqueEmail('nosignup');
    const code = await codeFor(email);
    await api.setConfig({ disableSignup: true });

    const res = await api.otpSignIn(email, code);
    expect(res.statusCode).toBe(403);
    expect(res.json).toMatchObject({ error: 'AUTH_SIGNUP_DISABLED', statusCode: 403 });
    expect(await api.usersWithEmail(email)).toEqual([]);

    await api.setConfig({ disableSignup: false });
    const reused = await api.otpSignIn(email, code);
    expect(reused.statusCode).toBe(400);
    expect(await api.usersWithEmail(email)).toEqual([]);
  });

  it('while signups are disabled, existing users still sign in with a code', async () => {
    const { email } = await t.signUp(uniqueEmail('existing-nosignup'));
    await api.setConfig({ disableSignup: true });
    expect((await api.otpSignIn(email, await codeFor(email))).statusCode).toBe(200);
  });
});

describe('an existing account', () => {
  it('a verified password user keeps the password after signing in with a code', async () => {
    const email = uniqueEmail('verified');
    const password = 'kept-password-1';
    const created = await t.request({
      method: 'POST',
      url: '/api/auth/users',
      headers: bearer(t.apiKey),
      payload: { email, password, autoConfirm: true },
    });
    expect(created.statusCode).toBe(200);
    expect(created.json.user.emailVerified).toBe(true);

    const res = await api.otpSignIn(email, await codeFor(email));
    expect(res.statusCode).toBe(200);
    expect(res.json.user).toMatchObject({ id: created.json.user.id, providers: ['email'] });
    expect((await api.passwordSignIn(email, password)).statusCode).toBe(200);
  });

  it('an unverified account (registered under requireEmailVerification) becomes verified and passwordless', async () => {
    await api.setConfig({ requireEmailVerification: true });
    const email = uniqueEmail('unverified');
    const password = 'old-password-1';
    const registered = await api.register({ email, password });
    expect(registered.statusCode).toBe(200);
    expect(registered.json.accessToken).toBeNull();
    await peer.nextMessageTo(email); // the verification email, not used here

    const blocked = await api.passwordSignIn(email, password);
    expect(blocked.statusCode).toBe(403);

    const res = await api.otpSignIn(email, await codeFor(email));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.user).toMatchObject({ id: registered.json.user.id, emailVerified: true, providers: ['email'] });

    const old = await api.passwordSignIn(email, password);
    expect(old.statusCode).toBe(401);
    expect(old.json.error).toBe('UNAUTHORIZED');
  });

  it('taking over an unverified account ends the sessions its registrant opened', async () => {
    // Someone registers the address first (no verification required), keeping a session; the
    // owner of the inbox then signs in with a code. The registrant must be locked out entirely.
    const squatter = await t.signUp(uniqueEmail('squatted'), 'squatter-password');
    expect(squatter.user.emailVerified).toBe(false);

    const owner = await api.otpSignIn(squatter.email, await codeFor(squatter.email));
    expect(owner.statusCode).toBe(200);
    expect(owner.json.user.id).toBe(squatter.user.id);

    expect((await api.refresh(squatter.refreshToken)).statusCode).toBe(401);
    expect((await api.currentSession(squatter.accessToken)).statusCode).toBe(401);
    expect((await api.passwordSignIn(squatter.email, squatter.password)).statusCode).toBe(401);
    // The owner's own session is live.
    expect((await api.currentSession(owner.json.accessToken)).statusCode).toBe(200);
    expect((await api.refresh(owner.json.refreshToken)).statusCode).toBe(200);
  });
});

describe('two concurrent sign-ins with one code', () => {
  it('exactly one wins, and only one user is created', async () => {
    const email = uniqueEmail('race');
    const code = await codeFor(email);
    const results = await Promise.all([
      api.otpSignIn(email, code, { ip: freshIp() }),
      api.otpSignIn(email, code, { ip: freshIp() }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    expect(await api.usersWithEmail(email)).toHaveLength(1);
  });
});
