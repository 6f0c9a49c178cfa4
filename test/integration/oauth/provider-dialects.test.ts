// OAuth sign-in through the five built-in providers that describe accounts with their own user
// APIs — GitHub, Discord, Facebook, X, Spotify — against a real OAuth 2.0 peer speaking each one's
// dialect (test/harness/oauth2-provider.ts), browser-less: initiation → the provider's authorize →
// Plinth's callback → svc_code → exchange. Each provider is pointed at the peer through its endpoint
// overrides; the user API keeps the query Plinth sends the real one (Graph `fields`, X `user.fields`).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SPECS } from '../../../src/modules/oauth/providers.js';
import {
  DIALECTS,
  startOAuth2Peer,
  type AccountOf,
  type Dialect,
  type DiscordAccount,
  type FacebookAccount,
  type GitHubAccount,
  type OAuth2Peer,
  type SpotifyAccount,
  type XAccount,
} from '../../harness/oauth2-provider.js';
import {
  allowRedirectUrls,
  deliverCallback,
  exchangeCode,
  redirectOf,
  runBrowserFlow,
  userById,
  usersWithEmail,
} from '../../harness/oauth-flow.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { passwordSignIn } from '../../harness/sessions.js';
import { createConfirmedUser } from '../../harness/users.js';

const APP_REDIRECT = 'https://app.example/auth/callback';
const API_BASE = 'http://localhost:7130';

/** How each provider's token endpoint wants confidential clients to authenticate (their docs, not Plinth's table). */
const CLIENT_AUTH: Record<Dialect, 'basic' | 'body'> = {
  github: 'basic',
  discord: 'basic',
  facebook: 'body',
  x: 'basic',
  spotify: 'basic',
};

let t: TestApp;
let peer: OAuth2Peer;
const admin = () => ({ 'x-api-key': t.apiKey });
const secretOf = (dialect: Dialect) => `peer-secret-for-${dialect}-0123456789`;
const callbackOf = (dialect: Dialect) => `${API_BASE}/api/auth/oauth/${dialect}/callback`;

/** The provider's own user API URL with the query Plinth sends the real one. */
function userinfoUrlOf(dialect: Dialect) {
  const real = new URL(PROVIDER_SPECS[dialect].userinfoUrl!);
  return `${peer.endpoints(dialect).userApiUrl}${real.search}`;
}

