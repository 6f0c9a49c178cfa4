// Passkeys through HTTP with a software authenticator (real WebAuthn bytes, ES256): registration,
// list/rename/remove, discoverable sign-in, a counter that goes backwards (cloned authenticator),
// challenges that are single use and expire, bad payloads, and the admin's view (audited).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { challengeAndVerify, enroll } from '../../harness/mfa.js';
import { passwordSignIn } from '../../harness/sessions.js';
import { SoftAuthenticator } from '../../harness/soft-authenticator.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

const API_BASE_URL = 'https://api.example.com:8443';
const ORIGIN = 'https://api.example.com:8443';

let t: TestApp;
let adminToken: string;

beforeAll(async () => {
  // No WEBAUTHN_* set: the relying party comes from API_BASE_URL.
  t = await startTestApp({ env: { API_BASE_URL } });
  adminToken = await t.adminToken();
});
afterAll(() => t.close());

const registrationOptions = (token: string, payload: any = {}) =>
  t.request({ method: 'POST', url: '/api/auth/passkeys/registration-options', headers: bearer(token), payload });
const register = (token: string, payload: any) =>
  t.request({ method: 'POST', url: '/api/auth/passkeys', headers: bearer(token), payload });
const listPasskeys = (token: string) => t.request({ method: 'GET', url: '/api/auth/passkeys', headers: bearer(token) });
const signInOptions = (ip = '10.9.0.1') =>
  t.request({ method: 'POST', url: '/api/auth/passkeys/sign-in-options', remoteAddress: ip });
const signIn = (payload: any) =>
  t.request({ method: 'POST', url: '/api/auth/passkeys/sign-in?client_type=mobile', payload });

/** A new user with one registered passkey on a fresh software authenticator. */
async function userWithPasskey(name = 'Laptop') {
  const session = await t.signUp();
  const authenticator = new SoftAuthenticator(ORIGIN);
  const options = await registrationOptions(session.accessToken, { name });
  expect(options.statusCode, options.body).toBe(200);
  const { json } = authenticator.create(options.json.options);
  const created = await register(session.accessToken, { challengeId: options.json.challengeId, credential: json });
  expect(created.statusCode, created.body).toBe(200);
  return { session, authenticator, passkey: created.json };
}

async function signInWith(authenticator: SoftAuthenticator, tweaks = {}) {
  const options = await signInOptions();
  expect(options.statusCode, options.body).toBe(200);
  return signIn({ challengeId: options.json.challengeId, credential: authenticator.get(options.json.options, tweaks) });
}

/** A session at aal2 for the passkey's user: signing in with the passkey (it verified the user). */
async function aal2Token(authenticator: SoftAuthenticator): Promise<string> {
  const res = await signInWith(authenticator);
  expect(res.statusCode, res.body).toBe(200);
  return res.json.accessToken;
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
const assuranceOptions = (token: string) =>
  t.request({ method: 'POST', url: '/api/auth/passkeys/assurance-options', headers: bearer(token) });
const assurance = (token: string, payload: any) =>
  t.request({
    method: 'POST',
    url: '/api/auth/passkeys/assurance?client_type=mobile',
    headers: bearer(token),
    payload,
  });

const expectError = (res: { statusCode: number; json: any; body: string }, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json).toMatchObject({ error: code, statusCode: status });
  expect(typeof res.json.message).toBe('string');
};

describe('relying party from configuration', () => {
  it('defaults to API_BASE_URL: its host name is the RP id, its origin the only origin', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/auth/passkeys/relying-party',
      headers: bearer(adminToken),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ rpId: 'api.example.com', rpName: 'Plinth', origins: [ORIGIN] });
  });

  it('WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME and WEBAUTHN_ORIGINS override them; a bad origin list is refused', () => {
    const config = loadConfig({
      API_BASE_URL,
      WEBAUTHN_RP_ID: 'example.com',
      WEBAUTHN_RP_NAME: 'Acme',
      WEBAUTHN_ORIGINS: 'https://app.example.com, https://www.example.com',
    });
    expect(config.webauthn).toEqual({
      rpId: 'example.com',
      rpName: 'Acme',
      origins: ['https://app.example.com', 'https://www.example.com'],
    });
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'https://app.example.com/path' })).toThrow(/WEBAUTHN_ORIGINS/);
  });
});

