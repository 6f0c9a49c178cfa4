// The admin's side of authentication: configuration, user management, platform keys, admin
// sessions (sign-in, refresh, logout) and the JWKS that verifies every access token.
import { createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  cookieFrom,
  DEFAULT_AUTH_CONFIG,
  startTestApp,
  TEST_ADMIN,
  type TestApp,
} from '../../harness/test-app.js';
import {
  currentSession,
  passwordSignIn,
  refreshMobile,
  webCredentialsOf,
  webLogout,
  webRefresh,
} from '../../harness/sessions.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const apiKey = () => bearer(t.apiKey);
const tag = () => `t${randomBytes(5).toString('hex')}`;
const ADMIN_SUBJECT = { subject: 'local:admin@test.local', username: 'admin@test.local' };

const getConfig = (headers: Record<string, string> = apiKey()) =>
  t.request({ method: 'GET', url: '/api/auth/config', headers });
const putConfig = (payload: unknown, headers: Record<string, string> = apiKey()) =>
  t.request({ method: 'PUT', url: '/api/auth/config', headers, payload: payload as Record<string, unknown> });

const listUsers = (query: string, headers: Record<string, string> = apiKey()) =>
  t.request({ method: 'GET', url: `/api/auth/users${query}`, headers });

function decodeJwt(token: string) {
  const [h, p, s] = token.split('.') as [string, string, string];
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')),
    claims: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')),
    signingInput: Buffer.from(`${h}.${p}`),
    signature: Buffer.from(s, 'base64url'),
  };
}

describe('GET/PUT /api/auth/config', () => {
  afterEach(async () => {
    expect((await putConfig(DEFAULT_AUTH_CONFIG)).statusCode).toBe(200);
  });

  it('starts with the documented defaults', async () => {
    const res = await getConfig();
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ...DEFAULT_AUTH_CONFIG,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('PUT is a partial update: only the given fields change, and the full config comes back', async () => {
    const before = (await getConfig()).json;
    t.clock.advance(60_000);
    const res = await putConfig({ passwordMinLength: 10, requireUppercase: true });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      ...before,
      passwordMinLength: 10,
      requireUppercase: true,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(res.json.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));

    const second = await putConfig({
      verifyEmailMethod: 'link',
      allowedRedirectUrls: ['https://app.example.com/callback'],
    });
    expect(second.json).toMatchObject({
      passwordMinLength: 10,
      requireUppercase: true,
      verifyEmailMethod: 'link',
      allowedRedirectUrls: ['https://app.example.com/callback'],
    });
    // What PUT returned is what GET now reads.
    expect((await getConfig()).json).toEqual(second.json);
  });

  it('an empty PUT changes nothing', async () => {
    const before = (await getConfig()).json;
    const res = await putConfig({});
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual(before);
  });

  it('works with an admin access token too', async () => {
    const token = await t.adminToken();
    expect((await getConfig(bearer(token))).statusCode).toBe(200);
    const res = await putConfig({ requireNumber: true }, bearer(token));
    expect(res.statusCode).toBe(200);
    expect(res.json.requireNumber).toBe(true);
  });

  it.each([
    [{ passwordMinLength: 4 }, 200],
    [{ passwordMinLength: 128 }, 200],
    [{ passwordMinLength: 3 }, 400],
    [{ passwordMinLength: 129 }, 400],
    [{ passwordMinLength: 0 }, 400],
    [{ passwordMinLength: -6 }, 400],
    [{ passwordMinLength: 8.5 }, 400],
    [{ passwordMinLength: '8' }, 400],
    [{ passwordMinLength: null }, 400],
    [{ requireNumber: 'yes' }, 400],
    [{ requireNumber: 1 }, 400],
    [{ verifyEmailMethod: 'sms' }, 400],
    [{ resetPasswordMethod: 'LINK' }, 400],
    [{ allowedRedirectUrls: 'https://app.example.com' }, 400],
    [{ allowedRedirectUrls: [''] }, 400],
    [{ disableSignup: 'true' }, 400],
    [{ id: '00000000-0000-4000-8000-000000000000' }, 400],
    [{ createdAt: '2020-01-01T00:00:00.000Z' }, 400],
    [{ unknownSetting: true }, 400],
    [{ passwordMinLength: 8, unknownSetting: true }, 400],
  ])('PUT %j → %i', async (body, status) => {
    const before = (await getConfig()).json;
    const res = await putConfig(body);
    expect(res.statusCode).toBe(status);
    if (status === 200) {
      expect(res.json).toMatchObject(body);
      return;
    }
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    // Details name the offending field, and nothing of the request was applied.
    const field = Object.keys(body).find((k) => k !== 'passwordMinLength' || Object.keys(body).length === 1)!;
    expect(res.json.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: expect.stringMatching(new RegExp(`^${field}(\\.|$)`)) }),
      ]),
    );
    expect((await getConfig()).json).toEqual(before);
  });

  it.each([
    ['no credential', () => ({}), 401, 'UNAUTHORIZED'],
    ['the anon key', () => bearer(t.anonKey), 403, 'INSUFFICIENT_PERMISSIONS'],
  ])('GET with %s is refused', async (_label, headersOf, status, code) => {
    const res = await getConfig(headersOf());
    expect(res.statusCode).toBe(status);
    expect(res.json.error).toBe(code);
  });

  it('a user access token cannot read or change the config', async () => {
    const s = await t.signUp();
    const read = await getConfig(bearer(s.accessToken));
    expect(read.statusCode).toBe(403);
    expect(read.json.error).toBe('INSUFFICIENT_PERMISSIONS');
    const write = await putConfig({ disableSignup: true }, bearer(s.accessToken));
    expect(write.statusCode).toBe(403);
    expect((await getConfig()).json.disableSignup).toBe(false);
  });
});