beforeAll(async () => {
  peer = await startOAuth2Peer();
  t = await startTestApp();
  expect(t.config.apiBaseUrl).toBe(API_BASE);
  for (const dialect of DIALECTS) {
    peer.addClient(dialect, {
      clientId: `plinth-${dialect}`,
      clientSecret: secretOf(dialect),
      redirectUris: [callbackOf(dialect)],
    });
    const endpoints = peer.endpoints(dialect);
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/oauth/configs',
      headers: admin(),
      payload: {
        provider: dialect,
        clientId: `plinth-${dialect}`,
        clientSecret: secretOf(dialect),
        authorizationUrl: endpoints.authorizationUrl,
        tokenUrl: endpoints.tokenUrl,
        userinfoUrl: userinfoUrlOf(dialect),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  const config = await allowRedirectUrls(t, [APP_REDIRECT]);
  expect(config.statusCode, config.body).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

const tag = () => randomBytes(4).toString('hex');

function add<D extends Dialect>(dialect: D, account: AccountOf[D]): AccountOf[D] {
  peer.addAccount(dialect, account);
  return account;
}

function githubAccount(overrides: Partial<GitHubAccount> = {}): GitHubAccount {
  const id = randomBytes(3).readUIntBE(0, 3) + 1;
  const email = `gh-${id}@example.com`;
  return add('github', {
    id,
    login: `octo-${id}`,
    name: `Octo Cat ${id}`,
    email: null,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    emails: [{ email, primary: true, verified: true, visibility: 'private' }],
    ...overrides,
  });
}

function discordAccount(overrides: Partial<DiscordAccount> = {}): DiscordAccount {
  const id = `80351110224678${randomBytes(2).readUInt16BE(0)}`;
  return add('discord', {
    id,
    username: `nelly_${id.slice(-5)}`,
    global_name: `Nelly ${id.slice(-5)}`,
    avatar: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
    email: `discord-${tag()}@example.com`,
    verified: true,
    ...overrides,
  });
}

function facebookAccount(overrides: Partial<FacebookAccount> = {}): FacebookAccount {
  const id = `10${randomBytes(6).readUIntBE(0, 6)}`;
  return add('facebook', {
    id,
    name: `Mark ${tag()}`,
    email: `fb-${tag()}@example.com`,
    picture: `https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=${id}`,
    ...overrides,
  });
}

function xAccount(overrides: Partial<XAccount> = {}): XAccount {
  const id = `1${randomBytes(6).readUIntBE(0, 6)}`;
  const handle = `jack_${tag()}`;
  return add('x', {
    id,
    name: `Jack ${handle.slice(5)}`,
    username: handle,
    profile_image_url: `https://pbs.twimg.com/profile_images/${id}/photo_normal.jpg`,
    confirmed_email: `x-${tag()}@example.com`,
    ...overrides,
  });
}

function spotifyAccount(overrides: Partial<SpotifyAccount> = {}): SpotifyAccount {
  const id = `listener${tag()}`;
  return add('spotify', {
    id,
    display_name: `DJ ${id}`,
    email: `spotify-${tag()}@example.com`,
    images: [
      { url: `https://i.scdn.co/image/${id}-300`, height: 300, width: 300 },
      { url: `https://i.scdn.co/image/${id}-64`, height: 64, width: 64 },
    ],
    ...overrides,
  });
}

/** Initiation → the provider (signed in as `accountId`) → Plinth's callback; the app redirect Plinth answered with. */
async function browserFlow(dialect: Dialect, accountId: string | number, options: { deny?: boolean } = {}) {
  const flow = await runBrowserFlow(t, {
    initPath: `/api/auth/oauth/${dialect}`,
    redirect: APP_REDIRECT,
    async authorize(authUrl) {
      const callbackUrl = await peer.authorize(authUrl, accountId, options);
      expect(`${callbackUrl.origin}${callbackUrl.pathname}`).toBe(callbackOf(dialect));
      return callbackUrl;
    },
  });
  expect(flow.base).toBe(APP_REDIRECT);
  return flow;
}

/**
 * The whole sign-in, checking the protocol on the way: the authorization request Plinth built, the
 * client authentication and PKCE verifier the token endpoint saw, bearer calls to the user API.
 */
async function signIn(dialect: Dialect, accountId: string | number) {
  const tokensBefore = peer.tokenRequests(dialect).length;
  const apiBefore = peer.apiRequests(dialect).length;
  const flow = await browserFlow(dialect, accountId);

  const { authUrl } = flow;
  expect(`${authUrl.origin}${authUrl.pathname}`).toBe(peer.endpoints(dialect).authorizationUrl);
  expect(authUrl.searchParams.get('client_id')).toBe(`plinth-${dialect}`);
  expect(authUrl.searchParams.get('redirect_uri')).toBe(callbackOf(dialect));
  expect(authUrl.searchParams.get('response_type')).toBe('code');
  expect(authUrl.searchParams.get('scope')).toBe(PROVIDER_SPECS[dialect].scopes.join(' '));
  expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
  // Plinth's own PKCE pair towards the provider, never the app's challenge.
  expect(authUrl.searchParams.get('code_challenge')).not.toBe(flow.pkce.challenge);
  expect(authUrl.toString()).not.toContain(secretOf(dialect));
  expect(flow.callbackUrl.searchParams.get('state')).toBe(authUrl.searchParams.get('state'));

  expect(flow.params.error, flow.params.error).toBeUndefined();
  // The official client's hard-coded name rides beside the spec's (api-contract item 14).
  expect(Object.keys(flow.params)).toEqual(['svc_code', 'insforge_code']);
  expect(flow.params.insforge_code).toBe(flow.params.svc_code);

  const tokenRequests = peer.tokenRequests(dialect).slice(tokensBefore);
  expect(tokenRequests).toHaveLength(1);
  const [tokenRequest] = tokenRequests;
  expect(tokenRequest).toMatchObject({
    method: 'POST',
    clientAuth: CLIENT_AUTH[dialect],
    clientId: `plinth-${dialect}`,
    pkce: { method: 'S256', verifierMatched: true },
    outcome: 'issued',
  });
  expect(tokenRequest!.form.get('code')).toBe(flow.callbackUrl.searchParams.get('code'));
  expect(tokenRequest!.form.get('redirect_uri')).toBe(callbackOf(dialect));
  if (CLIENT_AUTH[dialect] === 'basic') expect(tokenRequest!.form.has('client_secret')).toBe(false);
  else expect(tokenRequest!.form.get('client_secret')).toBe(secretOf(dialect));

  const apiRequests = peer.apiRequests(dialect).slice(apiBefore);
  expect(apiRequests.length).toBeGreaterThan(0);
  for (const request of apiRequests) {
    expect(request).toMatchObject({ method: 'GET', authScheme: 'Bearer', status: 200, userAgent: expect.any(String) });
  }

  const session = await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier);
  expect(session.statusCode, session.body).toBe(200);
  expect(session.json).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
  return { user: session.json.user, apiRequests, tokenRequest: tokenRequest! };
}

/** A verified email + password account made by the admin. */
async function verifiedPasswordUser(email: string) {
  const created = await createConfirmedUser(t, email);
  expect(created.statusCode, created.body).toBe(200);
  expect(created.json.user.emailVerified).toBe(true);
  return created.json.user as { id: string; email: string };
}

/** The sign-in must end at the app with error= (and nothing for the app to exchange). */
function expectErrorRedirect(flow: { params: Record<string, string>; location: URL }, dialect: Dialect) {
  expect(flow.params.svc_code).toBeUndefined();
  expect(flow.params.error).toEqual(expect.any(String));
  expect(flow.location.toString()).not.toContain(secretOf(dialect));
  return flow.params.error!;
}

describe('github', () => {
  it('private profile address: the verified primary of /user/emails, verified; name and avatar; second sign-in is the same user', async () => {
    const account = githubAccount({
      email: null,
      emails: [
        { email: `old-${tag()}@example.com`, primary: false, verified: true, visibility: null },
        { email: `Octo.Primary-${tag()}@Example.COM`, primary: true, verified: true, visibility: 'private' },
      ],
    });
    const primary = account.emails[1]!.email;
    const { user, apiRequests } = await signIn('github', account.id);
    expect(user).toMatchObject({
      email: primary.toLowerCase(),
      emailVerified: true,
      providers: ['github'],
      profile: { name: account.name, avatar_url: account.avatar_url },
    });
    expect(apiRequests.map((r) => r.path)).toEqual(['/user', '/user/emails']);

    const again = await signIn('github', account.id);
    expect(again.user.id).toBe(user.id);
    expect(await usersWithEmail(t, primary.toLowerCase())).toHaveLength(1);
  });

  it('a user without a display name is named by their login', async () => {
    const account = githubAccount({ name: null });
    const { user } = await signIn('github', account.id);
    expect(user.profile).toMatchObject({ name: account.login, avatar_url: account.avatar_url });
  });

  it('a verified primary address links to the existing verified account of that address', async () => {
    // Linking by verified email is the admin's choice (off by default; identities-link.test.ts covers off).
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'x-api-key': t.apiKey },
      payload: { linkOAuthByEmail: true },
    });
    try {
      const email = `gh-linked-${tag()}@example.com`;
      const existing = await verifiedPasswordUser(email);
      const account = githubAccount({
        emails: [{ email, primary: true, verified: true, visibility: 'public' }],
        email,
      });
      const { user } = await signIn('github', account.id);
      expect(user.id).toBe(existing.id);
      expect([...user.providers].sort()).toEqual(['email', 'github']);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/config',
        headers: { 'x-api-key': t.apiKey },
        payload: { linkOAuthByEmail: false },
      });
    }
  });

  it('no verified primary address and an existing account with the public one: error redirect, nothing linked', async () => {
    const existing = await t.signUp();
    const account = githubAccount({
      email: existing.email,
      emails: [
        { email: existing.email, primary: true, verified: false, visibility: 'public' },
        // A verified address that is not the primary one proves nothing about the primary.
        { email: `side-${tag()}@example.com`, primary: false, verified: true, visibility: null },
      ],
    });
    const flow = await browserFlow('github', account.id);
    expect(expectErrorRedirect(flow, 'github')).toMatch(/did not verify/);

    expect((await userById(t, existing.user.id)).providers).toEqual(['email']);
    const password = await passwordSignIn(t, existing, 'mobile');
    expect(password.statusCode).toBe(200);
    expect(await usersWithEmail(t, existing.email)).toHaveLength(1);
  });

  it('no verified primary address and no existing account: a new, unverified account with the public address', async () => {
    const email = `gh-unverified-${tag()}@example.com`;
    const account = githubAccount({ email, emails: [{ email, primary: true, verified: false, visibility: 'public' }] });
    const { user } = await signIn('github', account.id);
    expect(user).toMatchObject({ email, emailVerified: false, providers: ['github'] });
  });
});

