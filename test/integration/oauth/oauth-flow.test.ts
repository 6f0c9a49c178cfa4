// OAuth sign-in with PKCE against a real OpenID provider (oidc-provider on loopback), browser-less:
// initiation → the IdP's authorize/login/consent → Plinth's callback → svc_code → exchange. Built-in
// providers (google, microsoft, linkedin, apple) are pointed at the IdP through their endpoint
// overrides; a custom provider finds it by discovery.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIdp, type IdpUser, type OidcIdp } from '../../harness/oidc-idp.js';
import {
  deliverCallback,
  exchangeCode,
  initiateOAuth,
  pkcePair,
  providerAtIdp,
  redirectOf,
  runBrowserFlow,
  userById,
  usersWithEmail,
} from '../../harness/oauth-flow.js';
import { bearer, cookieFrom, startTestApp, type TestApp } from '../../harness/test-app.js';
import { createConfirmedUser } from '../../harness/users.js';
import { currentSession, passwordSignIn, refreshMobile, webCredentialsOf, webRefresh } from '../../harness/sessions.js';

const APP_REDIRECT = 'https://app.example/auth/callback';
const DEEP_LINK = 'myapp://oauth';
const API_BASE = 'http://localhost:7130';
const CUSTOM_KEY = 'corp-sso';

type Ref = { key: string; initPath: string; callbackPath: string; formPost?: boolean };
const builtIn = (provider: string, formPost = false): Ref => ({
  key: provider,
  initPath: `/api/auth/oauth/${provider}`,
  callbackPath: `/api/auth/oauth/${provider}/callback`,
  formPost,
});
const GOOGLE = builtIn('google');
const MICROSOFT = builtIn('microsoft');
const LINKEDIN = builtIn('linkedin');
const APPLE = builtIn('apple', true);
const CUSTOM: Ref = {
  key: CUSTOM_KEY,
  initPath: `/api/auth/oauth/custom/${CUSTOM_KEY}`,
  callbackPath: `/api/auth/oauth/custom/${CUSTOM_KEY}/callback`,
};

let t: TestApp;
let idp: OidcIdp;
const admin = () => ({ 'x-api-key': t.apiKey });
const secretOf = (key: string) => `idp-secret-for-${key}-0123456789`;

