// TOTP factors through HTTP: enroll (secret, URI, QR), challenge and verify (aal2 tokens whose
// level survives refresh), sign-in answers that list verified factors, and the security checks:
// a code is accepted once, aal1 cannot unenroll or add factors, another user's factor is a 404,
// wrong codes lock the factor, challenges expire and belong to one session.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  challenge,
  challengeAndVerify,
  claimsOf,
  enroll,
  totpCode,
  userWithFactor,
  verify,
} from '../../harness/mfa.js';
import { passwordSignIn, refreshMobile } from '../../harness/sessions.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const listFactors = (accessToken: string) =>
  t.request({ method: 'GET', url: '/api/auth/mfa/factors', headers: bearer(accessToken) });
const unenroll = (accessToken: string, factorId: string) =>
  t.request({ method: 'DELETE', url: `/api/auth/mfa/factors/${factorId}`, headers: bearer(accessToken) });

describe('enrolling a TOTP factor', () => {
  it('answers the secret, an otpauth:// URI and an SVG QR code; the list never shows the secret', async () => {
    const user = await t.signUp();
    const res = await enroll(t, user.accessToken, 'Work phone');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({
      id: expect.any(String),
      type: 'totp',
      friendlyName: 'Work phone',
      status: 'unverified',
    });
    const { secret, uri, qrCode } = res.json.totp;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(parsed.pathname)).toContain(user.email);
    expect(qrCode).toMatch(/^data:image\/svg\+xml;utf-8,<svg/);
    expect(qrCode).not.toContain('#');

    const list = await listFactors(user.accessToken);
    expect(list.statusCode).toBe(200);
    expect(list.json).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1', recoveryCodesRemaining: 0 });
    expect(list.json.data).toEqual([expect.objectContaining({ id: res.json.id, status: 'unverified' })]);
    expect(list.body).not.toContain(secret);
  });

  it('refuses a friendly name the user already has (409), while another user may use it', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()];
    expect((await enroll(t, a.accessToken, 'phone')).statusCode).toBe(200);
    const again = await enroll(t, a.accessToken, 'phone');
    expect(again.statusCode).toBe(409);
    expect(again.json.error).toBe('AUTH_MFA_FACTOR_NAME_CONFLICT');
    expect((await enroll(t, b.accessToken, 'phone')).statusCode).toBe(200);
    expect((await listFactors(a.accessToken)).json.data).toHaveLength(1);
  });

  it('needs aal2 to add a factor once the user has a verified one', async () => {
    const user = await userWithFactor(t);
    const signIn = await passwordSignIn(t, user, 'mobile');
    const refused = await enroll(t, signIn.json.accessToken, 'tablet');
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({ error: 'AUTH_INSUFFICIENT_AAL', nextActions: expect.any(String) });
    expect((await enroll(t, user.aal2.accessToken, 'tablet')).statusCode).toBe(200);
    expect((await listFactors(user.aal2.accessToken)).json.data).toHaveLength(2);
  });
});

