// Registration (public and by the admin), password policy, sign-up switches, password sign-in,
// the current session, and profiles — everything as a client sees it over HTTP.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, cookieFrom, DEFAULT_AUTH_CONFIG, startTestApp, type TestApp } from '../../harness/test-app.js';
import { refreshMobile, webCredentialsOf, webRefresh } from '../../harness/sessions.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const apiKey = () => bearer(t.apiKey);
const uniqueEmail = (tag = 'u') => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

async function setConfig(changes: Record<string, unknown>) {
  const res = await t.request({ method: 'PUT', url: '/api/auth/config', headers: apiKey(), payload: changes });
  expect(res.statusCode).toBe(200);
  return res.json;
}

// Configuration is one row per database: every test starts from the defaults.
afterEach(async () => {
  await setConfig(DEFAULT_AUTH_CONFIG);
});

const register = (payload: unknown, opts: { clientType?: string; headers?: Record<string, string> } = {}) =>
  t.request({
    method: 'POST',
    url: `/api/auth/users${opts.clientType ? `?client_type=${opts.clientType}` : ''}`,
    headers: opts.headers,
    payload: payload as Record<string, unknown>,
  });

const signIn = (payload: unknown, clientType?: string) =>
  t.request({
    method: 'POST',
    url: `/api/auth/sessions${clientType ? `?client_type=${clientType}` : ''}`,
    payload: payload as Record<string, unknown>,
  });

const currentSession = (headers: Record<string, string>) =>
  t.request({ method: 'GET', url: '/api/auth/sessions/current', headers });

/** Users whose email or name contains `search`, as the admin list shows them. */
async function usersMatching(search: string) {
  const res = await t.request({
    method: 'GET',
    url: `/api/auth/users?search=${encodeURIComponent(search)}`,
    headers: apiKey(),
  });
  expect(res.statusCode).toBe(200);
  return res.json as { data: any[]; pagination: { total: number } };
}

const isoDate = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

describe('POST /api/auth/users (public registration)', () => {
  it('web client (the default): user, access token, CSRF token and an httpOnly refresh cookie', async () => {
    const email = uniqueEmail('web');
    const res = await register({ email, password: 'secret-123', name: 'Ada' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      user: {
        id: uuid,
        email,
        emailVerified: false,
        providers: ['email'],
        profile: { name: 'Ada' },
        metadata: {},
        createdAt: isoDate,
        updatedAt: isoDate,
        isAnonymous: false,
      },
      accessToken: expect.any(String),
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      requireEmailVerification: false,
    });
    expect(res.json.user).not.toHaveProperty('passwordHash');
    expect(res.json.user).not.toHaveProperty('password_hash');
    const cookie = cookieFrom(res, 'svc_refresh_token');
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api/auth' });
    expect(cookie!.value.length).toBeGreaterThan(20);

    // The access token works at once, and the cookie + CSRF token refresh the session.
    const me = await currentSession(bearer(res.json.accessToken));
    expect(me.statusCode).toBe(200);
    expect(me.json.user).toMatchObject({ id: res.json.user.id, email, role: 'authenticated' });
    const refreshed = await webRefresh(t, webCredentialsOf(res));
    expect(refreshed.statusCode).toBe(200);
  });

  it.each(['mobile', 'desktop', 'server'])(
    '%s client: refresh token in the body, no cookie, no CSRF token',
    async (clientType) => {
      const email = uniqueEmail(clientType);
      const res = await register({ email, password: 'secret-123' }, { clientType });
      expect(res.statusCode).toBe(200);
      expect(res.json).toMatchObject({
        user: { email, profile: {} },
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        requireEmailVerification: false,
      });
      expect(res.json).not.toHaveProperty('csrfToken');
      expect(res.headers['set-cookie']).toBeUndefined();
      const refreshed = await t.request({
        method: 'POST',
        url: `/api/auth/refresh?client_type=${clientType}`,
        payload: { refreshToken: res.json.refreshToken },
      });
      expect(refreshed.statusCode).toBe(200);
    },
  );

  it('trims and lowercases the email, and the account signs in with any casing', async () => {
    const local = `MiXeD-${randomBytes(3).toString('hex')}`;
    const res = await register({ email: `  ${local}@Example.COM  `, password: 'secret-123' }, { clientType: 'mobile' });
    expect(res.statusCode).toBe(200);
    expect(res.json.user.email).toBe(`${local.toLowerCase()}@example.com`);

    const again = await signIn({ email: `${local.toUpperCase()}@EXAMPLE.com`, password: 'secret-123' }, 'mobile');
    expect(again.statusCode).toBe(200);
    expect(again.json.user.id).toBe(res.json.user.id);
  });

  it.each([
    ['the same email', (e: string) => e],
    ['the same email in another casing', (e: string) => e.toUpperCase()],
    ['the same email with surrounding spaces', (e: string) => ` ${e}\t`],
  ])('answers 409 AUTH_EMAIL_EXISTS for %s and leaves the first account as it was', async (_label, variant) => {
    const email = uniqueEmail('dup');
    const first = await register({ email, password: 'first-pass-1', name: 'First' }, { clientType: 'mobile' });
    expect(first.statusCode).toBe(200);

    const dup = await register(
      { email: variant(email), password: 'second-pass-2', name: 'Second' },
      { clientType: 'mobile' },
    );
    expect(dup.statusCode).toBe(409);
    expect(dup.json).toMatchObject({ error: 'AUTH_EMAIL_EXISTS', statusCode: 409, message: expect.any(String) });
    expect(dup.headers['set-cookie']).toBeUndefined();

    const listed = await usersMatching(email);
    expect(listed.pagination.total).toBe(1);
    expect(listed.data[0].profile).toEqual({ name: 'First' });
    expect((await signIn({ email, password: 'first-pass-1' }, 'mobile')).statusCode).toBe(200);
    expect((await signIn({ email, password: 'second-pass-2' }, 'mobile')).statusCode).toBe(401);
  });
});