describe('discord', () => {
  it('a verified address is verified; global_name and the CDN avatar; second sign-in is the same user', async () => {
    const account = discordAccount();
    const { user, apiRequests } = await signIn('discord', account.id);
    expect(user).toMatchObject({
      email: account.email,
      emailVerified: true,
      providers: ['discord'],
      profile: {
        name: account.global_name,
        avatar_url: `https://cdn.discordapp.com/avatars/${account.id}/${account.avatar}.png`,
      },
    });
    expect(apiRequests.map((r) => r.path)).toEqual(['/api/users/@me']);
    expect((await signIn('discord', account.id)).user.id).toBe(user.id);
  });

  it('an unverified address makes an unverified account; no global_name → username; no avatar → none', async () => {
    const account = discordAccount({ verified: false, global_name: null, avatar: null });
    const { user } = await signIn('discord', account.id);
    expect(user).toMatchObject({ email: account.email, emailVerified: false, providers: ['discord'] });
    expect(user.profile.name).toBe(account.username);
    expect(user.profile.avatar_url).toBeUndefined();
  });

  it('an unverified address is not linked to the existing account of that address', async () => {
    const existing = await verifiedPasswordUser(`discord-owner-${tag()}@example.com`);
    const account = discordAccount({ email: existing.email, verified: false });
    const flow = await browserFlow('discord', account.id);
    expect(expectErrorRedirect(flow, 'discord')).toMatch(/did not verify/);
    expect((await userById(t, existing.id)).providers).toEqual(['email']);
  });
});

