// Linked identities against a real OpenID provider on loopback (oidc-provider): listing a user's
// identities, linking an OAuth account while signed in (PKCE; the link code is spent only by the
// user who started it), converting an anonymous user that way, unlinking (never the last sign-in
// method), and the policy on OAuth sign-ins whose verified email matches an existing account.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIdp, type IdpUser, type OidcIdp } from '../../harness/oidc-idp.js';
import { exchangeCode, providerAtIdp, runBrowserFlow, userById } from '../../harness/oauth-flow.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { passwordSignIn } from '../../harness/sessions.js';
import { createConfirmedUser } from '../../harness/users.js';

const APP_REDIRECT = 'https://app.example/auth/callback';
const API_BASE = 'http://localhost:7130';
const PROVIDERS = ['google', 'microsoft'] as const;
type Provider = (typeof PROVIDERS)[number];

let t: TestApp;
let idp: OidcIdp;
const admin = () => ({ 'x-api-key': t.apiKey });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

beforeAll(async () => {
  idp = await startOidcIdp();
  t = await startTestApp();
  for (const provider of PROVIDERS) {
    const res = await providerAtIdp(t, idp, {
      provider,
      clientId: `plinth-${provider}`,
      clientSecret: `idp-secret-for-${provider}-0123456789`,
      callbackUrl: `${API_BASE}/api/auth/oauth/${provider}/callback`,
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  await setAuthConfig({ allowedRedirectUrls: [APP_REDIRECT], anonymousSignInsEnabled: true });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

async function setAuthConfig(changes: Record<string, unknown>) {
  const res = await t.request({ method: 'PUT', url: '/api/auth/config', headers: admin(), payload: changes });
  expect(res.statusCode, res.body).toBe(200);
}

function idpUser(overrides: Partial<IdpUser> = {}): IdpUser & { email: string } {
  const tag = randomBytes(4).toString('hex');
  const user = {
    sub: `sub-${tag}`,
    email: `idp-${tag}@example.com`,
    emailVerified: true,
    name: `P ${tag}`,
    ...overrides,
  };
  idp.addUser(user);
  return user as IdpUser & { email: string };
}

/** The IdP round trip of a flow started at `initPath` (with `token` when it is a link). */
function browserFlow(provider: Provider, initPath: string, sub: string, token?: string) {
  const requester = token
    ? {
        request: (o: Parameters<TestApp['request']>[0]) =>
          t.request({ ...o, headers: { ...o.headers, ...bearer(token) } }),
      }
    : t;
  return runBrowserFlow(requester, {
    initPath,
    redirect: APP_REDIRECT,
    authorize: async (authUrl) => {
      const callback = await idp.authorize(authUrl, sub);
      expect(callback.pathname).toBe(`/api/auth/oauth/${provider}/callback`);
      return callback;
    },
  });
}

/** Starts a link as the user behind `token`; the svc_code and verifier the app then holds. */
async function startLink(provider: Provider, token: string, sub: string) {
  const flow = await browserFlow(provider, `/api/auth/identities/oauth/${provider}`, sub, token);
  expect(flow.params.error, flow.params.error).toBeUndefined();
  return { code: flow.params.svc_code!, verifier: flow.pkce.verifier };
}

const finishLink = (token: string, code: string, verifier: string) =>
  t.request({
    method: 'POST',
    url: '/api/auth/identities/oauth/exchange',
    headers: bearer(token),
    payload: { code, code_verifier: verifier },
  });

const identities = (token: string) => t.request({ method: 'GET', url: '/api/auth/identities', headers: bearer(token) });
const unlink = (token: string, id: string) =>
  t.request({ method: 'DELETE', url: `/api/auth/identities/${id}`, headers: bearer(token) });

async function oauthSignIn(provider: Provider, sub: string) {
  const flow = await browserFlow(provider, `/api/auth/oauth/${provider}`, sub);
  if (!flow.params.svc_code) return { error: flow.params.error, json: undefined };
  const res = await exchangeCode(t, flow.params.svc_code, flow.pkce.verifier);
  expect(res.statusCode, res.body).toBe(200);
  return { error: undefined, json: res.json };
}

describe('listing and linking', () => {
  it('a password user links google: both identities listed, and google signs in to the same user', async () => {
    const user = await t.signUp();
    const before = await identities(user.accessToken);
    expect(before.statusCode).toBe(200);
    expect(before.json.data).toEqual([
      expect.objectContaining({ id: 'password', provider: 'email', providerAccountId: user.email, email: user.email }),
    ]);

    const person = idpUser();
    const { code, verifier } = await startLink('google', user.accessToken, person.sub);
    const linked = await finishLink(user.accessToken, code, verifier);
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json.user).toMatchObject({ id: user.user.id, email: user.email, providers: ['email', 'google'] });

    const after = await identities(user.accessToken);
    expect(after.json.data.map((i: { provider: string }) => i.provider)).toEqual(['email', 'google']);
    expect(after.json.data[1]).toMatchObject({ providerAccountId: person.sub, email: person.email });
    // The admin sees the same list.
    const adminView = await t.request({
      method: 'GET',
      url: `/api/auth/users/${user.user.id}/identities`,
      headers: admin(),
    });
    expect(adminView.json).toEqual(after.json);

    const viaGoogle = await oauthSignIn('google', person.sub);
    expect(viaGoogle.json.user.id).toBe(user.user.id);
  });

  it('an anonymous user who links google is no longer anonymous, keeps its id, and takes the verified address', async () => {
    const anon = await t.request({ method: 'POST', url: '/api/auth/anonymous?client_type=mobile' });
    expect(anon.statusCode, anon.body).toBe(200);
    const person = idpUser();
    const { code, verifier } = await startLink('google', anon.json.accessToken, person.sub);
    const linked = await finishLink(anon.json.accessToken, code, verifier);
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json.user).toMatchObject({
      id: anon.json.user.id,
      email: person.email,
      emailVerified: true,
      isAnonymous: false,
      providers: ['google'],
    });
    expect(claimsOf(linked.json.accessToken)).toMatchObject({ sub: anon.json.user.id, is_anonymous: false });
  });

  it('a provider account linked to another user is a 409, and nothing changes', async () => {
    const person = idpUser();
    const owner = await oauthSignIn('google', person.sub);
    const other = await t.signUp();
    const { code, verifier } = await startLink('google', other.accessToken, person.sub);
    const res = await finishLink(other.accessToken, code, verifier);
    expect(res.statusCode).toBe(409);
    expect(res.json).toMatchObject({ error: 'CONFLICT', nextActions: expect.any(String) });
    expect((await userById(t, other.user.id)).providers).toEqual(['email']);
    expect((await userById(t, owner.json.user.id)).providers).toEqual(['google']);
  });
});

describe('the link code', () => {
  it('is spent only by the user who started the link, with the verifier, once', async () => {
    const user = await t.signUp();
    const intruder = await t.signUp();
    const person = idpUser();
    const { code, verifier } = await startLink('microsoft', user.accessToken, person.sub);

    // Not a sign-in code: the sign-in exchange refuses it (no session for anyone).
    expect((await exchangeCode(t, code, verifier)).statusCode).toBe(400);
    // Another user's token cannot spend it.
    expect((await finishLink(intruder.accessToken, code, verifier)).statusCode).toBe(400);
    expect((await userById(t, intruder.user.id)).providers).toEqual(['email']);
    // A wrong verifier burns it.
    const wrong = await finishLink(user.accessToken, code, 'w'.repeat(43));
    expect(wrong.statusCode).toBe(400);
    expect((await finishLink(user.accessToken, code, verifier)).statusCode).toBe(400);
    expect((await userById(t, user.user.id)).providers).toEqual(['email']);
  });

  it('the link start needs a user access token: none is 401, the anon key 401, the admin 403', async () => {
    const url = `/api/auth/identities/oauth/google?redirect_uri=${encodeURIComponent(APP_REDIRECT)}&code_challenge=${'c'.repeat(43)}`;
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url, headers: bearer(t.anonKey) })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url, headers: bearer(await t.adminToken()) })).statusCode).toBe(403);
  });
});