describe('password policy (PUT /api/auth/config)', () => {
  const cases: {
    name: string;
    policy: Record<string, unknown>;
    password: string;
    status: number;
    rules?: string[];
  }[] = [
    {
      name: 'default minimum length 6: 5 characters',
      policy: {},
      password: 'abcde',
      status: 400,
      rules: ['passwordMinLength'],
    },
    { name: 'default minimum length 6: 6 characters', policy: {}, password: 'abcdef', status: 200 },
    {
      name: 'minimum length 12: 11 characters',
      policy: { passwordMinLength: 12 },
      password: 'abcdefghijk',
      status: 400,
      rules: ['passwordMinLength'],
    },
    {
      name: 'minimum length 12: 12 characters',
      policy: { passwordMinLength: 12 },
      password: 'abcdefghijkl',
      status: 200,
    },
    {
      name: 'length counts characters, not UTF-16 units: 3 emoji < 6',
      policy: {},
      password: '🔑🔑🔑',
      status: 400,
      rules: ['passwordMinLength'],
    },
    { name: 'length counts characters: 6 emoji', policy: {}, password: '🔑🔑🔑🔑🔑🔑', status: 200 },
    {
      name: 'number required, none given',
      policy: { requireNumber: true },
      password: 'no-digits-here',
      status: 400,
      rules: ['requireNumber'],
    },
    { name: 'number required, given', policy: { requireNumber: true }, password: 'one-digit-1', status: 200 },
    {
      name: 'lowercase required, none given',
      policy: { requireLowercase: true },
      password: 'ALL-UPPER-1',
      status: 400,
      rules: ['requireLowercase'],
    },
    { name: 'lowercase required, given', policy: { requireLowercase: true }, password: 'MOSTLY-UPPEr', status: 200 },
    {
      name: 'uppercase required, none given',
      policy: { requireUppercase: true },
      password: 'all-lower-1',
      status: 400,
      rules: ['requireUppercase'],
    },
    { name: 'uppercase required, given', policy: { requireUppercase: true }, password: 'one-Upper', status: 200 },
    {
      name: 'special char required, none given',
      policy: { requireSpecialChar: true },
      password: 'Letters1234',
      status: 400,
      rules: ['requireSpecialChar'],
    },
    {
      name: 'special char required, given',
      policy: { requireSpecialChar: true },
      password: 'Letters1234!',
      status: 200,
    },
    {
      name: 'every rule on, every rule broken: all are named',
      policy: {
        passwordMinLength: 10,
        requireNumber: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSpecialChar: true,
      },
      password: 'abc',
      status: 400,
      rules: ['passwordMinLength', 'requireNumber', 'requireUppercase', 'requireSpecialChar'],
    },
    {
      name: 'every rule on, every rule met',
      policy: {
        passwordMinLength: 10,
        requireNumber: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSpecialChar: true,
      },
      password: 'Abcdefgh1#',
      status: 200,
    },
  ];

  it.each(cases)('$name → $status', async ({ policy, password, status, rules }) => {
    if (Object.keys(policy).length > 0) await setConfig(policy);
    const email = uniqueEmail('policy');
    const res = await register({ email, password }, { clientType: 'mobile' });
    expect(res.statusCode).toBe(status);
    if (status === 200) {
      expect(res.json.accessToken).toEqual(expect.any(String));
      return;
    }
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    expect(res.json.message).toMatch(/^Password must contain /);
    const named = (res.json.details as { field: string; rule: string }[]).map((d) => {
      expect(d.field).toBe('password');
      return d.rule;
    });
    expect(named.sort()).toEqual([...rules!].sort());
    // A rejected password creates no account.
    expect((await usersMatching(email)).pagination.total).toBe(0);
  });
});