beforeAll(async () => {
  idp = await startOidcIdp();
  t = await startTestApp();
  expect(t.config.apiBaseUrl).toBe(API_BASE);

  for (const ref of [GOOGLE, MICROSOFT, LINKEDIN, APPLE]) {
    const res = await providerAtIdp(t, idp, {
      provider: ref.key,
      clientId: `plinth-${ref.key}`,
      clientSecret: secretOf(ref.key),
      callbackUrl: `${API_BASE}${ref.callbackPath}`,
      // Apple's own scopes (name, email) are not OpenID scopes; the IdP needs `openid` for an ID token.
      extra: ref === APPLE ? { scopes: ['openid', 'email', 'profile'] } : {},
    });
    expect(res.statusCode, res.body).toBe(201);
  }

  await idp.addClient({
    clientId: 'plinth-custom',
    clientSecret: secretOf(CUSTOM_KEY),
    redirectUris: [`${API_BASE}${CUSTOM.callbackPath}`],
  });
  const custom = await t.request({
    method: 'POST',
    url: '/api/auth/oauth/custom/configs',
    headers: admin(),
    payload: {
      key: CUSTOM_KEY,
      name: 'Corp SSO',
      discoveryEndpoint: idp.discoveryUrl,
      clientId: 'plinth-custom',
      clientSecret: secretOf(CUSTOM_KEY),
    },
  });
  expect(custom.statusCode, custom.body).toBe(201);

  await setAuthConfig({ allowedRedirectUrls: [APP_REDIRECT, DEEP_LINK] });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

async function setAuthConfig(changes: Record<string, unknown>) {
  const res = await t.request({ method: 'PUT', url: '/api/auth/config', headers: admin(), payload: changes });
  expect(res.statusCode, res.body).toBe(200);
}

/** An IdP account with a fresh sub and address. */
function idpUser(overrides: Partial<IdpUser> = {}): IdpUser & { email: string } {
  const tag = randomBytes(4).toString('hex');
  const user = {
    sub: `sub-${tag}`,
    email: `idp-${tag}@example.com`,
    emailVerified: true,
    name: `Person ${tag}`,
    picture: `https://cdn.example/${tag}.png`,
    ...overrides,
  } as IdpUser & { email: string };
  idp.addUser(user);
  return user;
}

/** Initiation → IdP (login + consent as `sub`) → Plinth's callback; the app redirect Plinth answered with. */
function browserFlow(
  ref: Ref,
  sub: string,
  opts: { redirect?: string; hints?: Record<string, string>; deny?: boolean } = {},
) {
  return runBrowserFlow(t, {
    initPath: ref.initPath,
    redirect: opts.redirect ?? APP_REDIRECT,
    hints: opts.hints,
    formPost: ref.formPost,
    async authorize(authUrl) {
      const callbackUrl = await idp.authorize(authUrl, sub, { deny: opts.deny });
      expect(callbackUrl.origin).toBe(API_BASE);
      expect(callbackUrl.pathname).toBe(ref.callbackPath);
      return callbackUrl;
    },
  });
}

/** The whole sign-in, ending in a session (mobile client unless told otherwise). */
async function signIn(ref: Ref, sub: string, clientType = 'mobile') {
  const flow = await browserFlow(ref, sub);
  expect(flow.base).toBe(APP_REDIRECT);
  expect(flow.params.error, flow.params.error).toBeUndefined();
  expect(flow.params.svc_code).toEqual(expect.any(String));
  const res = await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier, clientType);
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

describe('full sign-in through the IdP', () => {
  it.each([
    ['google (HTTP Basic client auth, PKCE)', GOOGLE],
    ['microsoft (HTTP Basic client auth, PKCE)', MICROSOFT],
    ['linkedin (secret in the body, no PKCE)', LINKEDIN],
    ['apple (form_post callback, profile from the ID token)', APPLE],
    ['a custom provider (discovery)', CUSTOM],
  ])('%s: mobile session with the IdP profile; a second sign-in is the same user', async (_name, ref) => {
    const person = idpUser();
    const pkce = pkcePair();
    const init = await initiateOAuth(t, ref.initPath, { redirect_uri: APP_REDIRECT, code_challenge: pkce.challenge });
    expect(init.statusCode, init.body).toBe(200);
    expect(Object.keys(init.json)).toEqual(['authUrl']);
    const authUrl = new URL(init.json.authUrl);
    expect(`${authUrl.origin}${authUrl.pathname}`).toBe(idp.authorizationUrl);
    expect(authUrl.searchParams.get('client_id')).toBe(ref === CUSTOM ? 'plinth-custom' : `plinth-${ref.key}`);
    expect(authUrl.searchParams.get('redirect_uri')).toBe(`${API_BASE}${ref.callbackPath}`);
    expect(authUrl.searchParams.get('response_type')).toBe('code');
    // Plinth's own PKCE pair towards the provider, never the app's challenge.
    expect(authUrl.searchParams.get('code_challenge')).not.toBe(pkce.challenge);
    expect(authUrl.toString()).not.toContain(secretOf(ref.key));

    const callbackUrl = await idp.authorize(authUrl.toString(), person.sub);
    const { base, params } = redirectOf(await deliverCallback(t, callbackUrl, ref.formPost));
    expect(base).toBe(APP_REDIRECT);
    expect(params.error, params.error).toBeUndefined();
    // The official client's hard-coded name rides beside the spec's (api-contract item 14).
    expect(Object.keys(params)).toEqual(['svc_code', 'insforge_code']);
    expect(params.insforge_code).toBe(params.svc_code);

    const session = await exchangeCode(t, params.svc_code!, pkce.verifier);
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json).toEqual({
      user: expect.objectContaining({
        id: expect.any(String),
        email: person.email,
        emailVerified: true,
        providers: [ref.key],
        profile: expect.objectContaining({ name: person.name, avatar_url: person.picture }),
      }),
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(session.json.accessToken),
    });
    expect(me.statusCode).toBe(200);
    expect(me.json.user).toMatchObject({ id: session.json.user.id, email: person.email, role: 'authenticated' });

    const again = await signIn(ref, person.sub);
    expect(again.json.user.id).toBe(session.json.user.id);
    expect(again.json.refreshToken).not.toBe(session.json.refreshToken);
    expect(await usersWithEmail(t, person.email)).toHaveLength(1);
  });

  it('web client: refresh cookie + csrfToken, refreshToken null; the cookie refreshes', async () => {
    const person = idpUser();
    const res = await signIn(GOOGLE, person.sub, 'web');
    expect(res.json).toMatchObject({
      user: { email: person.email },
      accessToken: expect.any(String),
      csrfToken: expect.any(String),
      refreshToken: null,
    });
    const cookie = cookieFrom(res, 'svc_refresh_token');
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api/auth' });
    const refreshed = await webRefresh(t, webCredentialsOf(res));
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json.user.id).toBe(res.json.user.id);
  });

  it('the same IdP account through two providers is one user (linked by its verified email)', async () => {
    // Linking by verified email is the admin's choice (off by default; identities-link.test.ts covers off).
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'x-api-key': t.apiKey },
      payload: { linkOAuthByEmail: true },
    });
    try {
      const person = idpUser();
      const first = await signIn(GOOGLE, person.sub);
      const second = await signIn(CUSTOM, person.sub);
      expect(second.json.user.id).toBe(first.json.user.id);
      expect([...second.json.user.providers].sort()).toEqual([CUSTOM_KEY, 'google'].sort());
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/config',
        headers: { 'x-api-key': t.apiKey },
        payload: { linkOAuthByEmail: false },
      });
    }
  });

  it('a deep-link redirect receives the svc_code too', async () => {
    const person = idpUser();
    const flow = await browserFlow(GOOGLE, person.sub, { redirect: DEEP_LINK });
    expect(flow.location.protocol).toBe('myapp:');
    expect(flow.params.svc_code).toEqual(expect.any(String));
    expect((await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier)).statusCode).toBe(200);
  });
});

