// Native ID-token sign-in (POST /api/auth/id-token) for Google and Apple, with tokens signed by
// keys the test generates and serves as a JWKS over loopback: signature, issuer, audience
// (clientId or a nativeClientId), expiry, Apple's hashed nonce, verified email only, first-sign-in
// name, and the per-IP rate limit.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { startIdTokenIssuer, type IdTokenIssuer } from '../../harness/id-token-issuer.js';
import { cookieFrom, startTestApp, type TestApp } from '../../harness/test-app.js';
import { createConfirmedUser } from '../../harness/users.js';
import { currentSession } from '../../harness/sessions.js';

const GOOGLE = {
  clientId: 'google-web-client.apps.example',
  nativeClientIds: ['google-ios-client.apps.example', 'google-android-client.apps.example'],
};
const APPLE = { clientId: 'com.example.web', nativeClientIds: ['com.example.ios'] };

let t: TestApp;
let google: IdTokenIssuer;
let apple: IdTokenIssuer;
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  google = await startIdTokenIssuer({ issuer: 'https://accounts.google.com' });
  apple = await startIdTokenIssuer({ issuer: 'https://appleid.apple.com' });
  t = await startTestApp();
  const configs = [
    { provider: 'google', ...GOOGLE, jwksUrl: google.jwksUrl, issuer: google.issuer },
    // Apple keeps its built-in issuer (https://appleid.apple.com, the one its issuer stand-in uses).
    { provider: 'apple', ...APPLE, jwksUrl: apple.jwksUrl },
  ];
  for (const payload of configs) {
    const res = await t.request({ method: 'POST', url: '/api/auth/oauth/configs', headers: admin(), payload });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
  await google?.close();
  await apple?.close();
});

let ipCounter = 0;
/** A client IP no other request of this file uses, so the per-IP limit only bites where tested. */
const freshIp = () => {
  ipCounter++;
  return `10.20.${Math.floor(ipCounter / 250)}.${1 + (ipCounter % 250)}`;
};

function idTokenSignIn(body: Record<string, unknown>, opts: { clientType?: string; ip?: string } = {}) {
  return t.request({
    method: 'POST',
    url: `/api/auth/id-token?client_type=${opts.clientType ?? 'mobile'}`,
    payload: body,
    remoteAddress: opts.ip ?? freshIp(),
  });
}

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');
const unique = () => randomBytes(4).toString('hex');

/** Claims of a fresh account, timed by Plinth's clock (which verifies expiry). */
function claims(aud: string, overrides: Record<string, unknown> = {}) {
  const tag = unique();
  const now = epochSeconds(t.clock.now());
  return {
    sub: `acct-${tag}`,
    aud,
    email: `native-${tag}@example.com`,
    email_verified: true,
    iat: now,
    exp: now + 600,
    ...overrides,
  };
}