describe('GET /api/auth/public-config', () => {
  afterEach(async () => {
    expect((await putConfig(DEFAULT_AUTH_CONFIG)).statusCode).toBe(200);
  });

  it('is public and shows the settings clients need, never the redirect allowlist', async () => {
    await putConfig({
      allowedRedirectUrls: ['https://secret.example.com/cb'],
      passwordMinLength: 9,
      requireSpecialChar: true,
    });
    const res = await t.request({ method: 'GET', url: '/api/auth/public-config' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      requireEmailVerification: false,
      passwordMinLength: 9,
      requireNumber: false,
      requireLowercase: false,
      requireUppercase: false,
      requireSpecialChar: true,
      verifyEmailMethod: 'code',
      resetPasswordMethod: 'code',
      disableSignup: false,
      oAuthProviders: [],
      customOAuthProviders: [],
    });
    expect(res.body).not.toContain('secret.example.com');
    expect(res.json).not.toHaveProperty('id');
  });
});

describe('GET /api/auth/users', () => {
  /** Registers users one after another (so creation order is defined) and returns them oldest first. */
  async function createUsers(prefix: string, names: (string | undefined)[]) {
    const created: { id: string; email: string }[] = [];
    for (const [i, name] of names.entries()) {
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/users?client_type=mobile',
        payload: { email: `${prefix}${i}@example.com`, password: 'secret-123', ...(name ? { name } : {}) },
      });
      expect(res.statusCode).toBe(200);
      created.push({ id: res.json.user.id, email: res.json.user.email });
    }
    return created;
  }

  it('pages newest first with {offset, limit, total}', async () => {
    const p = tag();
    const users = await createUsers(p, [undefined, undefined, undefined, undefined, undefined]);
    const newestFirst = users.map((u) => u.id).reverse();
    const page = async (q: string) => {
      const res = await listUsers(`?search=${p}${q}`);
      expect(res.statusCode).toBe(200);
      return res.json;
    };
    const cases: [string, string[], { offset: number; limit: number }][] = [
      ['', newestFirst, { offset: 0, limit: 10 }],
      ['&limit=2', newestFirst.slice(0, 2), { offset: 0, limit: 2 }],
      ['&limit=2&offset=2', newestFirst.slice(2, 4), { offset: 2, limit: 2 }],
      ['&limit=2&offset=4', newestFirst.slice(4), { offset: 4, limit: 2 }],
      ['&offset=5', [], { offset: 5, limit: 10 }],
      ['&offset=1000', [], { offset: 1000, limit: 10 }],
    ];
    for (const [q, ids, pagination] of cases) {
      const body = await page(q);
      expect(
        body.data.map((u: any) => u.id),
        q,
      ).toEqual(ids);
      expect(body.pagination, q).toEqual({ ...pagination, total: 5 });
    }
  });

  it('returns users in the API shape, without secrets', async () => {
    const p = tag();
    const [user] = await createUsers(p, ['Shape Check']);
    const res = await listUsers(`?search=${p}`);
    expect(res.json.data).toEqual([
      {
        id: user!.id,
        email: user!.email,
        emailVerified: false,
        providers: ['email'],
        profile: { name: 'Shape Check' },
        metadata: {},
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    expect(res.body).not.toMatch(/password/i);
  });

  it('searches email and profile name, case-insensitively, and trims the search', async () => {
    const p = tag();
    const [byEmail, byName] = await createUsers(p, [undefined, undefined]);
    const n = tag();
    await t
      .request({
        method: 'POST',
        url: '/api/auth/users?client_type=mobile',
        payload: { email: `${tag()}@example.com`, password: 'secret-123', name: `Zebra ${n} Crossing` },
      })
      .then(async (res) => {
        expect(res.statusCode).toBe(200);
        const cases: [string, string[]][] = [
          [p.toUpperCase(), [byName!.id, byEmail!.id]],
          [`${p}1@EXAMPLE.COM`, [byName!.id]],
          [`zebra ${n.toUpperCase()}`, [res.json.user.id]],
          [`  ${n}  `, [res.json.user.id]],
          [`${n}-nothing-matches`, []],
        ];
        for (const [search, ids] of cases) {
          const list = await listUsers(`?search=${encodeURIComponent(search)}`);
          expect(list.statusCode).toBe(200);
          expect(
            list.json.data.map((u: any) => u.id),
            search,
          ).toEqual(ids);
          expect(list.json.pagination.total, search).toBe(ids.length);
        }
      });
  });

  it('treats % and _ (and \\) in the search as literal characters', async () => {
    const p = tag();
    const underscore = await createUsers(`${p}_x`, [undefined]);
    await createUsers(`${p}yx`, [undefined]);
    const n = tag();
    const percent = await createUsers(tag(), [`${n} 50% off`]);
    await createUsers(tag(), [`${n} 50 off`]);
    const backslash = await createUsers(tag(), [`${n} back\\slash`]);
    const cases: [string, string[]][] = [
      [`${p}_`, [underscore[0]!.id]],
      [`${n} 50%`, [percent[0]!.id]],
      [`${n} 50% off`, [percent[0]!.id]],
      [`${n}%off`, []],
      [`${n} back\\`, [backslash[0]!.id]],
      ['%%%%', []],
    ];
    for (const [search, ids] of cases) {
      const list = await listUsers(`?search=${encodeURIComponent(search)}`);
      expect(list.statusCode, search).toBe(200);
      expect(
        list.json.data.map((u: any) => u.id),
        search,
      ).toEqual(ids);
    }
    // An underscore alone matches only addresses that contain one.
    const all = await listUsers(`?search=_&limit=100`);
    for (const u of all.json.data) expect(`${u.email} ${u.profile.name ?? ''}`).toContain('_');
  });

  it.each([
    ['?limit=100', 200],
    ['?limit=1', 200],
    ['?limit=101', 400],
    ['?limit=1000000', 400],
    ['?limit=0', 400],
    ['?limit=-1', 400],
    ['?limit=abc', 400],
    ['?limit=2.5', 400],
    ['?offset=-1', 400],
    ['?offset=abc', 400],
    [`?search=${'s'.repeat(201)}`, 400],
  ])('GET /api/auth/users%s → %i', async (query, status) => {
    const res = await listUsers(query);
    expect(res.statusCode).toBe(status);
    if (status === 400) {
      const field = query.slice(1).split('=')[0]!;
      expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
      expect(res.json.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: expect.stringContaining(field) })]),
      );
    } else {
      expect(res.json.pagination.limit).toBe(Number(new URLSearchParams(query).get('limit')));
      expect(res.json.data.length).toBeLessThanOrEqual(res.json.pagination.limit);
    }
  });

  it('needs an admin: user token → 403, nothing → 401', async () => {
    const s = await t.signUp();
    const asUser = await listUsers('', bearer(s.accessToken));
    expect(asUser.statusCode).toBe(403);
    expect(asUser.json.error).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await listUsers('', {})).statusCode).toBe(401);
    expect((await listUsers('', bearer(await t.adminToken()))).statusCode).toBe(200);
  });
});