describe('hints', () => {
  it('forwards extra parameters to the IdP, and the sign-in still completes', async () => {
    const person = idpUser();
    const flow = await browserFlow(GOOGLE, person.sub, {
      hints: { login_hint: person.email, prompt: 'select_account', hd: 'example.com' },
    });
    const seen = idp.lastAuthorizationRequest()!;
    expect(seen.get('login_hint')).toBe(person.email);
    expect(seen.get('prompt')).toBe('select_account');
    expect(seen.get('hd')).toBe('example.com');
    expect(flow.params.svc_code).toEqual(expect.any(String));
    expect((await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier)).json.user.email).toBe(person.email);
  });

  it.each([GOOGLE, CUSTOM])('ignores client values for the parameters Plinth owns ($key)', async (ref) => {
    const person = idpUser();
    const clientChallenge = pkcePair().challenge;
    const colliding = {
      client_id: 'evil-client',
      state: 'attacker-state',
      scope: 'openid admin',
      response_type: 'token',
      code_challenge_method: 'plain',
      nonce: 'attacker-nonce',
      response_mode: 'fragment',
    };
    const init = await initiateOAuth(t, ref.initPath, {
      redirect_uri: APP_REDIRECT,
      code_challenge: clientChallenge,
      ...colliding,
    });
    expect(init.statusCode, init.body).toBe(200);
    const callbackUrl = await idp.authorize(init.json.authUrl, person.sub);
    const seen = idp.lastAuthorizationRequest()!;
    expect(seen.get('client_id')).toBe(ref === CUSTOM ? 'plinth-custom' : 'plinth-google');
    expect(seen.get('redirect_uri')).toBe(`${API_BASE}${ref.callbackPath}`);
    expect(seen.get('response_type')).toBe('code');
    expect(seen.get('scope')).toBe('openid email profile');
    expect(seen.get('state')).not.toBe(colliding.state);
    expect(seen.get('nonce')).not.toBe(colliding.nonce);
    expect(seen.get('code_challenge')).not.toBe(clientChallenge);
    expect(seen.get('code_challenge_method')).toBe('S256');
    expect(seen.get('response_mode')).toBeNull();
    for (const name of Object.keys(colliding)) expect(seen.getAll(name).length, name).toBeLessThanOrEqual(1);

    const { base, params } = redirectOf(await deliverCallback(t, callbackUrl, ref.formPost));
    expect(base).toBe(APP_REDIRECT);
    expect(params.svc_code).toEqual(expect.any(String));
  });
});