describe('registration', () => {
  it('options ask for a discoverable, user-verified credential of this RP and user; the passkey is listed', async () => {
    const { session, authenticator, passkey } = await userWithPasskey('Laptop');
    expect(passkey).toMatchObject({ name: 'Laptop', transports: ['internal'], lastUsedAt: null });
    const list = await listPasskeys(session.accessToken);
    expect(list.json.data).toEqual([passkey]);

    // A second passkey needs aal2 (the first one is a second factor): sign in with it.
    const options = await registrationOptions(await aal2Token(authenticator));
    expect(options.json.options).toMatchObject({
      rp: { id: 'api.example.com', name: 'Plinth' },
      user: { name: session.email, id: Buffer.from(session.user.id).toString('base64url') },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      // The passkey already registered is excluded (the authenticator would refuse to make a second).
      excludeCredentials: [{ id: passkey.credentialId, type: 'public-key' }],
    });
    expect(Date.parse(options.json.expiresAt) - t.clock.now().getTime()).toBe(300_000);
  });

  it('a challenge is single use: the same answer again is refused, and only one passkey exists', async () => {
    const session = await t.signUp();
    const authenticator = new SoftAuthenticator(ORIGIN);
    const options = await registrationOptions(session.accessToken);
    const { json } = authenticator.create(options.json.options);
    const body = { challengeId: options.json.challengeId, credential: json };
    expect((await register(session.accessToken, body)).statusCode).toBe(200);
    expectError(await register(session.accessToken, body), 400, 'VALIDATION_ERROR');
    expect((await listPasskeys(session.accessToken)).json.data).toHaveLength(1);
  });

  it('an expired challenge is refused', async () => {
    const session = await t.signUp();
    const options = await registrationOptions(session.accessToken);
    const { json } = new SoftAuthenticator(ORIGIN).create(options.json.options);
    t.clock.advance(300_001);
    const res = await register(session.accessToken, { challengeId: options.json.challengeId, credential: json });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json.message).toMatch(/expired/);
    expect(res.json.nextActions).toMatch(/new options/);
  });

  it("another user's challenge is refused", async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    const options = await registrationOptions(alice.accessToken);
    const { json } = new SoftAuthenticator(ORIGIN).create(options.json.options);
    expectError(
      await register(bob.accessToken, { challengeId: options.json.challengeId, credential: json }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await listPasskeys(bob.accessToken)).json.data).toEqual([]);
  });

  it.each([
    ['another origin', { origin: 'https://evil.example.net' }],
    ['another RP id', { rpId: 'evil.example.net' }],
    ['no user verification', { noUserVerification: true }],
    ['a sign-in answer type', { type: 'webauthn.get' }],
  ])(
    'an answer with %s is refused, and the failed step changes nothing (the challenge still works)',
    async (_label, tweaks) => {
      const session = await t.signUp();
      const options = await registrationOptions(session.accessToken);
      const bad = new SoftAuthenticator(ORIGIN).create(options.json.options, tweaks).json;
      expectError(
        await register(session.accessToken, { challengeId: options.json.challengeId, credential: bad }),
        400,
        'VALIDATION_ERROR',
      );
      expect((await listPasskeys(session.accessToken)).json.data).toEqual([]);
      const good = new SoftAuthenticator(ORIGIN).create(options.json.options).json;
      expect(
        (await register(session.accessToken, { challengeId: options.json.challengeId, credential: good })).statusCode,
      ).toBe(200);
    },
  );

  it.each([
    ['no body', undefined],
    ['no credential', { challengeId: '00000000-0000-4000-8000-000000000000' }],
    ['a challenge id that is not a uuid', { challengeId: 'x', credential: {} }],
    [
      'an attestation that is not CBOR',
      {
        challengeId: 'use-options',
        credential: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          clientExtensionResults: {},
          response: { clientDataJSON: 'e30', attestationObject: 'bm90LWNib3I' },
        },
      },
    ],
    [
      'a credential field that is not base64url',
      {
        challengeId: 'use-options',
        credential: {
          id: 'a b',
          rawId: 'a b',
          type: 'public-key',
          response: { clientDataJSON: '{}', attestationObject: '!' },
        },
      },
    ],
  ])('a malformed payload (%s) is a 400 in the error shape', async (_label, payload) => {
    const session = await t.signUp();
    const options = await registrationOptions(session.accessToken);
    const body =
      payload && (payload as any).challengeId === 'use-options'
        ? { ...payload, challengeId: options.json.challengeId }
        : payload;
    expectError(await register(session.accessToken, body), 400, 'VALIDATION_ERROR');
    expect((await listPasskeys(session.accessToken)).json.data).toEqual([]);
  });

  it('the project admin has no passkeys of its own', async () => {
    expectError(await registrationOptions(adminToken), 403, 'INSUFFICIENT_PERMISSIONS');
  });
});