describe('GET /api/auth/users/{userId}', () => {
  it.each([
    ['a known user', 'known', 200, undefined],
    ['an unknown uuid', '00000000-0000-4000-8000-000000000000', 404, 'AUTH_USER_NOT_FOUND'],
    ['a malformed id', 'not-a-uuid', 400, 'VALIDATION_ERROR'],
  ])('%s → %s', async (_label, id, status, code) => {
    const s = await t.signUp();
    const userId = id === 'known' ? s.user.id : id;
    const res = await t.request({ method: 'GET', url: `/api/auth/users/${userId}`, headers: apiKey() });
    expect(res.statusCode).toBe(status);
    if (code) expect(res.json).toMatchObject({ error: code, statusCode: status });
    else expect(res.json).toMatchObject({ id: s.user.id, email: s.email, providers: ['email'] });
  });
});

describe('DELETE /api/auth/users', () => {
  const del = (payload: unknown, headers: Record<string, string> = apiKey()) =>
    t.request({ method: 'DELETE', url: '/api/auth/users', headers, payload: payload as Record<string, unknown> });

  it('deletes the given users, counts only those that existed, and ends their sessions', async () => {
    const doomed = await t.signUp();
    const doomedWeb = await passwordSignIn(t, doomed);
    const alsoDoomed = await t.signUp();
    const survivor = await t.signUp();

    const res = await del({
      userIds: [doomed.user.id, alsoDoomed.user.id, '00000000-0000-4000-8000-000000000000', doomed.user.id],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ message: 'Users deleted successfully', deletedCount: 2 });

    for (const gone of [doomed, alsoDoomed]) {
      const fetched = await t.request({ method: 'GET', url: `/api/auth/users/${gone.user.id}`, headers: apiKey() });
      expect(fetched.statusCode).toBe(404);
      expect(fetched.json.error).toBe('AUTH_USER_NOT_FOUND');
      // Neither the access token nor the refresh token works any more.
      expect((await currentSession(t, gone.accessToken)).statusCode).toBe(401);
      const refreshed = await refreshMobile(t, gone.refreshToken);
      expect(refreshed.statusCode).toBe(401);
      expect(refreshed.json.error).toBe('UNAUTHORIZED');
      const signIn = await passwordSignIn(t, gone, 'mobile');
      expect(signIn.statusCode).toBe(401);
    }
    const refreshedWeb = await webRefresh(t, webCredentialsOf(doomedWeb));
    expect(refreshedWeb.statusCode).toBe(401);
    expect(cookieFrom(refreshedWeb, 'svc_refresh_token')?.value).toBe('');

    // Others are untouched.
    expect((await currentSession(t, survivor.accessToken)).statusCode).toBe(200);
    expect((await refreshMobile(t, survivor.refreshToken)).statusCode).toBe(200);

    // The email is free again.
    const again = await t.request({
      method: 'POST',
      url: '/api/auth/users?client_type=mobile',
      payload: { email: doomed.email, password: 'new-password-1' },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json.user.id).not.toBe(doomed.user.id);
  });

  it('deleting only unknown ids answers deletedCount 0', async () => {
    const res = await del({ userIds: ['00000000-0000-4000-8000-000000000001'] });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ message: 'Users deleted successfully', deletedCount: 0 });
  });

  it.each([
    ['an empty list', { userIds: [] }],
    ['a non-uuid id', { userIds: ['not-a-uuid'] }],
    ['a string instead of a list', { userIds: '00000000-0000-4000-8000-000000000001' }],
    ['no userIds', {}],
  ])('%s → 400 VALIDATION_ERROR naming userIds', async (_label, body) => {
    const res = await del(body);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(res.json.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: expect.stringMatching(/^userIds/) })]),
    );
  });

  it('a mixed batch with one bad id deletes nothing', async () => {
    const s = await t.signUp();
    const res = await del({ userIds: [s.user.id, 'nope'] });
    expect(res.statusCode).toBe(400);
    expect((await currentSession(t, s.accessToken)).statusCode).toBe(200);
  });

  it('a user cannot delete users (not even themselves)', async () => {
    const s = await t.signUp();
    const res = await del({ userIds: [s.user.id] }, bearer(s.accessToken));
    expect(res.statusCode).toBe(403);
    expect(res.json.error).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await currentSession(t, s.accessToken)).statusCode).toBe(200);
  });
});