describe('initiation errors', () => {
  const challenge = pkcePair().challenge;

  it('a redirect_uri outside allowedRedirectUrls is a 400 naming the URL, with nextActions', async () => {
    const evil = 'https://evil.example/steal';
    const res = await initiateOAuth(t, GOOGLE.initPath, { redirect_uri: evil, code_challenge: challenge });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      statusCode: 400,
      nextActions: expect.stringContaining('allowedRedirectUrls'),
    });
    expect(res.json.message).toContain(evil);
    // Another path on the allowed host is no better, nor is a dangerous scheme.
    for (const redirect of ['https://app.example/other', `${APP_REDIRECT}/../admin`, 'javascript:alert(1)']) {
      const other = await initiateOAuth(t, CUSTOM.initPath, { redirect_uri: redirect, code_challenge: challenge });
      expect(other.statusCode, redirect).toBe(400);
    }
  });

  it.each([
    ['no code_challenge', { redirect_uri: APP_REDIRECT }],
    ['a 42-character code_challenge', { redirect_uri: APP_REDIRECT, code_challenge: 'a'.repeat(42) }],
    ['a code_challenge with bad characters', { redirect_uri: APP_REDIRECT, code_challenge: `${'a'.repeat(42)}+/` }],
    ['no redirect_uri', { code_challenge: 'a'.repeat(43) }],
    ['a redirect_uri that is not a URL', { redirect_uri: 'not a url', code_challenge: 'a'.repeat(43) }],
  ])('%s is a 400', async (_name, query) => {
    const res = await initiateOAuth(t, GOOGLE.initPath, query as Record<string, string>);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it('an unknown provider is a 400; a known but unconfigured one (built-in or custom) a 404', async () => {
    const unknown = await t.request({
      method: 'GET',
      url: `/api/auth/oauth/myspace?redirect_uri=${encodeURIComponent(APP_REDIRECT)}&code_challenge=${challenge}`,
    });
    expect(unknown.statusCode).toBe(400);
    for (const ref of [builtIn('spotify'), { ...CUSTOM, initPath: '/api/auth/oauth/custom/nobody' }]) {
      const res = await initiateOAuth(t, ref.initPath, { redirect_uri: APP_REDIRECT, code_challenge: challenge });
      expect(res.statusCode, ref.initPath).toBe(404);
      expect(res.json).toMatchObject({ error: 'AUTH_OAUTH_CONFIG_NOT_FOUND', nextActions: expect.any(String) });
    }
  });
});