describe('disableSignup', () => {
  it('rejects public sign-up with 403 AUTH_SIGNUP_DISABLED and creates nothing', async () => {
    await setConfig({ disableSignup: true });
    const email = uniqueEmail('closed');
    for (const clientType of ['web', 'mobile']) {
      const res = await register({ email, password: 'secret-123' }, { clientType });
      expect(res.statusCode).toBe(403);
      expect(res.json).toMatchObject({ error: 'AUTH_SIGNUP_DISABLED', statusCode: 403 });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // A user access token or the anon key is not an admin: still refused.
    const someone = await (async () => {
      await setConfig({ disableSignup: false });
      const s = await t.signUp();
      await setConfig({ disableSignup: true });
      return s;
    })();
    for (const headers of [bearer(someone.accessToken), bearer(t.anonKey)]) {
      const res = await register({ email, password: 'secret-123' }, { headers });
      expect(res.statusCode).toBe(403);
      expect(res.json.error).toBe('AUTH_SIGNUP_DISABLED');
    }
    // An invalid credential does not unlock it either.
    const forged = await register({ email, password: 'secret-123' }, { headers: bearer(`ik_${'0'.repeat(64)}`) });
    expect(forged.statusCode).toBe(403);
    expect((await usersMatching(email)).pagination.total).toBe(0);
  });

  it.each([
    ['admin access token', async () => bearer(await t.adminToken())],
    ['API key (Bearer)', async () => bearer(t.apiKey)],
    ['API key (x-api-key)', async () => ({ 'x-api-key': t.apiKey })],
  ])('the %s still creates users: account only, no tokens, no cookie', async (_label, headersOf) => {
    await setConfig({ disableSignup: true });
    const email = uniqueEmail('byadmin');
    const res = await register(
      { email, password: 'secret-123', name: 'Made By Admin' },
      { headers: await headersOf() },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      user: expect.objectContaining({ email, emailVerified: false, profile: { name: 'Made By Admin' } }),
      accessToken: null,
      csrfToken: null,
      refreshToken: null,
      requireEmailVerification: false,
    });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await usersMatching(email)).pagination.total).toBe(1);

    // The new user can sign in (sign-in is not sign-up).
    const signedIn = await signIn({ email, password: 'secret-123' }, 'mobile');
    expect(signedIn.statusCode).toBe(200);
  });

  it('admin creation on a web client_type still sets no cookie', async () => {
    const email = uniqueEmail('admweb');
    const res = await register({ email, password: 'secret-123' }, { clientType: 'web', headers: apiKey() });
    expect(res.statusCode).toBe(200);
    expect(res.json.accessToken).toBeNull();
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('requireEmailVerification and autoConfirm', () => {
  it('public sign-up returns the user with null credentials; sign-in is then refused with nextActions', async () => {
    await setConfig({ requireEmailVerification: true });
    const email = uniqueEmail('verify');
    const res = await register({ email, password: 'secret-123' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      user: expect.objectContaining({ email, emailVerified: false }),
      accessToken: null,
      csrfToken: null,
      refreshToken: null,
      requireEmailVerification: true,
    });
    expect(res.headers['set-cookie']).toBeUndefined();

    for (const clientType of ['web', 'mobile']) {
      const denied = await signIn({ email, password: 'secret-123' }, clientType);
      expect(denied.statusCode).toBe(403);
      expect(denied.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403, nextActions: expect.any(String) });
      expect(denied.json.nextActions.length).toBeGreaterThan(0);
      expect(denied.headers['set-cookie']).toBeUndefined();
    }
    // A wrong password does not reveal that the account exists but is unverified.
    const wrong = await signIn({ email, password: 'wrong-password' }, 'mobile');
    expect(wrong.statusCode).toBe(401);
  });

  it('autoConfirm from a public caller is ignored', async () => {
    await setConfig({ requireEmailVerification: true });
    const email = uniqueEmail('selfconfirm');
    const res = await register({ email, password: 'secret-123', autoConfirm: true }, { clientType: 'mobile' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({ accessToken: null, refreshToken: null, requireEmailVerification: true });
    expect(res.json.user.emailVerified).toBe(false);
    expect((await signIn({ email, password: 'secret-123' }, 'mobile')).statusCode).toBe(403);
  });

  it('autoConfirm from the admin creates a verified user who can sign in at once', async () => {
    await setConfig({ requireEmailVerification: true });
    const email = uniqueEmail('confirmed');
    const res = await register({ email, password: 'secret-123', autoConfirm: true }, { headers: apiKey() });
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({ accessToken: null, requireEmailVerification: false });
    expect(res.json.user.emailVerified).toBe(true);
    const signedIn = await signIn({ email, password: 'secret-123' }, 'mobile');
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json.user.emailVerified).toBe(true);
  });

  it('an admin-created user without autoConfirm still needs verification', async () => {
    await setConfig({ requireEmailVerification: true });
    const email = uniqueEmail('unconfirmed');
    const res = await register({ email, password: 'secret-123' }, { headers: apiKey() });
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({
      accessToken: null,
      requireEmailVerification: true,
      user: { emailVerified: false },
    });
    expect((await signIn({ email, password: 'secret-123' }, 'mobile')).statusCode).toBe(403);
  });

  it('autoConfirm without requireEmailVerification: admin-created user is verified', async () => {
    const email = uniqueEmail('autoc');
    const res = await register({ email, password: 'secret-123', autoConfirm: true }, { headers: apiKey() });
    expect(res.statusCode).toBe(200);
    expect(res.json.user.emailVerified).toBe(true);
    const pub = await register(
      { email: uniqueEmail('autoc-pub'), password: 'secret-123', autoConfirm: true },
      { clientType: 'mobile' },
    );
    expect(pub.statusCode).toBe(200);
    expect(pub.json.user.emailVerified).toBe(false);
  });
});

describe('POST /api/auth/sessions (password sign-in)', () => {
  let account: { email: string; password: string; user: any };
  beforeAll(async () => {
    account = await t.signUp(undefined, 'the-right-password-1');
  });

  it.each([
    ['method omitted', {}],
    ['method null', { method: null }],
    ['method "password"', { method: 'password' }],
  ])('%s signs in with a password', async (_label, extra) => {
    const res = await signIn({ ...extra, email: account.email, password: account.password }, 'mobile');
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      user: expect.objectContaining({ id: account.user.id, email: account.email, providers: ['email'] }),
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    // The session response of sign-in has no requireEmailVerification.
    expect(res.json).not.toHaveProperty('requireEmailVerification');
  });

  it('web sign-in sets the refresh cookie and returns a CSRF token, not the refresh token', async () => {
    const res = await signIn({ email: account.email, password: account.password });
    expect(res.statusCode).toBe(200);
    expect(res.json.csrfToken).toEqual(expect.any(String));
    expect(res.json).not.toHaveProperty('refreshToken');
    expect(cookieFrom(res, 'svc_refresh_token')).toMatchObject({ httpOnly: true, path: '/api/auth' });
  });

  it('each sign-in opens its own session', async () => {
    const a = await signIn({ email: account.email, password: account.password }, 'mobile');
    const b = await signIn({ email: account.email, password: account.password }, 'mobile');
    expect(a.json.refreshToken).not.toBe(b.json.refreshToken);
    const logout = await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      payload: { refreshToken: a.json.refreshToken },
    });
    expect(logout.statusCode).toBe(200);
    expect((await currentSession(bearer(a.json.accessToken))).statusCode).toBe(401);
    expect((await currentSession(bearer(b.json.accessToken))).statusCode).toBe(200);
  });

  it('unknown email and wrong password give the identical 401 body', async () => {
    const unknown = await signIn({ email: uniqueEmail('nobody'), password: account.password }, 'mobile');
    const wrong = await signIn({ email: account.email, password: 'not-the-password' }, 'mobile');
    const wrongCase = await signIn({ email: account.email, password: account.password.toUpperCase() }, 'mobile');
    for (const res of [unknown, wrong, wrongCase]) {
      expect(res.statusCode).toBe(401);
      expect(res.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401, message: expect.any(String) });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(wrong.json).toEqual(unknown.json);
    expect(wrongCase.json).toEqual(unknown.json);
  });

  it('an unknown method is a validation error, not a sign-in attempt', async () => {
    const res = await signIn({ method: 'magic', email: account.email, password: account.password }, 'mobile');
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(res.json.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'method' })]));
  });
});