describe('discoverable sign-in', () => {
  it('options carry no allowCredentials; the assertion opens a session of the passkey user', async () => {
    const { session, authenticator, passkey } = await userWithPasskey();
    const options = await signInOptions();
    expect(options.json.options).toMatchObject({ rpId: 'api.example.com', userVerification: 'required' });
    expect(options.json.options.allowCredentials ?? []).toEqual([]);

    const res = await signIn({
      challengeId: options.json.challengeId,
      credential: authenticator.get(options.json.options),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.user).toMatchObject({ id: session.user.id, email: session.email });
    // A passkey that verified its user is two factors in one step: the session starts at aal2,
    // and the answer asks for no other factor.
    expect(claimsOf(res.json.accessToken)).toMatchObject({
      sub: session.user.id,
      aal: 'aal2',
      amr: [{ method: 'webauthn', timestamp: expect.any(Number) }],
    });
    expect(res.json.mfa).toBeUndefined();
    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(res.json.accessToken),
    });
    expect(me.json.user.id).toBe(session.user.id);
    const refreshed = await t.request({
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      payload: { refreshToken: res.json.refreshToken },
    });
    expect(refreshed.statusCode).toBe(200);

    const [listed] = (await listPasskeys(session.accessToken)).json.data;
    expect(listed.id).toBe(passkey.id);
    expect(listed.lastUsedAt).toBe(t.clock.now().toISOString());
  });

  it('a web client gets the refresh cookie and a CSRF token', async () => {
    const { authenticator } = await userWithPasskey();
    const options = await signInOptions();
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/passkeys/sign-in',
      payload: { challengeId: options.json.challengeId, credential: authenticator.get(options.json.options) },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.csrfToken).toEqual(expect.any(String));
    expect(res.cookies.find((c) => c.name === 'svc_refresh_token')?.httpOnly).toBe(true);
  });

  it('a counter that goes backwards (a cloned authenticator) is refused, and the stored counter stays', async () => {
    const { authenticator } = await userWithPasskey();
    expect((await signInWith(authenticator, { counter: 5 })).statusCode).toBe(200);
    const cloned = await signInWith(authenticator, { counter: 3 });
    expectError(cloned, 401, 'UNAUTHORIZED');
    expect(cloned.json.message).toMatch(/counter went backwards.*cloned/);
    expectError(await signInWith(authenticator, { counter: 5 }), 401, 'UNAUTHORIZED');
    expect((await signInWith(authenticator, { counter: 6 })).statusCode).toBe(200);
  });

  it('a sign-in challenge is single use: replaying a good assertion is refused', async () => {
    const { authenticator } = await userWithPasskey();
    const options = await signInOptions();
    const body = { challengeId: options.json.challengeId, credential: authenticator.get(options.json.options) };
    expect((await signIn(body)).statusCode).toBe(200);
    expectError(await signIn(body), 400, 'VALIDATION_ERROR');
  });

  it('an expired sign-in challenge is refused', async () => {
    const { authenticator } = await userWithPasskey();
    const options = await signInOptions();
    t.clock.advance(300_001);
    const res = await signIn({
      challengeId: options.json.challengeId,
      credential: authenticator.get(options.json.options),
    });
    expectError(res, 400, 'VALIDATION_ERROR');
  });

  it('a registration challenge cannot be used to sign in', async () => {
    const { authenticator } = await userWithPasskey();
    const options = await registrationOptions(await aal2Token(authenticator));
    const credential = authenticator.get({ challenge: options.json.options.challenge, rpId: 'api.example.com' });
    expectError(await signIn({ challengeId: options.json.challengeId, credential }), 400, 'VALIDATION_ERROR');
  });

  it.each([
    ['another origin', { origin: 'https://evil.example.net' }],
    ['another RP id', { rpId: 'evil.example.net' }],
    ['no user verification', { noUserVerification: true }],
    ['a registration answer type', { type: 'webauthn.create' }],
    [
      'a user handle of someone else',
      { userHandle: Buffer.from('00000000-0000-4000-8000-000000000000').toString('base64url') },
    ],
  ])('an assertion with %s is refused with 401', async (_label, tweaks) => {
    const { authenticator } = await userWithPasskey();
    expectError(await signInWith(authenticator, tweaks), 401, 'UNAUTHORIZED');
  });

  it('a passkey that was never registered is refused', async () => {
    const stray = new SoftAuthenticator(ORIGIN);
    stray.create({ challenge: 'AAAA', rp: { id: 'api.example.com' }, user: { id: 'AAAA' } });
    const res = await signInWith(stray);
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.json.message).toMatch(/not registered/);
  });

  it('sign-in options are limited per IP (each stores a challenge)', async () => {
    const put = await t.request({
      method: 'PUT',
      url: '/api/auth/rate-limits',
      headers: bearer(adminToken),
      payload: { limits: [{ name: 'passkey-sign-in:ip', max: 2, windowSeconds: 60 }] },
    });
    expect(put.statusCode, put.body).toBe(200);
    try {
      expect((await signInOptions('10.9.9.9')).statusCode).toBe(200);
      expect((await signInOptions('10.9.9.9')).statusCode).toBe(200);
      expectError(await signInOptions('10.9.9.9'), 429, 'TOO_MANY_REQUESTS');
      expect((await signInOptions('10.9.9.10')).statusCode).toBe(200);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/rate-limits',
        headers: bearer(adminToken),
        payload: { limits: [{ name: 'passkey-sign-in:ip', reset: true }] },
      });
    }
  });
});