describe('svc_code exchange', () => {
  it('a svc_code works once: a replay is a 400', async () => {
    const flow = await browserFlow(GOOGLE, idpUser().sub);
    expect((await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier)).statusCode).toBe(200);
    const replay = await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier);
    expect(replay.statusCode).toBe(400);
    expect(replay.json).toMatchObject({ error: 'VALIDATION_ERROR', message: 'Invalid or expired code.' });
    expect(replay.json.accessToken).toBeUndefined();
  });

  it('a wrong code_verifier is a 400, and spends the code', async () => {
    const flow = await browserFlow(CUSTOM, idpUser().sub);
    const wrong = await exchangeCode(t, flow.params.svc_code!, pkcePair().verifier);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json.message).toMatch(/PKCE/);
    expect(wrong.json.accessToken).toBeUndefined();
    const right = await exchangeCode(t, flow.params.svc_code!, flow.pkce.verifier);
    expect(right.statusCode).toBe(400);
  });

  it('an unknown code and a bad body are 400', async () => {
    expect((await exchangeCode(t, 'no-such-code', pkcePair().verifier)).statusCode).toBe(400);
    const noVerifier = await t.request({
      method: 'POST',
      url: '/api/auth/oauth/exchange?client_type=mobile',
      payload: { code: 'x' },
    });
    expect(noVerifier.statusCode).toBe(400);
    expect((await exchangeCode(t, 'x', 'short')).statusCode).toBe(400);
  });

  it('a svc_code lives 5 minutes', async () => {
    // Both codes are issued at the same Plinth time; the IdP part runs on the real clock.
    const early = await browserFlow(GOOGLE, idpUser().sub);
    const late = await browserFlow(GOOGLE, idpUser().sub);
    t.clock.advance(5 * 60 * 1000 - 1000);
    expect((await exchangeCode(t, early.params.svc_code!, early.pkce.verifier)).statusCode).toBe(200);
    t.clock.advance(2000);
    const expired = await exchangeCode(t, late.params.svc_code!, late.pkce.verifier);
    expect(expired.statusCode).toBe(400);
    expect(expired.json.message).toBe('Invalid or expired code.');
  });
});

describe('state', () => {
  it('a forged, tampered, missing or other-provider state is a 400 in JSON, not a redirect', async () => {
    const pkce = pkcePair();
    const init = await initiateOAuth(t, GOOGLE.initPath, {
      redirect_uri: APP_REDIRECT,
      code_challenge: pkce.challenge,
    });
    const callbackUrl = await idp.authorize(init.json.authUrl, idpUser().sub);
    const state = callbackUrl.searchParams.get('state')!;
    const code = callbackUrl.searchParams.get('code')!;
    const flipped = `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`;

    const cases: [string, string][] = [
      ['forged', `${GOOGLE.callbackPath}?${new URLSearchParams({ code, state: 'forged-state' })}`],
      ['tampered', `${GOOGLE.callbackPath}?${new URLSearchParams({ code, state: flipped })}`],
      ['missing', `${GOOGLE.callbackPath}?${new URLSearchParams({ code })}`],
      ['another provider', `${MICROSOFT.callbackPath}?${new URLSearchParams({ code, state })}`],
      ['custom provider', `${CUSTOM.callbackPath}?${new URLSearchParams({ code, state })}`],
    ];
    for (const [name, url] of cases) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, name).toBe(400);
      expect(res.headers.location, name).toBeUndefined();
      expect(res.json, name).toMatchObject({ error: 'VALIDATION_ERROR', message: 'Invalid or expired OAuth state.' });
    }

    // The genuine callback still works afterwards.
    const { params } = redirectOf(await deliverCallback(t, callbackUrl, GOOGLE.formPost));
    expect((await exchangeCode(t, params.svc_code!, pkce.verifier)).statusCode).toBe(200);
  });

  it('a state older than 10 minutes is refused', async () => {
    const init = await initiateOAuth(t, GOOGLE.initPath, {
      redirect_uri: APP_REDIRECT,
      code_challenge: pkcePair().challenge,
    });
    const callbackUrl = await idp.authorize(init.json.authUrl, idpUser().sub);
    // The IdP part is done; only Plinth's clock moves.
    t.clock.advance(10 * 60 * 1000 + 1000);
    const res = await deliverCallback(t, callbackUrl, GOOGLE.formPost);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', message: 'Invalid or expired OAuth state.' });
  });
});