describe('platform keys', () => {
  it('GET /api/metadata/api-key: the admin reads the API key, which then works as a credential', async () => {
    for (const headers of [bearer(await t.adminToken()), apiKey(), { 'x-api-key': t.apiKey }]) {
      const res = await t.request({ method: 'GET', url: '/api/metadata/api-key', headers });
      expect(res.statusCode).toBe(200);
      expect(res.json).toEqual({ apiKey: expect.stringMatching(/^ik_[0-9a-f]{64}$/) });
    }
    const { json } = await t.request({
      method: 'GET',
      url: '/api/metadata/api-key',
      headers: bearer(await t.adminToken()),
    });
    expect((await getConfig(bearer(json.apiKey))).statusCode).toBe(200);
  });

  it('GET /api/metadata/api-key: a user gets 403 INSUFFICIENT_PERMISSIONS, no credential 401', async () => {
    const s = await t.signUp();
    const asUser = await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: bearer(s.accessToken) });
    expect(asUser.statusCode).toBe(403);
    expect(asUser.json).toMatchObject({ error: 'INSUFFICIENT_PERMISSIONS', statusCode: 403 });
    expect(asUser.body).not.toMatch(/ik_[0-9a-f]{64}/);
    const none = await t.request({ method: 'GET', url: '/api/metadata/api-key' });
    expect(none.statusCode).toBe(401);
    expect(none.json.error).toBe('UNAUTHORIZED');
    const wrongKey = await t.request({
      method: 'GET',
      url: '/api/metadata/api-key',
      headers: { 'x-api-key': `ik_${'1'.repeat(64)}` },
    });
    expect(wrongKey.statusCode).toBe(401);
  });

  it('GET /api/metadata/anon-key and POST /api/auth/tokens/anon return the same anon key', async () => {
    const meta = await t.request({ method: 'GET', url: '/api/metadata/anon-key', headers: apiKey() });
    expect(meta.statusCode).toBe(200);
    expect(meta.json).toEqual({ anonKey: expect.stringMatching(/^anon_[0-9a-f]{64}$/) });

    const legacy = await t.request({
      method: 'POST',
      url: '/api/auth/tokens/anon',
      headers: bearer(await t.adminToken()),
    });
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json).toEqual({ accessToken: meta.json.anonKey, message: expect.stringContaining('deprecated') });
    expect(meta.json.anonKey).toBe(t.anonKey);
  });

  it('the anon key endpoints are admin-only', async () => {
    const s = await t.signUp();
    for (const [method, url] of [
      ['GET', '/api/metadata/anon-key'],
      ['POST', '/api/auth/tokens/anon'],
    ] as const) {
      expect((await t.request({ method, url })).statusCode).toBe(401);
      const asUser = await t.request({ method, url, headers: bearer(s.accessToken) });
      expect(asUser.statusCode).toBe(403);
      expect(asUser.json.error).toBe('INSUFFICIENT_PERMISSIONS');
    }
  });
});