describe('challenge and verify', () => {
  it('raises the session to aal2 with amr [password, totp], returns ten recovery codes once, and refresh keeps aal2', async () => {
    const user = await t.signUp();
    expect(claimsOf(user.accessToken)).toMatchObject({ aal: 'aal1', amr: [{ method: 'password' }] });
    const enrolled = await enroll(t, user.accessToken);
    const c = await challenge(t, user.accessToken, enrolled.json.id);
    expect(c.statusCode, c.body).toBe(200);
    expect(c.json).toMatchObject({ id: expect.any(String), type: 'totp' });
    expect(Date.parse(c.json.expiresAt) - t.clock.now().getTime()).toBe(300_000);

    const res = await verify(t, user.accessToken, enrolled.json.id, c.json.id, totpCode(t, enrolled.json.totp.secret));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.user.id).toBe(user.user.id);
    expect(res.json.recoveryCodes).toHaveLength(10);
    expect(new Set(res.json.recoveryCodes).size).toBe(10);
    const claims = claimsOf(res.json.accessToken);
    expect(claims).toMatchObject({ sub: user.user.id, aal: 'aal2', sid: claimsOf(user.accessToken).sid });
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(claims.amr).toEqual([
      { method: 'password', timestamp: expect.any(Number) },
      { method: 'totp', timestamp: now },
    ]);
    expect((await listFactors(res.json.accessToken)).json).toMatchObject({
      currentLevel: 'aal2',
      nextLevel: 'aal2',
      recoveryCodesRemaining: 10,
      data: [expect.objectContaining({ status: 'verified' })],
    });

    // The new refresh token refreshes at aal2; the sign-up one retired: presenting it is reuse,
    // which ends the session (rotation's theft rule).
    t.clock.advance(60_000);
    const refreshed = await refreshMobile(t, res.json.refreshToken);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(claimsOf(refreshed.json.accessToken)).toMatchObject({ aal: 'aal2', amr: claims.amr });
    expect((await refreshMobile(t, user.refreshToken)).statusCode).toBe(401);
    expect((await refreshMobile(t, refreshed.json.refreshToken)).statusCode).toBe(401);
  });

  it('a second factor verified later brings no new recovery codes', async () => {
    const user = await userWithFactor(t);
    const second = await enroll(t, user.aal2.accessToken, 'backup phone');
    const res = await challengeAndVerify(t, user.aal2.accessToken, second.json.id, second.json.totp.secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.recoveryCodes).toBeUndefined();
  });

  it('a sign-in of a user with a verified factor is aal1 and lists the factors (mfa.required)', async () => {
    const user = await userWithFactor(t);
    const signIn = await passwordSignIn(t, user, 'mobile');
    expect(signIn.statusCode).toBe(200);
    expect(signIn.json.mfa).toEqual({
      required: true,
      factors: [{ id: user.factorId, type: 'totp', friendlyName: 'phone' }],
    });
    expect(claimsOf(signIn.json.accessToken).aal).toBe('aal1');
    const res = await challengeAndVerify(t, signIn.json.accessToken, user.factorId, user.secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(claimsOf(res.json.accessToken).aal).toBe('aal2');

    const plain = await t.signUp();
    expect((await passwordSignIn(t, plain, 'mobile')).json.mfa).toBeUndefined();
  });

  it('refuses a code already used within its window, and accepts the next step’s code', async () => {
    const user = await userWithFactor(t);
    const signIn = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    const code = totpCode(t, user.secret);
    const first = await challengeAndVerify(t, signIn, user.factorId, user.secret);
    expect(first.statusCode, first.body).toBe(200);

    const other = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    for (const offset of [0, -1]) {
      const c = await challenge(t, other, user.factorId);
      const replay = await verify(t, other, user.factorId, c.json.id, totpCode(t, user.secret, offset));
      expect(replay.statusCode, `${offset}: ${replay.body}`).toBe(400);
      expect(replay.json.error).toBe('AUTH_MFA_VERIFICATION_FAILED');
    }
    expect(totpCode(t, user.secret)).toBe(code);
    t.clock.advance(30_000);
    expect((await challengeAndVerify(t, other, user.factorId, user.secret)).statusCode).toBe(200);
  });

  it('locks the factor after five wrong codes (even the right code is refused) until five minutes pass', async () => {
    const user = await userWithFactor(t);
    const token = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    const wrong = String((Number(totpCode(t, user.secret)) + 1) % 1_000_000).padStart(6, '0');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await challenge(t, token, user.factorId);
      statuses.push((await verify(t, token, user.factorId, c.json.id, wrong)).statusCode);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 429]);

    const refusedChallenge = await challenge(t, token, user.factorId);
    expect(refusedChallenge.statusCode).toBe(429);
    expect(refusedChallenge.json.error).toBe('AUTH_MFA_FACTOR_LOCKED');
    expect(Number(refusedChallenge.headers['retry-after'])).toBe(300);

    t.clock.advance(299_000);
    expect((await challenge(t, token, user.factorId)).statusCode).toBe(429);
    t.clock.advance(1_000);
    const res = await challengeAndVerify(t, token, user.factorId, user.secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(claimsOf(res.json.accessToken).aal).toBe('aal2');
  });

  it('a right code on a factor locked mid-challenge is refused and changes nothing', async () => {
    const user = await userWithFactor(t);
    const token = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    const pending = await challenge(t, token, user.factorId);
    for (let i = 0; i < 5; i++) {
      const c = await challenge(t, token, user.factorId);
      await verify(t, token, user.factorId, c.json.id, '000000');
    }
    const res = await verify(t, token, user.factorId, pending.json.id, totpCode(t, user.secret));
    expect(res.statusCode).toBe(429);
    expect((await listFactors(token)).json.currentLevel).toBe('aal1');
  });

  it('refuses an expired challenge, an answered one, and one of another session', async () => {
    const user = await userWithFactor(t);
    const token = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    const c = await challenge(t, token, user.factorId);
    t.clock.advance(300_000);
    const expired = await verify(t, token, user.factorId, c.json.id, totpCode(t, user.secret));
    expect(expired.statusCode).toBe(400);
    expect(expired.json).toMatchObject({ error: 'AUTH_MFA_CHALLENGE_EXPIRED', nextActions: expect.any(String) });

    const fresh = await challenge(t, token, user.factorId);
    const otherSession = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    const foreign = await verify(t, otherSession, user.factorId, fresh.json.id, totpCode(t, user.secret));
    expect(foreign.statusCode).toBe(404);

    expect((await verify(t, token, user.factorId, fresh.json.id, totpCode(t, user.secret))).statusCode).toBe(200);
    t.clock.advance(30_000);
    const answered = await verify(t, token, user.factorId, fresh.json.id, totpCode(t, user.secret));
    expect(answered.statusCode).toBe(400);
    expect(answered.json.error).toBe('AUTH_MFA_CHALLENGE_EXPIRED');
  });

  it.each([
    ['a malformed code', 'abc'],
    ['an empty code', ''],
  ])('answers %s with a 4xx', async (_name, code) => {
    const user = await t.signUp();
    const enrolled = await enroll(t, user.accessToken);
    const c = await challenge(t, user.accessToken, enrolled.json.id);
    const res = await verify(t, user.accessToken, enrolled.json.id, c.json.id, code);
    expect([400]).toContain(res.statusCode);
    expect(res.json).toMatchObject({ statusCode: 400, message: expect.any(String) });
  });
});