describe('provider failures', () => {
  it.each([GOOGLE, LINKEDIN, CUSTOM])(
    'a failing token endpoint sends the browser back with error= ($key)',
    async (ref) => {
      const person = idpUser();
      idp.failNextTokenRequest();
      const flow = await browserFlow(ref, person.sub);
      expect(flow.base).toBe(APP_REDIRECT);
      expect(flow.params.error).toEqual(expect.any(String));
      expect(flow.location.toString()).not.toContain(secretOf(ref.key));
      expect(flow.params.svc_code).toBeUndefined();
      expect(await usersWithEmail(t, person.email)).toHaveLength(0);
      // The next attempt succeeds.
      expect((await signIn(ref, person.sub)).json.user.email).toBe(person.email);
    },
  );

  it.each([GOOGLE, CUSTOM])('denied consent sends the browser back with error= ($key)', async (ref) => {
    const person = idpUser();
    const flow = await browserFlow(ref, person.sub, { deny: true });
    expect(flow.callbackUrl.searchParams.get('error')).toBe('access_denied');
    expect(flow.base).toBe(APP_REDIRECT);
    expect(flow.params.error).toEqual(expect.any(String));
    expect(flow.params.svc_code).toBeUndefined();
    expect(await usersWithEmail(t, person.email)).toHaveLength(0);
  });

  it('an unreachable user API sends the browser back with error=, not a 500', async () => {
    const person = idpUser();
    const dead = await t.request({
      method: 'PUT',
      url: '/api/auth/oauth/microsoft/config',
      headers: admin(),
      payload: { userinfoUrl: 'http://127.0.0.1:1/userinfo' },
    });
    expect(dead.statusCode).toBe(200);
    try {
      const flow = await browserFlow(MICROSOFT, person.sub);
      expect(flow.base).toBe(APP_REDIRECT);
      expect(flow.params.error).toEqual(expect.any(String));
      expect(flow.params.svc_code).toBeUndefined();
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/oauth/microsoft/config',
        headers: admin(),
        payload: { userinfoUrl: idp.userinfoUrl },
      });
    }
    expect((await signIn(MICROSOFT, person.sub)).json.user.email).toBe(person.email);
  });

  it('an IdP account without an email cannot create an account', async () => {
    const person = idpUser({ email: undefined });
    const flow = await browserFlow(GOOGLE, person.sub);
    expect(flow.params.error).toMatch(/email/);
    expect(flow.params.svc_code).toBeUndefined();
  });
});