describe('admin sessions', () => {
  const adminSignIn = (payload: unknown, clientType?: string) =>
    t.request({
      method: 'POST',
      url: `/api/auth/admin/sessions${clientType ? `?client_type=${clientType}` : ''}`,
      payload: payload as Record<string, unknown>,
    });
  const adminRefresh = (cookie: string | undefined, csrf: string | undefined) =>
    webRefresh(t, { cookie, csrf }, 'admin');
  const adminCurrent = (token: string) =>
    t.request({ method: 'GET', url: '/api/auth/admin/sessions/current', headers: bearer(token) });

  async function webAdmin() {
    const res = await adminSignIn({ email: TEST_ADMIN.email, password: TEST_ADMIN.password });
    expect(res.statusCode).toBe(200);
    return { res, ...webCredentialsOf(res, 'admin') };
  }

  it.each([
    ['email', { email: TEST_ADMIN.email, password: TEST_ADMIN.password }],
    ['username', { username: TEST_ADMIN.email, password: TEST_ADMIN.password }],
    ['email in another case', { email: TEST_ADMIN.email.toUpperCase(), password: TEST_ADMIN.password }],
    [
      'username with spaces and capitals',
      { username: `  ${TEST_ADMIN.email.toUpperCase()} `, password: TEST_ADMIN.password },
    ],
  ])('web sign-in with %s: projectAdmin, access token, CSRF token and the admin cookie', async (_label, body) => {
    const res = await adminSignIn(body);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      projectAdmin: ADMIN_SUBJECT,
      accessToken: expect.any(String),
      csrfToken: expect.any(String),
    });
    const cookie = cookieFrom(res, 'svc_admin_refresh_token');
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api/auth/admin' });
    expect(cookie!.value.length).toBeGreaterThan(20);
    // The admin's cookie is not the user's.
    expect(cookieFrom(res, 'svc_refresh_token')).toBeUndefined();

    const current = await adminCurrent(res.json.accessToken);
    expect(current.statusCode).toBe(200);
    expect(current.json).toEqual({ projectAdmin: ADMIN_SUBJECT });
  });

  it('non-web sign-in: refresh token in the body, no cookie', async () => {
    const res = await adminSignIn({ email: TEST_ADMIN.email, password: TEST_ADMIN.password }, 'server');
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({
      projectAdmin: ADMIN_SUBJECT,
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    expect(res.json).not.toHaveProperty('csrfToken');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it("wrong password, unknown admin, and a user's own credentials all get the same 401", async () => {
    const user = await t.signUp();
    const answers = [
      await adminSignIn({ email: TEST_ADMIN.email, password: 'wrong-password' }),
      await adminSignIn({ username: TEST_ADMIN.email, password: `${TEST_ADMIN.password} ` }),
      await adminSignIn({ email: 'someone-else@test.local', password: TEST_ADMIN.password }),
      await adminSignIn({ email: user.email, password: user.password }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(401);
      expect(res.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401 });
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.json).toEqual(answers[0]!.json);
    }
  });

  it.each([
    ['no password', { email: TEST_ADMIN.email }, 'password'],
    ['neither email nor username', { password: TEST_ADMIN.password }, 'email'],
    ['a numeric username', { username: 42, password: TEST_ADMIN.password }, 'username'],
  ])('%s → 400 VALIDATION_ERROR', async (_label, body, field) => {
    const res = await adminSignIn(body);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(res.json.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('GET /api/auth/admin/sessions/current: a user token gets 403, the API key 401', async () => {
    const s = await t.signUp();
    const asUser = await adminCurrent(s.accessToken);
    expect(asUser.statusCode).toBe(403);
    expect(asUser.json.error).toBe('INSUFFICIENT_PERMISSIONS');
    const withKey = await t.request({ method: 'GET', url: '/api/auth/admin/sessions/current', headers: apiKey() });
    expect(withKey.statusCode).toBe(401);
  });

  it('admin refresh with the cookie and X-CSRF-Token rotates both; the old pair then fails', async () => {
    const { cookie, csrf } = await webAdmin();
    const res = await adminRefresh(cookie, csrf);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      projectAdmin: ADMIN_SUBJECT,
      accessToken: expect.any(String),
      csrfToken: expect.any(String),
    });
    const next = cookieFrom(res, 'svc_admin_refresh_token');
    expect(next).toMatchObject({ httpOnly: true, path: '/api/auth/admin' });
    expect(next!.value).not.toBe(cookie);
    expect(res.json.csrfToken).not.toBe(csrf);
    expect((await adminCurrent(res.json.accessToken)).statusCode).toBe(200);

    // The new cookie needs the new CSRF token.
    expect((await adminRefresh(next!.value, csrf)).statusCode).toBe(403);
    const again = await adminRefresh(next!.value, res.json.csrfToken);
    expect(again.statusCode).toBe(200);

    // Replaying the first cookie after the grace window is reuse: 401.
    t.clock.advance(11_000);
    const replay = await adminRefresh(cookie, csrf);
    expect(replay.statusCode).toBe(401);
    expect(cookieFrom(replay, 'svc_admin_refresh_token')?.value).toBe('');
  });

  it.each([
    ['no cookie', false, true, 401],
    ['no CSRF token', true, false, 403],
  ])('admin refresh with %s → %s', async (_label, sendCookie, sendCsrf, status) => {
    const { cookie, csrf } = await webAdmin();
    const res = await adminRefresh(sendCookie ? cookie : undefined, sendCsrf ? csrf : undefined);
    expect(res.statusCode).toBe(status);
    expect(res.json.statusCode).toBe(status);
  });

  it("a user's refresh token in the admin cookie is refused, and the user's session is not harmed", async () => {
    const user = await t.signUp();
    const web = await passwordSignIn(t, user);
    const { cookie: userCookie, csrf: userCsrf } = webCredentialsOf(web);

    const res = await adminRefresh(userCookie, userCsrf);
    expect(res.statusCode).toBe(401);
    expect(res.json).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401 });
    expect(res.json).not.toHaveProperty('accessToken');

    // The same token still refreshes the user's session, through the user's endpoint.
    const userRefresh = await webRefresh(t, { cookie: userCookie, csrf: userCsrf });
    expect(userRefresh.statusCode).toBe(200);
    expect(userRefresh.json.user.id).toBe(user.user.id);

    // A non-web user refresh token offered to the admin endpoint: refused, session unharmed.
    const adminBody = await t.request({
      method: 'POST',
      url: '/api/auth/admin/refresh?client_type=server',
      payload: { refreshToken: user.refreshToken },
    });
    expect(adminBody.statusCode).toBe(401);
    expect((await refreshMobile(t, user.refreshToken)).statusCode).toBe(200);
  });

  it("the admin's refresh token in the user cookie is refused, and the admin session is not harmed", async () => {
    const { cookie, csrf } = await webAdmin();
    const res = await webRefresh(t, { cookie, csrf });
    expect(res.statusCode).toBe(401);
    expect(res.json).not.toHaveProperty('accessToken');
    expect((await adminRefresh(cookie, csrf)).statusCode).toBe(200);
  });

  it('admin logout: needs the CSRF token of a live cookie, clears the cookie, and refresh then answers 401', async () => {
    const { cookie, csrf } = await webAdmin();
    const forged = await webLogout(t, { cookie }, 'admin');
    expect(forged.statusCode).toBe(403);
    expect((await adminRefresh(cookie, csrf)).statusCode).toBe(200);
  });

  it('after a reload (no CSRF token in memory) a same-origin browser request refreshes; another site cannot', async () => {
    const { cookie, csrf } = await webAdmin();
    const refreshAs = (fetchSite: string | undefined, csrfToken?: string) =>
      t.request({
        method: 'POST',
        url: '/api/auth/admin/refresh?client_type=web',
        cookies: { svc_admin_refresh_token: cookie! },
        headers: {
          ...(fetchSite === undefined ? {} : { 'sec-fetch-site': fetchSite }),
          ...(csrfToken === undefined ? {} : { 'x-csrf-token': csrfToken }),
        },
        payload: {},
      });
    for (const site of [undefined, 'cross-site', 'same-site', 'none']) {
      const refused = await refreshAs(site);
      expect(refused.statusCode, String(site)).toBe(403);
      expect(refused.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403 });
    }
    // The browser's word is enough: a token another tab's refresh made stale does not matter.
    const resumed = await refreshAs('same-origin', 'stale-token-of-another-tab');
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json).toMatchObject({ projectAdmin: ADMIN_SUBJECT, accessToken: expect.any(String) });
    expect(resumed.json.csrfToken).not.toBe(csrf);
    const rotated = cookieFrom(resumed, 'svc_admin_refresh_token')!.value;
    const logout = (fetchSite: string) =>
      t.request({
        method: 'POST',
        url: '/api/auth/admin/logout',
        cookies: { svc_admin_refresh_token: rotated },
        headers: { 'sec-fetch-site': fetchSite },
        payload: {},
      });
    expect((await logout('cross-site')).statusCode).toBe(403);
    expect((await logout('same-origin')).statusCode).toBe(200);
    expect((await adminRefresh(rotated, resumed.json.csrfToken)).statusCode).toBe(401);
  });

  it('admin logout ends the session', async () => {
    const { cookie, csrf } = await webAdmin();
    const out = await webLogout(t, { cookie, csrf }, 'admin');
    expect(out.statusCode).toBe(200);
    expect(out.json).toEqual({ success: true, message: 'Logged out successfully' });
    const cleared = cookieFrom(out, 'svc_admin_refresh_token');
    expect(cleared).toMatchObject({ value: '', path: '/api/auth/admin' });

    const after = await adminRefresh(cookie, csrf);
    expect(after.statusCode).toBe(401);
    expect(after.json.error).toBe('UNAUTHORIZED');
  });

  it("admin logout leaves other admin sessions and users' sessions alone", async () => {
    const a = await webAdmin();
    const b = await webAdmin();
    const user = await t.signUp();
    const out = await webLogout(t, a, 'admin');
    expect(out.statusCode).toBe(200);
    expect((await adminRefresh(b.cookie, b.csrf)).statusCode).toBe(200);
    expect((await refreshMobile(t, user.refreshToken)).statusCode).toBe(200);
  });
});