describe('unlinking', () => {
  it('unlinks one identity, but never the last sign-in method (409 with nextActions)', async () => {
    const user = await t.signUp();
    const person = idpUser();
    const { code, verifier } = await startLink('google', user.accessToken, person.sub);
    expect((await finishLink(user.accessToken, code, verifier)).statusCode).toBe(200);

    // Unlink the password: google is left, and the password no longer signs in.
    const res = await unlink(user.accessToken, 'password');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.data.map((i: { provider: string }) => i.provider)).toEqual(['google']);
    expect((await passwordSignIn(t, user, 'mobile')).statusCode).toBe(401);

    const last = await unlink(user.accessToken, res.json.data[0].id);
    expect(last.statusCode).toBe(409);
    expect(last.json).toMatchObject({ error: 'CONFLICT', nextActions: expect.stringContaining('Link another') });
    expect((await identities(user.accessToken)).json.data).toHaveLength(1);
  });

  it("another user's identity id is a 404 (and stays linked); a malformed id is a 400", async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    const person = idpUser();
    const { code, verifier } = await startLink('google', bob.accessToken, person.sub);
    expect((await finishLink(bob.accessToken, code, verifier)).statusCode).toBe(200);
    const bobGoogle = (await identities(bob.accessToken)).json.data[1].id;
    expect((await unlink(alice.accessToken, bobGoogle)).statusCode).toBe(404);
    expect((await identities(bob.accessToken)).json.data).toHaveLength(2);
    expect((await unlink(alice.accessToken, 'not-an-id')).statusCode).toBe(400);
  });

  it('two concurrent unlinks of the last two identities: one succeeds, the other is a 409', async () => {
    const user = await t.signUp();
    const person = idpUser();
    const { code, verifier } = await startLink('google', user.accessToken, person.sub);
    expect((await finishLink(user.accessToken, code, verifier)).statusCode).toBe(200);
    const google = (await identities(user.accessToken)).json.data[1].id;
    const results = await Promise.all([unlink(user.accessToken, 'password'), unlink(user.accessToken, google)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await identities(user.accessToken)).json.data).toHaveLength(1);
  });
});