describe('GET /api/auth/sessions/current', () => {
  it('a user access token: the user with role "authenticated"', async () => {
    const s = await t.signUp();
    const res = await currentSession(bearer(s.accessToken));
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      user: {
        id: s.user.id,
        email: s.email,
        emailVerified: false,
        providers: ['email'],
        profile: {},
        metadata: {},
        createdAt: isoDate,
        updatedAt: isoDate,
        isAnonymous: false,
        role: 'authenticated',
      },
    });
  });

  it('an admin access token: {projectAdmin: {subject, username}}', async () => {
    const res = await currentSession(bearer(await t.adminToken()));
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ projectAdmin: { subject: 'local:admin@test.local', username: 'admin@test.local' } });
  });

  it("an expired access token: 401, and the session is not refreshed behind the client's back", async () => {
    const s = await t.signUp();
    const webLogin = await signIn({ email: s.email, password: s.password });
    const { cookie, csrf } = webCredentialsOf(webLogin);
    t.clock.advance(16 * 60 * 1000);
    for (const token of [s.accessToken, webLogin.json.accessToken]) {
      const res = await t.request({
        method: 'GET',
        url: '/api/auth/sessions/current',
        headers: { ...bearer(token), 'x-csrf-token': csrf },
        cookies: { svc_refresh_token: cookie },
      });
      expect(res.statusCode).toBe(401);
      // AUTH_UNAUTHORIZED: the code the official client refreshes on (api-contract item 14).
      expect(res.json).toMatchObject({ error: 'AUTH_UNAUTHORIZED', statusCode: 401 });
      expect(res.json).not.toHaveProperty('accessToken');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // The refresh tokens were not spent: the client can still refresh explicitly.
    const refreshed = await refreshMobile(t, s.refreshToken);
    expect(refreshed.statusCode).toBe(200);
    expect((await currentSession(bearer(refreshed.json.accessToken))).statusCode).toBe(200);
    const webRefreshed = await webRefresh(t, { cookie, csrf });
    expect(webRefreshed.statusCode).toBe(200);
  });

  it('a token is still good one second before its 15 minutes are up', async () => {
    const s = await t.signUp();
    t.clock.advance(15 * 60 * 1000 - 1000);
    expect((await currentSession(bearer(s.accessToken))).statusCode).toBe(200);
    t.clock.advance(1000);
    expect((await currentSession(bearer(s.accessToken))).statusCode).toBe(401);
  });

  it.each([
    ['no credential', () => ({})],
    ['the API key (Bearer)', () => bearer(t.apiKey)],
    ['the API key (x-api-key)', () => ({ 'x-api-key': t.apiKey })],
    ['the anon key', () => bearer(t.anonKey)],
    ['a garbage token', () => bearer('not.a.jwt')],
    ['a non-Bearer scheme', () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
  ])('%s: 401 UNAUTHORIZED', async (_label, headersOf) => {
    const res = await currentSession(headersOf());
    expect(res.statusCode).toBe(401);
    expect(res.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401, message: expect.any(String) });
  });

  it('a token whose payload was altered: 401', async () => {
    const s = await t.signUp();
    const [h, p, sig] = s.accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, role: 'project_admin' })).toString('base64url');
    const res = await currentSession(bearer(`${h}.${forged}.${sig}`));
    expect(res.statusCode).toBe(401);
  });
});