describe('managing passkeys', () => {
  it('rename and remove; a removed passkey no longer signs in; another user cannot touch them', async () => {
    const { session, authenticator, passkey } = await userWithPasskey('Old name');
    const other = await t.signUp();
    const url = `/api/auth/passkeys/${passkey.id}`;

    expectError(
      await t.request({ method: 'PATCH', url, headers: bearer(other.accessToken), payload: { name: 'Mine' } }),
      404,
      'NOT_FOUND',
    );
    expectError(await t.request({ method: 'DELETE', url, headers: bearer(other.accessToken) }), 404, 'NOT_FOUND');
    expectError(
      await t.request({ method: 'PATCH', url, headers: bearer(session.accessToken), payload: { name: '' } }),
      400,
      'VALIDATION_ERROR',
    );

    const renamed = await t.request({
      method: 'PATCH',
      url,
      headers: bearer(session.accessToken),
      payload: { name: 'Phone' },
    });
    expect(renamed.json).toMatchObject({ id: passkey.id, name: 'Phone' });

    // A passkey is a second factor: removing one needs aal2, so a stolen password alone cannot.
    expectError(
      await t.request({ method: 'DELETE', url, headers: bearer(session.accessToken) }),
      403,
      'AUTH_INSUFFICIENT_AAL',
    );
    expect((await listPasskeys(session.accessToken)).json.data).toHaveLength(1);
    const removed = await t.request({ method: 'DELETE', url, headers: bearer(await aal2Token(authenticator)) });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await listPasskeys(session.accessToken)).json.data).toEqual([]);
    const refused = await signInWith(authenticator);
    expectError(refused, 401, 'UNAUTHORIZED');
    expect(refused.json.message).toMatch(/not registered/);
  });

  it("the admin lists a user's passkeys and removes one; the removal is in the audit log", async () => {
    const { session, authenticator, passkey } = await userWithPasskey('Work key');
    const listed = await t.request({
      method: 'GET',
      url: `/api/auth/users/${session.user.id}/passkeys`,
      headers: bearer(adminToken),
    });
    expect(listed.json.data).toEqual([passkey]);
    expect(listed.body).not.toMatch(/publicKey/);

    const removed = await t.request({
      method: 'DELETE',
      url: `/api/auth/users/${session.user.id}/passkeys/${passkey.id}`,
      headers: bearer(adminToken),
    });
    expect(removed.statusCode).toBe(200);
    expectError(await signInWith(authenticator), 401, 'UNAUTHORIZED');

    await t.app.logs!.flush();
    const audits = await t.request({ method: 'GET', url: '/api/logs/audits?module=AUTH', headers: bearer(adminToken) });
    expect(audits.json).toContainEqual(
      expect.objectContaining({
        action: 'DELETE /api/auth/users/:userId/passkeys/:id',
        details: expect.objectContaining({ target: { userId: session.user.id, id: passkey.id } }),
      }),
    );
  });

  it('deleting a user deletes their passkeys', async () => {
    const { session, authenticator } = await userWithPasskey();
    await t.request({
      method: 'DELETE',
      url: '/api/auth/users',
      headers: bearer(adminToken),
      payload: { userIds: [session.user.id] },
    });
    expectError(await signInWith(authenticator), 401, 'UNAUTHORIZED');
  });
});