/** An account whose owner proved the address (the admin created it verified). */
async function confirmedUser() {
  const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
  const res = await createConfirmedUser(t, email);
  expect(res.statusCode, res.body).toBe(200);
  return { user: res.json.user as { id: string }, email, password: 'password-123' };
}

describe('signing in with OAuth whose verified email matches an existing account', () => {
  it('off (the default): no link, an error that says how to link, and the account is untouched', async () => {
    const existing = await confirmedUser();
    const person = idpUser({ email: existing.email });
    const result = await oauthSignIn('google', person.sub);
    expect(result.json).toBeUndefined();
    expect(result.error).toContain('already exists');
    expect((await userById(t, existing.user.id)).providers).toEqual(['email']);
    expect((await passwordSignIn(t, existing, 'mobile')).statusCode).toBe(200);
  });

  it('on (an audited admin setting): the sign-in links to the existing account', async () => {
    await setAuthConfig({ linkOAuthByEmail: true });
    try {
      const existing = await confirmedUser();
      const person = idpUser({ email: existing.email });
      const result = await oauthSignIn('google', person.sub);
      expect(result.json.user).toMatchObject({ id: existing.user.id, providers: ['email', 'google'] });
    } finally {
      await setAuthConfig({ linkOAuthByEmail: false });
    }
  });
});