describe('facebook', () => {
  it('an address is verified (Facebook only shares confirmed ones); name and picture; the Graph fields Plinth asked for', async () => {
    const account = facebookAccount();
    const { user, apiRequests, tokenRequest } = await signIn('facebook', account.id);
    expect(user).toMatchObject({
      email: account.email,
      emailVerified: true,
      providers: ['facebook'],
      profile: { name: account.name, avatar_url: account.picture },
    });
    expect(apiRequests.map((r) => r.path)).toEqual(['/me']);
    expect(apiRequests[0]!.query.get('fields')).toBe('id,name,email,picture');
    expect(tokenRequest.form.get('client_id')).toBe('plinth-facebook');
    expect((await signIn('facebook', account.id)).user.id).toBe(user.id);
  });

  it('an account without an address (phone sign-up) cannot create an account', async () => {
    const account = facebookAccount({ email: undefined });
    const flow = await browserFlow('facebook', account.id);
    expect(expectErrorRedirect(flow, 'facebook')).toMatch(/did not share an email/);
  });
});

describe('x', () => {
  it('confirmed_email is verified; name and profile image; the user.fields Plinth asked for', async () => {
    const account = xAccount();
    const { user, apiRequests } = await signIn('x', account.id);
    expect(user).toMatchObject({
      email: account.confirmed_email,
      emailVerified: true,
      providers: ['x'],
      profile: { name: account.name, avatar_url: account.profile_image_url },
    });
    expect(apiRequests.map((r) => r.path)).toEqual(['/2/users/me']);
    expect(apiRequests[0]!.query.get('user.fields')).toBe('profile_image_url,confirmed_email');
    expect((await signIn('x', account.id)).user.id).toBe(user.id);
  });

  it('a user without confirmed_email: error redirect "did not share an email", no account', async () => {
    const account = xAccount({ confirmed_email: undefined });
    const apiBefore = peer.apiRequests('x').length;
    const flow = await browserFlow('x', account.id);
    expect(expectErrorRedirect(flow, 'x')).toMatch(/did not share an email/);
    // The provider was asked, and answered without an address.
    expect(peer.apiRequests('x').slice(apiBefore)).toEqual([
      expect.objectContaining({ path: '/2/users/me', status: 200 }),
    ]);
  });
});

