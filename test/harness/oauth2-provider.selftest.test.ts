// Proves the OAuth 2.0 dialect peer works on its own, without Plinth, and refuses what the real
// providers refuse: hand-driven authorization-code flows with each dialect's client authentication,
// PKCE checks, single-use codes, and user APIs narrowed by scopes and requested fields.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startOAuth2Peer, type Dialect, type OAuth2Peer } from './oauth2-provider.js';

const REDIRECT = 'http://127.0.0.1:1/cb';
const clientOf = (dialect: Dialect) => ({
  clientId: `app-${dialect}`,
  clientSecret: `secret+${dialect}/0123456789`,
  redirectUris: [REDIRECT],
});
const SCOPES: Record<Dialect, string> = {
  github: 'read:user user:email',
  discord: 'identify email',
  facebook: 'email,public_profile',
  x: 'users.read tweet.read users.email',
  spotify: 'user-read-email user-read-private',
};
const NATIVE_AUTH: Record<Dialect, 'basic' | 'body'> = {
  github: 'basic',
  discord: 'basic',
  facebook: 'body',
  x: 'basic',
  spotify: 'basic',
};

function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

let peer: OAuth2Peer;
beforeAll(async () => {
  peer = await startOAuth2Peer();
  for (const dialect of DIALECTS) peer.addClient(dialect, clientOf(dialect));
  peer.addAccount('github', {
    id: 583231,
    login: 'octocat',
    name: 'The Octocat',
    email: null,
    avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
    emails: [{ email: 'octocat@github.com', primary: true, verified: true, visibility: 'private' }],
  });
  peer.addAccount('discord', {
    id: '80351110224678912',
    username: 'nelly',
    global_name: 'Nelly',
    avatar: 'abc',
    email: 'nelly@discord.com',
    verified: true,
  });
  peer.addAccount('facebook', { id: '10100', name: 'Mark', email: 'mark@fb.com', picture: 'https://fb.example/p.jpg' });
  peer.addAccount('x', {
    id: '2244994945',
    name: 'X Dev',
    username: 'XDevelopers',
    profile_image_url: 'https://pbs.twimg.com/p.jpg',
    confirmed_email: 'dev@x.com',
  });
  peer.addAccount('spotify', {
    id: 'wizzler',
    display_name: 'JM Wizzler',
    email: 'wiz@spotify.com',
    images: [{ url: 'https://i.scdn.co/w.jpg', height: 300, width: 300 }],
  });
});
afterAll(() => peer.close());

const ACCOUNT: Record<Dialect, string | number> = {
  github: 583231,
  discord: '80351110224678912',
  facebook: '10100',
  x: '2244994945',
  spotify: 'wizzler',
};