describe("another user's factor", () => {
  it('is a 404 for challenge, verify and unenroll, and stays untouched', async () => {
    const owner = await userWithFactor(t);
    const intruder = await t.signUp();
    const c = await challenge(t, intruder.accessToken, owner.factorId);
    expect(c.statusCode).toBe(404);
    expect(c.json.error).toBe('AUTH_MFA_FACTOR_NOT_FOUND');
    const ownChallenge = await challenge(t, owner.aal2.accessToken, owner.factorId);
    const v = await verify(t, intruder.accessToken, owner.factorId, ownChallenge.json.id, totpCode(t, owner.secret));
    expect(v.statusCode).toBe(404);
    expect((await unenroll(intruder.accessToken, owner.factorId)).statusCode).toBe(404);
    expect((await challenge(t, intruder.accessToken, randomUUID())).statusCode).toBe(404);
    expect((await listFactors(owner.aal2.accessToken)).json.data).toHaveLength(1);
    // The owner's code was not spent by the intruder's attempt.
    expect(
      (await verify(t, owner.aal2.accessToken, owner.factorId, ownChallenge.json.id, totpCode(t, owner.secret)))
        .statusCode,
    ).toBe(200);
  });
});

describe('unenrolling', () => {
  it('is refused at aal1 while the user has a verified factor, and allowed at aal2', async () => {
    const user = await userWithFactor(t);
    const aal1 = (await passwordSignIn(t, user, 'mobile')).json.accessToken;
    const refused = await unenroll(aal1, user.factorId);
    expect(refused.statusCode).toBe(403);
    expect(refused.json.error).toBe('AUTH_INSUFFICIENT_AAL');
    expect((await listFactors(aal1)).json.data).toHaveLength(1);

    const ok = await unenroll(user.aal2.accessToken, user.factorId);
    expect(ok.statusCode, ok.body).toBe(200);
    const after = await listFactors(user.aal2.accessToken);
    expect(after.json).toMatchObject({ data: [], recoveryCodesRemaining: 0, nextLevel: 'aal1' });
    expect((await passwordSignIn(t, user, 'mobile')).json.mfa).toBeUndefined();
  });

  it('an unverified factor of a user without verified ones can go at aal1', async () => {
    const user = await t.signUp();
    const enrolled = await enroll(t, user.accessToken);
    expect((await unenroll(user.accessToken, enrolled.json.id)).statusCode).toBe(200);
    expect((await unenroll(user.accessToken, enrolled.json.id)).statusCode).toBe(404);
  });
});

describe('who may call', () => {
  it('the admin token has no user factors (403), and no credential is a 401', async () => {
    const admin = await t.adminToken();
    const res = await listFactors(admin);
    expect(res.statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/api/auth/mfa/factors' })).statusCode).toBe(401);
  });
});