describe('Google', () => {
  it('a valid token opens a session for a new user with the token email, verified; again → same user', async () => {
    const c = claims(GOOGLE.clientId, { name: 'Grace Hopper', picture: 'https://cdn.example/grace.png' });
    const res = await idTokenSignIn({ provider: 'google', token: await google.sign(c) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({
      user: expect.objectContaining({
        email: c.email,
        emailVerified: true,
        providers: ['google'],
        profile: expect.objectContaining({ name: 'Grace Hopper', avatar_url: 'https://cdn.example/grace.png' }),
      }),
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    const me = await currentSession(t, res.json.accessToken);
    expect(me.statusCode).toBe(200);
    expect(me.json.user.id).toBe(res.json.user.id);

    const again = await idTokenSignIn({
      provider: 'google',
      token: await google.sign({ ...c, email: 'changed@example.com' }),
    });
    expect(again.statusCode).toBe(200);
    expect(again.json.user.id).toBe(res.json.user.id);
  });

  it.each(GOOGLE.nativeClientIds)('a token for the native client %s is accepted', async (aud) => {
    const res = await idTokenSignIn({ provider: 'google', token: await google.sign(claims(aud)) });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('web client: refresh cookie and csrfToken', async () => {
    const res = await idTokenSignIn(
      { provider: 'google', token: await google.sign(claims(GOOGLE.clientId)) },
      { clientType: 'web' },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({ accessToken: expect.any(String), csrfToken: expect.any(String) });
    expect(res.json.refreshToken ?? null).toBeNull();
    expect(cookieFrom(res, 'svc_refresh_token')).toMatchObject({ httpOnly: true });
  });

  it('a verified email of an existing account, with linking by email off (the default): 409 saying how to link', async () => {
    const email = `unlinked-${unique()}@example.com`;
    const created = await createConfirmedUser(t, email);
    expect(created.statusCode, created.body).toBe(200);
    const res = await idTokenSignIn({
      provider: 'google',
      token: await google.sign(claims(GOOGLE.clientId, { email })),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json).toMatchObject({
      error: 'CONFLICT',
      nextActions: expect.stringContaining('/api/auth/identities/oauth/google'),
    });
    const user = await t.request({ method: 'GET', url: `/api/auth/users/${created.json.user.id}`, headers: admin() });
    expect(user.json.providers).toEqual(['email']);
  });

  it('a verified email links to the existing account with that email', async () => {
    // Linking by verified email is the admin's choice (off by default; identities-link.test.ts covers off).
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'x-api-key': t.apiKey },
      payload: { linkOAuthByEmail: true },
    });
    try {
      const email = `linked-${unique()}@example.com`;
      const created = await createConfirmedUser(t, email);
      expect(created.statusCode, created.body).toBe(200);
      const res = await idTokenSignIn({
        provider: 'google',
        token: await google.sign(claims(GOOGLE.clientId, { email })),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json.user.id).toBe(created.json.user.id);
      expect([...res.json.user.providers].sort()).toEqual(['email', 'google']);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/config',
        headers: { 'x-api-key': t.apiKey },
        payload: { linkOAuthByEmail: false },
      });
    }
  });

  it('an unverified email is not used: no new account, and no link to an existing one', async () => {
    const c = claims(GOOGLE.clientId, { email_verified: false });
    const res = await idTokenSignIn({ provider: 'google', token: await google.sign(c) });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('did not share an email'),
    });
    expect(res.json.accessToken).toBeUndefined();

    const existing = await t.signUp();
    const takeover = await idTokenSignIn({
      provider: 'google',
      token: await google.sign(claims(GOOGLE.clientId, { email: existing.email, email_verified: false })),
    });
    expect(takeover.statusCode).toBe(400);
    const user = await t.request({ method: 'GET', url: `/api/auth/users/${existing.user.id}`, headers: admin() });
    expect(user.json.providers).toEqual(['email']);
  });

  it('a token without an email creates no account', async () => {
    const res = await idTokenSignIn({
      provider: 'google',
      token: await google.sign(claims(GOOGLE.clientId, { email: undefined, email_verified: undefined })),
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('sign-up disabled', () => {
  it('refuses a new account with 403 while a known one still signs in', async () => {
    const known = claims(GOOGLE.clientId);
    expect((await idTokenSignIn({ provider: 'google', token: await google.sign(known) })).statusCode).toBe(200);
    const set = (disableSignup: boolean) =>
      t.request({ method: 'PUT', url: '/api/auth/config', headers: admin(), payload: { disableSignup } });
    expect((await set(true)).statusCode).toBe(200);
    try {
      const refused = await idTokenSignIn({ provider: 'google', token: await google.sign(claims(GOOGLE.clientId)) });
      expect(refused.statusCode).toBe(403);
      expect(refused.json.error).toBe('AUTH_SIGNUP_DISABLED');
      const again = await idTokenSignIn({ provider: 'google', token: await google.sign(known) });
      expect(again.statusCode, again.body).toBe(200);
    } finally {
      expect((await set(false)).statusCode).toBe(200);
    }
  });
});

describe('tokens that must be refused (401)', () => {
  const cases: [string, () => Promise<string>][] = [
    ['the wrong audience', () => google.sign(claims('someone-elses-client'))],
    ['an Apple client id as audience of a Google token', () => google.sign(claims(APPLE.clientId))],
    [
      'an expired token',
      async () => {
        const now = epochSeconds(t.clock.now());
        return google.sign(claims(GOOGLE.clientId, { iat: now - 3600, exp: now - 1 }));
      },
    ],
    ['the wrong issuer', () => google.sign(claims(GOOGLE.clientId, { iss: 'https://evil.example' }))],
    [
      "Apple's issuer on a Google token",
      () => google.sign(claims(GOOGLE.clientId, { iss: 'https://appleid.apple.com' })),
    ],
    ['a key the JWKS does not list', () => google.sign(claims(GOOGLE.clientId), { unknownKey: true })],
    [
      'an unlisted key claiming the listed kid',
      () => google.sign(claims(GOOGLE.clientId), { unknownKey: true, kid: google.kid }),
    ],
    ["a token signed by Apple's key", () => apple.sign({ ...claims(GOOGLE.clientId), iss: google.issuer })],
    [
      'a tampered payload',
      async () => {
        const [header, payload, signature] = (await google.sign(claims(GOOGLE.clientId))).split('.');
        const changed = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), email: 'admin@example.com' };
        return [header, Buffer.from(JSON.stringify(changed)).toString('base64url'), signature].join('.');
      },
    ],
    [
      'an unsigned token (alg none)',
      async () => {
        const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
        return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...claims(GOOGLE.clientId), iss: google.issuer })}.`;
      },
    ],
    ['something that is not a JWT', async () => 'not-a-jwt'],
  ];

  it.each(cases)('%s', async (_name, token) => {
    const res = await idTokenSignIn({ provider: 'google', token: await token() });
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401, nextActions: expect.any(String) });
    expect(res.json.accessToken).toBeUndefined();
  });
});

describe('Apple', () => {
  it('the SHA-256 hex of the raw nonce matches: session; the name sent is kept from the first sign-in', async () => {
    const nonce = `raw-${unique()}`;
    const c = claims(APPLE.nativeClientIds[0]!, { nonce: sha256Hex(nonce), email_verified: 'true' });
    const first = await idTokenSignIn({ provider: 'apple', token: await apple.sign(c), nonce, name: 'Ada Lovelace' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json.user).toMatchObject({
      email: c.email,
      emailVerified: true,
      providers: ['apple'],
      profile: { name: 'Ada Lovelace' },
    });

    // Apple sends the name only once; a later sign-in changes nothing.
    const nonce2 = `raw-${unique()}`;
    const again = await idTokenSignIn({
      provider: 'apple',
      token: await apple.sign({ ...c, nonce: sha256Hex(nonce2) }),
      nonce: nonce2,
      name: 'Somebody Else',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json.user).toMatchObject({ id: first.json.user.id, profile: { name: 'Ada Lovelace' } });
  });

  it('the web clientId is an accepted audience too', async () => {
    const nonce = `raw-${unique()}`;
    const res = await idTokenSignIn({
      provider: 'apple',
      token: await apple.sign(claims(APPLE.clientId, { nonce: sha256Hex(nonce) })),
      nonce,
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it.each([
    ['a different raw nonce', (n: string) => ({ tokenNonce: sha256Hex(n), sent: `${n}x` })],
    ['the hash sent instead of the raw nonce', (n: string) => ({ tokenNonce: sha256Hex(n), sent: sha256Hex(n) })],
    ['the raw nonce in the token', (n: string) => ({ tokenNonce: n, sent: n })],
    ['an uppercase hex digest in the token', (n: string) => ({ tokenNonce: sha256Hex(n).toUpperCase(), sent: n })],
    ['no nonce claim in the token', (n: string) => ({ tokenNonce: undefined, sent: n })],
  ])('%s is a 401', async (_name, make) => {
    const { tokenNonce, sent } = make(`raw-${unique()}`);
    const res = await idTokenSignIn({
      provider: 'apple',
      token: await apple.sign(claims(APPLE.clientId, { nonce: tokenNonce })),
      nonce: sent,
    });
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json.error).toBe('UNAUTHORIZED');
  });

  it('a request without the nonce, or with unknown fields, is a 400', async () => {
    const token = await apple.sign(claims(APPLE.clientId, { nonce: sha256Hex('n') }));
    expect((await idTokenSignIn({ provider: 'apple', token })).statusCode).toBe(400);
    expect((await idTokenSignIn({ provider: 'apple', token, nonce: '   ' })).statusCode).toBe(400);
    expect((await idTokenSignIn({ provider: 'apple', token, nonce: 'n', extra: 1 })).statusCode).toBe(400);
    expect((await idTokenSignIn({ provider: 'github', token })).statusCode).toBe(400);
  });

  it('an Apple token for a Google audience, or from the Google issuer, is a 401', async () => {
    const nonce = 'n';
    for (const token of [
      await apple.sign(claims(GOOGLE.clientId, { nonce: sha256Hex(nonce) })),
      await google.sign({ ...claims(APPLE.clientId, { nonce: sha256Hex(nonce) }), iss: apple.issuer }),
    ]) {
      expect((await idTokenSignIn({ provider: 'apple', token, nonce })).statusCode).toBe(401);
    }
  });

  it('a private-relay address Apple did not verify is not used: a new account is refused', async () => {
    const nonce = `raw-${unique()}`;
    const res = await idTokenSignIn({
      provider: 'apple',
      token: await apple.sign(claims(APPLE.clientId, { nonce: sha256Hex(nonce), email_verified: 'false' })),
      nonce,
      name: 'Nobody',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.message).toContain('did not share an email');
  });
});

describe('rate limit', () => {
  it('the 31st sign-in from one IP within 15 minutes is a 429 with Retry-After; other IPs are unaffected', async () => {
    const ip = '10.99.99.99';
    for (let i = 0; i < 30; i++) {
      const res = await idTokenSignIn({ provider: 'google', token: 'not-a-jwt' }, { ip });
      expect(res.statusCode, `attempt ${i + 1}`).toBe(401);
    }
    const valid = await google.sign(claims(GOOGLE.clientId));
    const limited = await idTokenSignIn({ provider: 'google', token: valid }, { ip });
    expect(limited.statusCode).toBe(429);
    expect(limited.json.error).toBe('TOO_MANY_REQUESTS');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    expect((await idTokenSignIn({ provider: 'google', token: valid })).statusCode).toBe(200);

    t.clock.advance(15 * 60 * 1000 + 1000);
    const later = await idTokenSignIn(
      { provider: 'google', token: await google.sign(claims(GOOGLE.clientId)) },
      { ip },
    );
    expect(later.statusCode, later.body).toBe(200);
  });
});