describe('spotify', () => {
  it('an address is never verified; display_name and the first image', async () => {
    const account = spotifyAccount();
    const { user, apiRequests } = await signIn('spotify', account.id);
    expect(user).toMatchObject({
      email: account.email,
      emailVerified: false,
      providers: ['spotify'],
      profile: { name: account.display_name, avatar_url: account.images[0]!.url },
    });
    expect(apiRequests.map((r) => r.path)).toEqual(['/v1/me']);
    expect((await signIn('spotify', account.id)).user.id).toBe(user.id);
  });

  it('an existing verified account with the same address is not taken: error redirect, nothing linked', async () => {
    const existing = await verifiedPasswordUser(`spotify-owner-${tag()}@example.com`);
    const account = spotifyAccount({ email: existing.email });
    const flow = await browserFlow('spotify', account.id);
    expect(expectErrorRedirect(flow, 'spotify')).toMatch(/did not verify/);
    expect((await userById(t, existing.id)).providers).toEqual(['email']);
  });
});

const newAccount: Record<Dialect, () => { id: string | number }> = {
  github: () => githubAccount(),
  discord: () => discordAccount(),
  facebook: () => facebookAccount(),
  x: () => xAccount(),
  spotify: () => spotifyAccount(),
};

describe('provider refusals reach the app as error=', () => {
  it.each(DIALECTS)('%s: a replayed callback: the provider refuses the spent code', async (dialect) => {
    const account = newAccount[dialect]();
    const flow = await browserFlow(dialect, account.id);
    expect(flow.params.svc_code).toEqual(expect.any(String));

    const replay = redirectOf(await deliverCallback(t, flow.callbackUrl));
    expect(replay.base).toBe(APP_REDIRECT);
    const error = expectErrorRedirect(replay, dialect);
    expect(peer.tokenRequests(dialect).at(-1)).toMatchObject({
      clientAuth: CLIENT_AUTH[dialect],
      outcome: 'invalid_grant',
    });
    expect(error).toContain(`${dialect} did not accept the authorization code`);
    expect(error).not.toContain('[object Object]');

    // The first sign-in's svc_code is still good.
    expect((await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier)).statusCode).toBe(200);
  });

  it.each(DIALECTS)('%s: a wrong client secret is refused by the token endpoint', async (dialect) => {
    const account = newAccount[dialect]();
    const changed = await t.request({
      method: 'PUT',
      url: `/api/auth/oauth/${dialect}/config`,
      headers: admin(),
      payload: { clientSecret: 'not-the-secret-0123456789' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    try {
      const flow = await browserFlow(dialect, account.id);
      expect(expectErrorRedirect(flow, dialect)).toContain(`${dialect} did not accept the authorization code`);
      expect(flow.location.toString()).not.toContain('not-the-secret');
      expect(peer.tokenRequests(dialect).at(-1)).toMatchObject({
        clientAuth: CLIENT_AUTH[dialect],
        outcome: 'invalid_client',
      });
    } finally {
      const restored = await t.request({
        method: 'PUT',
        url: `/api/auth/oauth/${dialect}/config`,
        headers: admin(),
        payload: { clientSecret: secretOf(dialect) },
      });
      expect(restored.statusCode).toBe(200);
    }
    await signIn(dialect, account.id);
  });

  it.each(DIALECTS)('%s: denied consent', async (dialect) => {
    const account = newAccount[dialect]();
    const tokensBefore = peer.tokenRequests(dialect).length;
    const flow = await browserFlow(dialect, account.id, { deny: true });
    expect(flow.callbackUrl.searchParams.get('error')).toBe('access_denied');
    expect(expectErrorRedirect(flow, dialect)).toEqual(expect.any(String));
    expect(peer.tokenRequests(dialect)).toHaveLength(tokensBefore);
  });
});
