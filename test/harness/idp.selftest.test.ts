// Proves the OAuth test peers work on their own, without Plinth: the oidc-provider IdP through a hand-driven
// authorization-code + PKCE flow, and the ID-token issuer's signatures against its served JWKS.
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdTokenIssuer, type IdTokenIssuer } from './id-token-issuer.js';
import { startOidcIdp, type OidcIdp } from './oidc-idp.js';

const CLIENT = {
  clientId: 'plinth-selftest',
  clientSecret: 'selftest-secret-0123456789',
  redirectUris: ['http://127.0.0.1:1/cb'],
};
const ALICE = {
  sub: 'alice-1',
  email: 'alice@example.test',
  emailVerified: true,
  name: 'Alice Liddell',
  picture: 'http://127.0.0.1:1/alice.png',
};
const BOB = { sub: 'bob-2', email: 'bob@example.test', emailVerified: false };

const base64url = (bytes: Buffer) => bytes.toString('base64url');

function pkcePair() {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash('sha256').update(verifier).digest()) };
}

function authUrl(idp: OidcIdp, params: Record<string, string>): string {
  const url = new URL(idp.authorizationUrl);
  const query: Record<string, string> = {
    response_type: 'code',
    client_id: CLIENT.clientId,
    redirect_uri: CLIENT.redirectUris[0]!,
    scope: 'openid email profile',
    ...params,
  };
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

interface TokenResponse {
  access_token?: string;
  id_token?: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  error?: string;
}

async function exchange(
  idp: OidcIdp,
  code: string,
  verifier: string | undefined,
  auth: 'basic' | 'post' = 'basic',
): Promise<{ status: number; body: TokenResponse }> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CLIENT.redirectUris[0]! });
  if (verifier !== undefined) form.set('code_verifier', verifier);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth === 'basic') {
    const credentials = `${encodeURIComponent(CLIENT.clientId)}:${encodeURIComponent(CLIENT.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  } else {
    form.set('client_id', CLIENT.clientId);
    form.set('client_secret', CLIENT.clientSecret);
  }
  const response = await fetch(idp.tokenUrl, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as TokenResponse };
}

let idp: OidcIdp;
beforeAll(async () => {
  idp = await startOidcIdp();
  idp.addUser(ALICE);
  idp.addUser(BOB);
  await idp.addClient(CLIENT);
});
afterAll(() => idp.close());

describe('oidc-idp', () => {
  it('publishes discovery on loopback http with the issuer and endpoints the harness reports', async () => {
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const discovery = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: idp.authorizationUrl,
      token_endpoint: idp.tokenUrl,
      userinfo_endpoint: idp.userinfoUrl,
      jwks_uri: idp.jwksUrl,
    });
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
    expect(discovery.id_token_signing_alg_values_supported).toContain('RS256');
    expect(discovery.response_types_supported).toContain('code');
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(discovery.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'email', 'email_verified', 'name', 'picture']),
    );
  });

  it('runs authorize → login → consent → callback → token (PKCE, client_secret_basic) → userinfo', async () => {
    const { verifier, challenge } = pkcePair();
    const state = base64url(randomBytes(16));
    const nonce = base64url(randomBytes(16));
    const callback = await idp.authorize(
      authUrl(idp, { state, nonce, code_challenge: challenge, code_challenge_method: 'S256' }),
      ALICE.sub,
    );
    expect(`${callback.origin}${callback.pathname}`).toBe('http://127.0.0.1:1/cb');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();

    const token = await exchange(idp, code!, verifier);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'openid email profile' });
    expect(token.body.refresh_token).toBeUndefined();

    const idToken = token.body.id_token!;
    expect(decodeProtectedHeader(idToken)).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(idp.jwksUrl)), {
      issuer: idp.issuer,
      audience: CLIENT.clientId,
    });
    expect(payload).toMatchObject({
      sub: ALICE.sub,
      email: ALICE.email,
      email_verified: true,
      name: ALICE.name,
      picture: ALICE.picture,
      nonce,
    });

    const userinfo = await fetch(idp.userinfoUrl, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({
      sub: ALICE.sub,
      email: ALICE.email,
      email_verified: true,
      name: ALICE.name,
      picture: ALICE.picture,
    });

    // The code is single use.
    const replay = await exchange(idp, code!, verifier);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('accepts client_secret_post, works without PKCE, and only releases the claims of the requested scopes', async () => {
    const callback = await idp.authorize(authUrl(idp, { state: 's1', scope: 'openid email' }), BOB.sub);
    const token = await exchange(idp, callback.searchParams.get('code')!, undefined, 'post');
    expect(token.status).toBe(200);
    const { payload } = await jwtVerify(token.body.id_token!, createRemoteJWKSet(new URL(idp.jwksUrl)), {
      issuer: idp.issuer,
      audience: CLIENT.clientId,
    });
    expect(payload).toMatchObject({ sub: BOB.sub, email: BOB.email, email_verified: false });
    expect(payload.name).toBeUndefined();
    expect(payload.nonce).toBeUndefined();
  });

  it('rejects a wrong PKCE verifier and a wrong client secret', async () => {
    const { challenge } = pkcePair();
    const callback = await idp.authorize(
      authUrl(idp, { state: 's2', code_challenge: challenge, code_challenge_method: 'S256' }),
      ALICE.sub,
    );
    const wrongVerifier = await exchange(idp, callback.searchParams.get('code')!, pkcePair().verifier);
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const response = await fetch(idp.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'whatever',
        redirect_uri: CLIENT.redirectUris[0]!,
        client_id: CLIENT.clientId,
        client_secret: 'not-the-secret',
      }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('records the last authorization request so forwarded hints can be asserted', async () => {
    const callback = await idp.authorize(
      authUrl(idp, { state: 's3', login_hint: 'alice@example.test', prompt: 'select_account', access_type: 'offline' }),
      ALICE.sub,
    );
    expect(callback.searchParams.get('code')).toBeTruthy();
    const seen = idp.lastAuthorizationRequest()!;
    expect(seen.get('login_hint')).toBe('alice@example.test');
    expect(seen.get('prompt')).toBe('select_account');
    expect(seen.get('access_type')).toBe('offline');
    expect(seen.get('client_id')).toBe(CLIENT.clientId);

    await idp.authorize(authUrl(idp, { state: 's4', prompt: 'login consent' }), ALICE.sub);
    expect(idp.lastAuthorizationRequest()!.get('prompt')).toBe('login consent');
  });

  it('redirects errors to the callback: denied consent, unknown user, prompt=none without a session', async () => {
    const denied = await idp.authorize(authUrl(idp, { state: 's5' }), ALICE.sub, { deny: true });
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({ error: 'access_denied', state: 's5' });
    expect(denied.searchParams.get('code')).toBeNull();

    const stranger = await idp.authorize(authUrl(idp, { state: 's6' }), 'nobody');
    expect(stranger.searchParams.get('error')).toBe('access_denied');

    const silent = await idp.authorize(authUrl(idp, { state: 's7', prompt: 'none' }), ALICE.sub);
    expect(silent.searchParams.get('error')).toBe('login_required');
  });

  it('throws when the IdP shows an error page instead of redirecting (unregistered redirect_uri)', async () => {
    await expect(
      idp.authorize(authUrl(idp, { state: 's8', redirect_uri: 'http://127.0.0.1:2/elsewhere' }), ALICE.sub),
    ).rejects.toThrow(/IdP answered 400/);
  });

  it('returns the form_post target with the posted fields', async () => {
    const callback = await idp.authorize(authUrl(idp, { state: 's9', response_mode: 'form_post' }), ALICE.sub);
    expect(`${callback.origin}${callback.pathname}`).toBe('http://127.0.0.1:1/cb');
    expect(callback.searchParams.get('state')).toBe('s9');
    const token = await exchange(idp, callback.searchParams.get('code')!, undefined);
    expect(token.status).toBe(200);
  });

  it('failNextTokenRequest fails exactly the next token call at the HTTP level', async () => {
    const { verifier, challenge } = pkcePair();
    const callback = await idp.authorize(
      authUrl(idp, { state: 's10', code_challenge: challenge, code_challenge_method: 'S256' }),
      ALICE.sub,
    );
    const code = callback.searchParams.get('code')!;
    idp.failNextTokenRequest();
    expect(await exchange(idp, code, verifier)).toMatchObject({ status: 500, body: { error: 'server_error' } });
    // The failure happened before oidc-provider saw the request, so the code is still good.
    expect((await exchange(idp, code, verifier)).status).toBe(200);

    idp.failNextTokenRequest({ status: 400, error: 'invalid_grant' });
    expect(await exchange(idp, 'anything', undefined)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('keeps each IdP instance to itself', async () => {
    const other = await startOidcIdp();
    try {
      expect(other.issuer).not.toBe(idp.issuer);
      other.addUser(ALICE);
      // CLIENT was registered on `idp` only.
      await expect(other.authorize(authUrl(other, { state: 's11' }), ALICE.sub)).rejects.toThrow(/IdP answered 400/);
    } finally {
      await other.close();
    }
  });
});

describe('id-token-issuer', () => {
  let issuer: IdTokenIssuer;
  beforeAll(async () => {
    issuer = await startIdTokenIssuer();
  });
  afterAll(() => issuer.close());

  it('signs RS256 tokens that verify against the JWKS it serves, with iss/iat/exp defaults', async () => {
    const token = await issuer.sign({ sub: 'g-123', aud: 'web-client', email: 'a@example.test', email_verified: true });
    const jwks = createRemoteJWKSet(new URL(issuer.jwksUrl));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: 'https://accounts.example.test',
      audience: 'web-client',
    });
    expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: issuer.kid });
    expect(payload).toMatchObject({ sub: 'g-123', email: 'a@example.test', email_verified: true });
    const now = Math.floor(Date.now() / 1000);
    expect(payload.iat).toBeGreaterThanOrEqual(now - 5);
    expect(payload.exp).toBe(payload.iat! + 600);
    expect(issuer.jwksRequests()).toBeGreaterThanOrEqual(1);
  });

  it('honours given claims, omits claims given as undefined, and can sign with an unlisted key', async () => {
    const jwks = createRemoteJWKSet(new URL(issuer.jwksUrl));
    const expired = await issuer.sign({ sub: 'x', aud: 'c', iat: 1000, exp: 2000 });
    await expect(jwtVerify(expired, jwks)).rejects.toBeInstanceOf(joseErrors.JWTExpired);

    const noExp = await issuer.sign({ sub: 'x', aud: 'c', exp: undefined, iss: 'https://appleid.apple.com' });
    const { payload } = await jwtVerify(noExp, jwks, { issuer: 'https://appleid.apple.com' });
    expect(payload.exp).toBeUndefined();

    const forged = await issuer.sign({ sub: 'x', aud: 'c' }, { unknownKey: true });
    await expect(jwtVerify(forged, jwks)).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
    // A token signed by the unlisted key but claiming the listed kid fails on the signature.
    const impostor = await issuer.sign({ sub: 'x', aud: 'c' }, { unknownKey: true, kid: issuer.kid });
    await expect(jwtVerify(impostor, jwks)).rejects.toBeInstanceOf(joseErrors.JWSSignatureVerificationFailed);
  });

  it('takes a custom issuer', async () => {
    const apple = await startIdTokenIssuer({ issuer: 'https://appleid.apple.com' });
    try {
      const { payload } = await jwtVerify(await apple.sign({ sub: 'a' }), createRemoteJWKSet(new URL(apple.jwksUrl)));
      expect(payload.iss).toBe('https://appleid.apple.com');
    } finally {
      await apple.close();
    }
  });
});