describe('a passkey as a second factor', () => {
  it('an aal1 session proves a passkey of its user and gets aal2 tokens (amr webauthn); refresh keeps aal2', async () => {
    const { session, authenticator, passkey } = await userWithPasskey();
    const other = await userWithPasskey();
    expect(claimsOf(session.accessToken).aal).toBe('aal1');

    const options = await assuranceOptions(session.accessToken);
    expect(options.statusCode, options.body).toBe(200);
    // Only the caller's passkeys may answer.
    expect(options.json.options.allowCredentials).toEqual([
      { id: passkey.credentialId, type: 'public-key', transports: ['internal'] },
    ]);
    expect(options.json.options.allowCredentials).not.toContainEqual(
      expect.objectContaining({ id: other.passkey.credentialId }),
    );

    const res = await assurance(session.accessToken, {
      challengeId: options.json.challengeId,
      credential: authenticator.get(options.json.options),
    });
    expect(res.statusCode, res.body).toBe(200);
    const claims = claimsOf(res.json.accessToken);
    expect(claims).toMatchObject({ sub: session.user.id, sid: claimsOf(session.accessToken).sid, aal: 'aal2' });
    expect(claims.amr.map((e: { method: string }) => e.method)).toEqual(['password', 'webauthn']);

    const refreshed = await t.request({
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      payload: { refreshToken: res.json.refreshToken },
    });
    expect(claimsOf(refreshed.json.accessToken).aal).toBe('aal2');
  });

  it("another user's passkey cannot raise the session, and the failed step changes nothing", async () => {
    const { session, authenticator } = await userWithPasskey();
    const other = await userWithPasskey();
    const options = await assuranceOptions(session.accessToken);
    const refused = await assurance(session.accessToken, {
      challengeId: options.json.challengeId,
      credential: other.authenticator.get(options.json.options),
    });
    expectError(refused, 401, 'UNAUTHORIZED');
    expect(refused.json.message).toMatch(/another user/);
    // The same challenge still works with the user's own passkey.
    const ok = await assurance(session.accessToken, {
      challengeId: options.json.challengeId,
      credential: authenticator.get(options.json.options),
    });
    expect(claimsOf(ok.json.accessToken).aal).toBe('aal2');
  });

  it('a challenge of another session of the same user is refused; a counter going backwards is refused', async () => {
    const { session, authenticator } = await userWithPasskey();
    const second = await t.request({
      method: 'POST',
      url: '/api/auth/sessions?client_type=mobile',
      payload: { email: session.email, password: session.password },
    });
    const options = await assuranceOptions(second.json.accessToken);
    expectError(
      await assurance(session.accessToken, {
        challengeId: options.json.challengeId,
        credential: authenticator.get(options.json.options),
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await signInWith(authenticator, { counter: 5 })).statusCode).toBe(200);
    const mine = await assuranceOptions(session.accessToken);
    const cloned = await assurance(session.accessToken, {
      challengeId: mine.json.challengeId,
      credential: authenticator.get(mine.json.options, { counter: 4 }),
    });
    expectError(cloned, 401, 'UNAUTHORIZED');
    expect(cloned.json.message).toMatch(/cloned/);
  });

  it('a user without passkeys is told how to register one; the admin has none', async () => {
    const session = await t.signUp();
    const res = await assuranceOptions(session.accessToken);
    expectError(res, 404, 'NOT_FOUND');
    expect(res.json.nextActions).toMatch(/registration-options/);
    expectError(await assuranceOptions(adminToken), 403, 'INSUFFICIENT_PERMISSIONS');
  });
});

describe('passkeys among the second factors', () => {
  it('a password sign-in of a user with a passkey is aal1 and lists the passkey as a factor to verify', async () => {
    const { session, passkey } = await userWithPasskey('Laptop');
    const res = await passwordSignIn(t, session, 'mobile');
    expect(res.statusCode, res.body).toBe(200);
    expect(claimsOf(res.json.accessToken).aal).toBe('aal1');
    expect(res.json.mfa).toEqual({
      required: true,
      factors: [{ id: passkey.id, type: 'webauthn', friendlyName: 'Laptop' }],
    });
  });

  it('TOTP factors come first, then passkeys', async () => {
    const { session, authenticator, passkey } = await userWithPasskey('Key');
    const aal2 = await aal2Token(authenticator);
    const enrolled = await enroll(t, aal2, 'phone');
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    expect((await challengeAndVerify(t, aal2, enrolled.json.id, enrolled.json.totp.secret)).statusCode).toBe(200);
    const res = await passwordSignIn(t, session, 'mobile');
    expect(res.json.mfa.factors).toEqual([
      { id: enrolled.json.id, type: 'totp', friendlyName: 'phone' },
      { id: passkey.id, type: 'webauthn', friendlyName: 'Key' },
    ]);
  });

  it('a stolen password alone (aal1) cannot add a passkey or a TOTP factor to an account that has a passkey', async () => {
    const { session, authenticator } = await userWithPasskey();
    const aal1 = (await passwordSignIn(t, session, 'mobile')).json.accessToken;
    const refusedPasskey = await registrationOptions(aal1);
    expectError(refusedPasskey, 403, 'AUTH_INSUFFICIENT_AAL');
    expect(refusedPasskey.json.nextActions).toMatch(/passkeys\/assurance/);
    expectError(await enroll(t, aal1, 'attacker phone'), 403, 'AUTH_INSUFFICIENT_AAL');
    expect((await listPasskeys(aal1)).json.data).toHaveLength(1);
    expect((await t.request({ method: 'GET', url: '/api/auth/mfa/factors', headers: bearer(aal1) })).json.data).toEqual(
      [],
    );

    // Proving the passkey raises that session, which may then add both.
    const options = await assuranceOptions(aal1);
    const raised = await assurance(aal1, {
      challengeId: options.json.challengeId,
      credential: authenticator.get(options.json.options),
    });
    expect(raised.statusCode, raised.body).toBe(200);
    expect((await registrationOptions(raised.json.accessToken)).statusCode).toBe(200);
    expect((await enroll(t, raised.json.accessToken, 'phone')).statusCode).toBe(200);
  });
});