describe('linking by email', () => {
  it('a verified password account gets the provider linked and keeps its password', async () => {
    // Linking by verified email is the admin's choice (off by default; identities-link.test.ts covers off).
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { 'x-api-key': t.apiKey },
      payload: { linkOAuthByEmail: true },
    });
    try {
      const email = `linked-${randomBytes(4).toString('hex')}@example.com`;
      const created = await createConfirmedUser(t, email);
      expect(created.statusCode, created.body).toBe(200);
      expect(created.json.user.emailVerified).toBe(true);

      const person = idpUser({ email: email.toUpperCase() });
      const session = await signIn(GOOGLE, person.sub);
      expect(session.json.user.id).toBe(created.json.user.id);
      expect(session.json.user.email).toBe(email);
      expect([...session.json.user.providers].sort()).toEqual(['email', 'google']);

      const password = await passwordSignIn(t, { email, password: 'password-123' }, 'mobile');
      expect(password.statusCode).toBe(200);
      expect(password.json.user.id).toBe(created.json.user.id);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/config',
        headers: { 'x-api-key': t.apiKey },
        payload: { linkOAuthByEmail: false },
      });
    }
  });

  it('an unverified account is taken over safely: password cleared, old sessions revoked', async () => {
    const squatter = await t.signUp();
    expect(squatter.user.emailVerified).toBe(false);

    const owner = idpUser({ email: squatter.email });
    const session = await signIn(MICROSOFT, owner.sub);
    expect(session.json.user).toMatchObject({ id: squatter.user.id, emailVerified: true, providers: ['microsoft'] });

    const oldPassword = await passwordSignIn(t, squatter, 'mobile');
    expect(oldPassword.statusCode).toBe(401);
    const oldRefresh = await refreshMobile(t, squatter.refreshToken);
    expect(oldRefresh.statusCode).toBe(401);
    const oldAccess = await currentSession(t, squatter.accessToken);
    expect(oldAccess.statusCode).toBe(401);

    // The new owner's session is fine.
    const me = await currentSession(t, session.json.accessToken);
    expect(me.statusCode).toBe(200);
  });

  it('an address the IdP did not verify is not linked to the existing account', async () => {
    const existing = await t.signUp();
    const stranger = idpUser({ email: existing.email, emailVerified: false });
    const flow = await browserFlow(GOOGLE, stranger.sub);
    expect(flow.base).toBe(APP_REDIRECT);
    expect(flow.params.error).toEqual(expect.any(String));
    expect(flow.params.svc_code).toBeUndefined();

    const user = await userById(t, existing.user.id);
    expect(user.providers).toEqual(['email']);
    const password = await passwordSignIn(t, existing, 'mobile');
    expect(password.statusCode).toBe(200);
    expect(await usersWithEmail(t, existing.email)).toHaveLength(1);
  });

  it('an IdP account with an unverified address and no existing user gets an unverified account', async () => {
    const person = idpUser({ emailVerified: false });
    const session = await signIn(LINKEDIN, person.sub);
    expect(session.json.user).toMatchObject({ email: person.email, emailVerified: false, providers: ['linkedin'] });
  });

  it('a takeover also drops provider links made with an unverified address', async () => {
    // Someone signs up through a provider that did not verify the victim's address...
    const tag = randomBytes(4).toString('hex');
    const squatter = idpUser({ email: `victim-${tag}@example.com`, emailVerified: false });
    const squatted = await signIn(LINKEDIN, squatter.sub);
    expect(squatted.json.user.emailVerified).toBe(false);

    // ...then the owner proves the inbox through another provider and gets the account.
    const owner = idpUser({ email: squatter.email });
    const owned = await signIn(GOOGLE, owner.sub);
    expect(owned.json.user).toMatchObject({ id: squatted.json.user.id, emailVerified: true, providers: ['google'] });
    expect((await refreshMobile(t, squatted.json.refreshToken)).statusCode).toBe(401);

    // The squatter's provider account no longer leads into it.
    const again = await browserFlow(LINKEDIN, squatter.sub);
    expect(again.params.svc_code).toBeUndefined();
    expect(again.params.error).toEqual(expect.any(String));
    expect((await userById(t, owned.json.user.id)).providers).toEqual(['google']);
  });
});

describe('sign-up disabled', () => {
  it('refuses a first OAuth sign-in with an error redirect, while a linked account still signs in', async () => {
    const known = idpUser();
    const first = await signIn(GOOGLE, known.sub);
    const newcomer = idpUser();

    await setAuthConfig({ disableSignup: true });
    try {
      const refused = await browserFlow(GOOGLE, newcomer.sub);
      expect(refused.base).toBe(APP_REDIRECT);
      expect(refused.params.error).toMatch(/disabled/i);
      expect(refused.params.svc_code).toBeUndefined();
      expect(await usersWithEmail(t, newcomer.email)).toHaveLength(0);

      const custom = await browserFlow(CUSTOM, idpUser().sub);
      expect(custom.params.error).toMatch(/disabled/i);

      const again = await signIn(GOOGLE, known.sub);
      expect(again.json.user.id).toBe(first.json.user.id);
    } finally {
      await setAuthConfig({ disableSignup: false });
    }
    expect((await signIn(GOOGLE, newcomer.sub)).json.user.email).toBe(newcomer.email);
  });
});