describe('/.well-known/jwks.json', () => {
  async function jwks(url = '/.well-known/jwks.json') {
    const res = await t.request({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    return res.json as { keys: (JsonWebKey & { kid: string; alg: string; use: string })[] };
  }

  function verifyWithJwks(token: string, keys: (JsonWebKey & { kid: string })[]) {
    const { header, claims, signingInput, signature } = decodeJwt(token);
    const jwk = keys.find((k) => k.kid === header.kid);
    if (!jwk) return { ok: false, header, claims };
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    // JWS ES256 signatures are r‖s (IEEE P1363).
    return { ok: verify('sha256', signingInput, { key, dsaEncoding: 'ieee-p1363' }, signature), header, claims };
  }

  it('serves only public P-256 keys (ES256), at both paths', async () => {
    const body = await jwks();
    expect(body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of body.keys) {
      expect(key).toMatchObject({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        kid: expect.any(String),
        x: expect.any(String),
        y: expect.any(String),
      });
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(secret);
    }
    expect(await jwks('/api/.well-known/jwks.json')).toEqual(body);
  });

  it("a user's access token verifies against the served key and carries sub, email, role, sid, iat, exp (15 min)", async () => {
    const s = await t.signUp();
    const { keys } = await jwks();
    const checked = verifyWithJwks(s.accessToken, keys);
    expect(checked.ok).toBe(true);
    expect(checked.header).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
    expect(checked.claims).toEqual({
      sub: s.user.id,
      email: s.email,
      role: 'authenticated',
      sid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      exp: expect.any(Number),
      // MFA (issue 34): the session's assurance level and how it was reached.
      aal: 'aal1',
      amr: [{ method: 'password', timestamp: expect.any(Number) }],
    });
    expect(checked.claims.exp - checked.claims.iat).toBe(900);
    expect(checked.claims.iat).toBe(Math.floor(t.clock.now().getTime() / 1000));

    // A refresh keeps the session id and issues a new 15-minute token.
    t.clock.advance(5_000);
    const refreshed = await refreshMobile(t, s.refreshToken);
    const next = verifyWithJwks(refreshed.json.accessToken, keys);
    expect(next.ok).toBe(true);
    expect(next.claims.sid).toBe(checked.claims.sid);
    expect(next.claims.iat).toBe(checked.claims.iat + 5);
    expect(next.claims.exp - next.claims.iat).toBe(900);
  });

  it("the admin's access token verifies too and has role project_admin and no email", async () => {
    const { keys } = await jwks();
    const checked = verifyWithJwks(await t.adminToken(), keys);
    expect(checked.ok).toBe(true);
    expect(checked.claims).toMatchObject({
      sub: ADMIN_SUBJECT.subject,
      role: 'project_admin',
      sid: expect.any(String),
    });
    expect(checked.claims).not.toHaveProperty('email');
    expect(checked.claims.exp - checked.claims.iat).toBe(900);
  });

  it('a token with one altered byte of payload does not verify (the check is real)', async () => {
    const s = await t.signUp();
    const { keys } = await jwks();
    const [h, p, sig] = s.accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const altered = Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString(
      'base64url',
    );
    expect(verifyWithJwks(`${h}.${altered}.${sig}`, keys).ok).toBe(false);
  });
});

describe('allowedRedirectUrls entries are validated', () => {
  it.each([
    [['https://app.example.com/cb', 'https://*.example.com/cb', 'myapp://callback', 'com.example.app:/oauth'], 200],
    [['javascript:alert(1)'], 400],
    [['https://app.example.com/*'], 400],
    [['not a url'], 400],
  ])('%j → %i', async (allowedRedirectUrls, status) => {
    const token = await t.adminToken();
    const res = await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { authorization: `Bearer ${token}` },
      payload: { allowedRedirectUrls },
    });
    expect(res.statusCode).toBe(status);
    if (status === 400) {
      expect(res.json.error).toBe('VALIDATION_ERROR');
      expect(res.json.details[0].field).toMatch(/^allowedRedirectUrls\.0$/);
    } else {
      expect(res.json.allowedRedirectUrls).toEqual(allowedRedirectUrls);
    }
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { authorization: `Bearer ${token}` },
      payload: { allowedRedirectUrls: [] },
    });
  });
});