function authUrl(dialect: Dialect, params: Record<string, string | null> = {}) {
  const url = new URL(peer.endpoints(dialect).authorizationUrl);
  const query: Record<string, string | null> = {
    response_type: 'code',
    client_id: clientOf(dialect).clientId,
    redirect_uri: REDIRECT,
    scope: SCOPES[dialect],
    state: 'st-1',
    ...params,
  };
  for (const [name, value] of Object.entries(query)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

async function code(dialect: Dialect, params: Record<string, string | null> = {}) {
  const callback = await peer.authorize(authUrl(dialect, params), ACCOUNT[dialect]);
  const value = callback.searchParams.get('code');
  expect(value, callback.toString()).toBeTruthy();
  return value!;
}

async function tokenRequest(
  dialect: Dialect,
  form: Record<string, string>,
  auth: 'basic' | 'body' | 'none' = NATIVE_AUTH[dialect],
  secret = clientOf(dialect).clientSecret,
) {
  const { clientId } = clientOf(dialect);
  const body = new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: REDIRECT, ...form });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (auth === 'basic')
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  if (auth === 'body') body.set('client_secret', secret);
  if (auth !== 'basic') body.set('client_id', clientId);
  const res = await fetch(peer.endpoints(dialect).tokenUrl, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function api(
  dialect: Dialect,
  path: string,
  accessToken: string | undefined,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${peer.origin}/${dialect}${path}`, {
    headers: {
      'user-agent': 'selftest',
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      ...headers,
    },
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function accessToken(dialect: Dialect, scope = SCOPES[dialect]) {
  const pkce = pkcePair();
  const value = await code(dialect, { scope, code_challenge: pkce.challenge, code_challenge_method: 'S256' });
  const res = await tokenRequest(dialect, { code: value, code_verifier: pkce.verifier });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

describe('oauth2-provider peer', () => {
  it.each(DIALECTS)(
    '%s: authorize (state echoed) → token (native client auth, PKCE S256) → user API; codes are single use',
    async (dialect) => {
      const pkce = pkcePair();
      const callback = await peer.authorize(
        authUrl(dialect, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }),
        ACCOUNT[dialect],
      );
      expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
      expect(callback.searchParams.get('state')).toBe('st-1');
      const value = callback.searchParams.get('code')!;

      const token = await tokenRequest(dialect, { code: value, code_verifier: pkce.verifier });
      expect(token.status).toBe(200);
      expect(token.body).toMatchObject({
        access_token: expect.any(String),
        token_type: expect.stringMatching(/^bearer$/i),
      });
      expect(peer.tokenRequests(dialect).at(-1)).toMatchObject({
        clientAuth: NATIVE_AUTH[dialect],
        pkce: { method: 'S256', verifierMatched: true },
        outcome: 'issued',
      });

      const me = await api(
        dialect,
        new URL(peer.endpoints(dialect).userApiUrl).pathname.slice(dialect.length + 1),
        token.body.access_token as string,
      );
      expect(me.status).toBe(200);

      const replay = await tokenRequest(dialect, { code: value, code_verifier: pkce.verifier });
      expect(replay.body.access_token).toBeUndefined();
      expect(peer.tokenRequests(dialect).at(-1)!.outcome).toBe('invalid_grant');
      // The replay revoked the token the code had bought.
      const after = await api(
        dialect,
        new URL(peer.endpoints(dialect).userApiUrl).pathname.slice(dialect.length + 1),
        token.body.access_token as string,
      );
      expect(after.status).toBeGreaterThanOrEqual(400);
    },
  );

  it('refuses the client authentication a provider does not take, and wrong secrets', async () => {
    // X and Spotify want HTTP Basic; Facebook wants the secret in the body.
    for (const [dialect, auth] of [
      ['x', 'body'],
      ['spotify', 'body'],
      ['facebook', 'basic'],
    ] as const) {
      const res = await tokenRequest(
        dialect,
        { code: await code(dialect, { code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }) },
        auth,
      );
      expect(res.body.access_token, dialect).toBeUndefined();
      expect(peer.tokenRequests(dialect).at(-1), dialect).toMatchObject({
        clientAuth: auth,
        outcome: 'invalid_client',
      });
    }
    const wrong = await tokenRequest('discord', { code: await code('discord') }, 'basic', 'not-the-secret');
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const none = await tokenRequest('spotify', { code: await code('spotify') }, 'none');
    expect(none).toMatchObject({ status: 400, body: { error: 'invalid_client' } });
  });

  it("speaks each dialect's token errors: GitHub 200 + error, Facebook Graph errors, X unauthorized_client", async () => {
    expect(await tokenRequest('github', { code: 'nope' })).toMatchObject({
      status: 200,
      body: { error: 'bad_verification_code' },
    });
    const facebook = await tokenRequest('facebook', { code: 'nope' });
    expect(facebook).toMatchObject({
      status: 400,
      body: { error: { type: 'OAuthException', code: 100, message: expect.any(String) } },
    });
    expect(await tokenRequest('x', { code: 'nope' }, 'basic', 'wrong')).toMatchObject({
      status: 401,
      body: { error: 'unauthorized_client' },
    });
  });

  it('checks the PKCE verifier and the redirect_uri against the authorization', async () => {
    const pkce = pkcePair();
    const wrongVerifier = await tokenRequest('spotify', {
      code: await code('spotify', { code_challenge: pkce.challenge, code_challenge_method: 'S256' }),
      code_verifier: pkcePair().verifier,
    });
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(peer.tokenRequests('spotify').at(-1)).toMatchObject({
      pkce: { method: 'S256', verifierMatched: false },
      outcome: 'pkce',
    });

    const missing = await tokenRequest('discord', {
      code: await code('discord', { code_challenge: pkce.challenge, code_challenge_method: 'S256' }),
    });
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const otherRedirect = await tokenRequest('x', {
      code: await code('x', { code_challenge: pkce.challenge, code_challenge_method: 'S256' }),
      code_verifier: pkce.verifier,
      redirect_uri: 'http://127.0.0.1:1/other',
    });
    expect(otherRedirect).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(peer.tokenRequests('x').at(-1)!.outcome).toBe('redirect_mismatch');
  });

  it('authorize: an unknown client or unregistered redirect_uri is a page, other errors redirect with state', async () => {
    await expect(peer.authorize(authUrl('discord', { client_id: 'who' }), ACCOUNT.discord)).rejects.toThrow(
      /400.*Unknown client_id/,
    );
    await expect(
      peer.authorize(authUrl('spotify', { redirect_uri: 'https://evil.example/cb' }), ACCOUNT.spotify),
    ).rejects.toThrow(/not registered/);
    await expect(peer.authorize(authUrl('spotify'), 'nobody')).rejects.toThrow(/Sign in/);

    const noPkce = await peer.authorize(authUrl('x'), ACCOUNT.x);
    expect(Object.fromEntries(noPkce.searchParams)).toMatchObject({ error: 'invalid_request', state: 'st-1' });
    const badScope = await peer.authorize(authUrl('discord', { scope: 'identify admin' }), ACCOUNT.discord);
    expect(Object.fromEntries(badScope.searchParams)).toMatchObject({ error: 'invalid_scope', state: 'st-1' });
    const implicit = await peer.authorize(authUrl('spotify', { response_type: 'token' }), ACCOUNT.spotify);
    expect(implicit.searchParams.get('error')).toBe('unsupported_response_type');
    const denied = await peer.authorize(authUrl('github'), ACCOUNT.github, { deny: true });
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({
      error: 'access_denied',
      state: 'st-1',
      error_uri: expect.any(String),
    });
    // GitHub drops scopes it does not know instead of refusing.
    expect(
      (await peer.authorize(authUrl('github', { scope: 'read:user made-up' }), ACCOUNT.github)).searchParams.get(
        'code',
      ),
    ).toBeTruthy();
    // Facebook appends #_=_ to its redirects.
    expect((await peer.authorize(authUrl('facebook'), ACCOUNT.facebook)).hash).toBe('#_=_');
  });

  it('user APIs need a bearer token of that provider, and show only what the scopes and fields allow', async () => {
    expect(await api('spotify', '/v1/me', undefined)).toMatchObject({ status: 401, body: { error: { status: 401 } } });
    expect(await api('github', '/user', 'gho_made_up')).toMatchObject({
      status: 401,
      body: { message: 'Bad credentials' },
    });
    const githubToken = await accessToken('github', 'read:user');
    expect(await api('spotify', '/v1/me', githubToken)).toMatchObject({ status: 401 });
    const noAgent = await fetch(`${peer.origin}/github/user`, {
      headers: { authorization: `token ${githubToken}`, 'user-agent': '' },
    });
    expect(noAgent.status).toBe(403);
    expect(await api('github', '/user', githubToken, { authorization: `token ${githubToken}` })).toMatchObject({
      status: 200,
      body: { id: 583231, login: 'octocat', email: null },
    });
    expect((await api('github', '/user/emails', githubToken)).status).toBe(404);
    expect((await api('github', '/user/emails', await accessToken('github'))).body).toEqual([
      { email: 'octocat@github.com', primary: true, verified: true, visibility: 'private' },
    ]);

    const discord = await api('discord', '/api/users/@me', await accessToken('discord', 'identify'));
    expect(discord.body).toMatchObject({
      id: '80351110224678912',
      username: 'nelly',
      global_name: 'Nelly',
      avatar: 'abc',
    });
    expect(discord.body.email).toBeUndefined();
    expect(discord.body.verified).toBeUndefined();

    const facebookToken = await accessToken('facebook');
    expect((await api('facebook', '/me', facebookToken)).body).toEqual({ id: '10100', name: 'Mark' });
    expect((await api('facebook', '/me?fields=id,email,picture', facebookToken)).body).toEqual({
      id: '10100',
      email: 'mark@fb.com',
      picture: { data: { height: 50, is_silhouette: false, url: 'https://fb.example/p.jpg', width: 50 } },
    });
    expect((await api('facebook', '/v19.0/me?fields=id,birthday', facebookToken)).body).toMatchObject({
      error: { code: 100 },
    });

    const xFields = '/2/users/me?user.fields=profile_image_url,confirmed_email';
    expect((await api('x', xFields, await accessToken('x'))).body).toEqual({
      data: {
        id: '2244994945',
        name: 'X Dev',
        username: 'XDevelopers',
        profile_image_url: 'https://pbs.twimg.com/p.jpg',
        confirmed_email: 'dev@x.com',
      },
    });
    expect(
      (await api('x', xFields, await accessToken('x', 'users.read tweet.read'))).body.data.confirmed_email,
    ).toBeUndefined();
    expect((await api('x', '/2/users/me', await accessToken('x', 'users.read'))).status).toBe(403);

    const spotify = await api('spotify', '/v1/me', await accessToken('spotify', 'user-read-private'));
    expect(spotify.body).toMatchObject({
      id: 'wizzler',
      display_name: 'JM Wizzler',
      images: [{ url: 'https://i.scdn.co/w.jpg' }],
    });
    expect(spotify.body.email).toBeUndefined();
  });

  it('GitHub answers urlencoded unless JSON is asked for', async () => {
    const value = await code('github');
    const res = await fetch(peer.endpoints('github').tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientOf('github').clientId}:${encodeURIComponent(clientOf('github').clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ code: value }),
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(await res.text());
    expect(form.get('access_token')).toMatch(/^gho_/);
    expect(form.get('scope')).toBe('read:user,user:email');
  });
});