describe('profiles', () => {
  it('PATCH /api/auth/profiles/current merges shallowly: new keys added, given keys replaced, others kept', async () => {
    const email = uniqueEmail('prof');
    const reg = await register({ email, password: 'secret-123', name: 'Original' }, { clientType: 'mobile' });
    const token = reg.json.accessToken as string;
    const patch = (profile: unknown) =>
      t.request({ method: 'PATCH', url: '/api/auth/profiles/current', headers: bearer(token), payload: { profile } });

    const first = await patch({ avatar_url: 'https://example.com/a.png', settings: { theme: 'dark', lang: 'en' } });
    expect(first.statusCode).toBe(200);
    expect(first.json).toEqual({
      id: reg.json.user.id,
      profile: { name: 'Original', avatar_url: 'https://example.com/a.png', settings: { theme: 'dark', lang: 'en' } },
    });

    // Shallow: a nested object is replaced whole, not merged.
    const second = await patch({ settings: { theme: 'light' }, name: 'Renamed' });
    expect(second.statusCode).toBe(200);
    expect(second.json.profile).toEqual({
      name: 'Renamed',
      avatar_url: 'https://example.com/a.png',
      settings: { theme: 'light' },
    });

    // An empty patch changes nothing.
    const third = await patch({});
    expect(third.json.profile).toEqual(second.json.profile);

    const pub = await t.request({ method: 'GET', url: `/api/auth/profiles/${reg.json.user.id}` });
    expect(pub.json).toEqual(second.json);
  });

  it('unicode values and keys survive the round trip', async () => {
    const s = await t.signUp();
    const profile = {
      name: '🦄 Zoë Ångström-Nguyễn',
      bio: 'مرحبا بالعالم — こんにちは世界 — Привет',
      'clé-ünïcode': 'e\u0301 (combining) ✓',
      flags: ['🇫🇷', '👩‍👩‍👧‍👦'],
    };
    const res = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: bearer(s.accessToken),
      payload: { profile },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.profile).toEqual(profile);
    const pub = await t.request({ method: 'GET', url: `/api/auth/profiles/${s.user.id}` });
    expect(pub.statusCode).toBe(200);
    expect(pub.json).toEqual({ id: s.user.id, profile });
    const me = await currentSession(bearer(s.accessToken));
    expect(me.json.user.profile).toEqual(profile);
  });

  it.each([
    ['no credential', () => ({}), 401, 'UNAUTHORIZED'],
    ['the API key', () => bearer(t.apiKey), 401, 'UNAUTHORIZED'],
    ['the anon key', () => bearer(t.anonKey), 401, 'UNAUTHORIZED'],
  ])('PATCH with %s → 401', async (_label, headersOf, status, code) => {
    const res = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: headersOf(),
      payload: { profile: { name: 'x' } },
    });
    expect(res.statusCode).toBe(status);
    expect(res.json.error).toBe(code);
  });

  it('PATCH by a deleted user: the token is refused (its sessions ended with the user), no profile is written anywhere', async () => {
    const s = await t.signUp();
    const del = await t.request({
      method: 'DELETE',
      url: '/api/auth/users',
      headers: apiKey(),
      payload: { userIds: [s.user.id] },
    });
    expect(del.json.deletedCount).toBe(1);
    const res = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: bearer(s.accessToken),
      payload: { profile: { name: 'ghost' } },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json.error).toBe('AUTH_UNAUTHORIZED');
    expect((await t.request({ method: 'GET', url: `/api/auth/profiles/${s.user.id}` })).statusCode).toBe(404);
  });

  it.each([
    ['a user id that is not a uuid', '/api/auth/profiles/not-a-uuid', 400, 'VALIDATION_ERROR'],
    ['a numeric id', '/api/auth/profiles/12345', 400, 'VALIDATION_ERROR'],
    ['an unknown uuid', '/api/auth/profiles/00000000-0000-4000-8000-000000000000', 404, 'AUTH_USER_NOT_FOUND'],
  ])('GET with %s (%s) → %s %s', async (_label, url, status, code) => {
    const res = await t.request({ method: 'GET', url });
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ error: code, statusCode: status });
    if (status === 400) {
      expect(res.json.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: expect.stringMatching(/userId$/) })]),
      );
    }
  });

  it('GET /api/auth/profiles/{userId} is public and shows only id and profile', async () => {
    const s = await t.signUp();
    const res = await t.request({ method: 'GET', url: `/api/auth/profiles/${s.user.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ id: s.user.id, profile: {} });
    // A bad credential on a public route is ignored, not an error.
    const withJunk = await t.request({
      method: 'GET',
      url: `/api/auth/profiles/${s.user.id}`,
      headers: bearer('junk'),
    });
    expect(withJunk.statusCode).toBe(200);
  });
});
