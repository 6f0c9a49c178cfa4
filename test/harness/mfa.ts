// What tests of second factors do as a client: enroll a TOTP factor, make codes with otpauth at
// the test clock's time, challenge and verify, and read an access token's claims.
import { Secret, TOTP } from 'otpauth';
import { bearer, type TestApp } from './test-app.js';

type Requester = Pick<TestApp, 'request' | 'clock'>;

export const claimsOf = (accessToken: string) =>
  JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8'));

/** The code an authenticator app shows for `secret` at the test clock's time (or `offsetSteps` away). */
export const totpCode = (t: Pick<TestApp, 'clock'>, secret: string, offsetSteps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: t.clock.now().getTime() + offsetSteps * 30_000 });

export const enroll = (t: Requester, accessToken: string, friendlyName?: string) =>
  t.request({
    method: 'POST',
    url: '/api/auth/mfa/factors',
    headers: bearer(accessToken),
    payload: friendlyName === undefined ? {} : { friendlyName },
  });

export const challenge = (t: Requester, accessToken: string, factorId: string) =>
  t.request({
    method: 'POST',
    url: `/api/auth/mfa/factors/${factorId}/challenge`,
    headers: bearer(accessToken),
    payload: {},
  });

export const verify = (t: Requester, accessToken: string, factorId: string, challengeId: string, code: string) =>
  t.request({
    method: 'POST',
    url: `/api/auth/mfa/factors/${factorId}/verify?client_type=mobile`,
    headers: bearer(accessToken),
    payload: { challengeId, code },
  });

/** Challenges and verifies in one go with the current code; returns the verify answer. */
export async function challengeAndVerify(t: Requester, accessToken: string, factorId: string, secret: string) {
  const c = await challenge(t, accessToken, factorId);
  if (c.statusCode !== 200) throw new Error(`challenge failed: ${c.statusCode} ${c.body}`);
  return verify(t, accessToken, factorId, c.json.id, totpCode(t, secret));
}

/**
 * A user with a verified TOTP factor: the aal2 tokens of the sign-up session, the factor, its
 * secret and the recovery codes. The clock moves one step on, so the next code is a fresh one.
 */
export async function userWithFactor(t: TestApp) {
  const user = await t.signUp();
  const enrolled = await enroll(t, user.accessToken, 'phone');
  if (enrolled.statusCode !== 200) throw new Error(`enroll failed: ${enrolled.statusCode} ${enrolled.body}`);
  const secret = enrolled.json.totp.secret as string;
  const verified = await challengeAndVerify(t, user.accessToken, enrolled.json.id, secret);
  if (verified.statusCode !== 200) throw new Error(`verify failed: ${verified.statusCode} ${verified.body}`);
  t.clock.advance(30_000);
  return {
    ...user,
    factorId: enrolled.json.id as string,
    secret,
    aal2: { accessToken: verified.json.accessToken as string, refreshToken: verified.json.refreshToken as string },
    recoveryCodes: verified.json.recoveryCodes as string[],
  };
}
