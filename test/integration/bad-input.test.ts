// What the public JSON endpoints do with input a client should not send: wrong types, missing
// fields, huge or malformed bodies, other content types, unicode. Every answer is a 4xx in the
// one error shape, and a rejected write leaves nothing behind.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, TEST_ADMIN, type TestApp } from '../harness/test-app.js';

let t: TestApp;
let userToken: string;
beforeAll(async () => {
  t = await startTestApp();
  userToken = (await t.signUp()).accessToken;
});
afterAll(() => t.close());

const ERROR_KEYS = ['error', 'message', 'statusCode', 'nextActions', 'details'];

/** The error shape every failure has: {error, message, statusCode, nextActions?, details?}. */
function expectErrorShape(res: LightMyRequestResponse & { json: any }, status: number, code?: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json;
  expect(body).toBeTypeOf('object');
  for (const key of Object.keys(body)) expect(ERROR_KEYS, `unexpected key ${key}`).toContain(key);
  expect(body.error).toEqual(expect.stringMatching(/^[A-Z][A-Z_]+$/));
  expect(body.message).toEqual(expect.any(String));
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.statusCode).toBe(status);
  if ('nextActions' in body) expect(body.nextActions).toEqual(expect.any(String));
  if (code) expect(body.error).toBe(code);
  return body;
}

/** A validation error whose details name every field in `fields`. */
function expectValidationError(res: LightMyRequestResponse & { json: any }, fields: string[]) {
  const body = expectErrorShape(res, 400, 'VALIDATION_ERROR');
  expect(Array.isArray(body.details), 'details is a list').toBe(true);
  for (const d of body.details) {
    expect(d).toMatchObject({ field: expect.any(String), message: expect.any(String) });
  }
  const named: string[] = body.details.map((d: { field: string }) => d.field);
  for (const field of fields) {
    expect(
      named.some((n) => n === field || n.startsWith(`${field}.`)),
      `details name ${field}: ${named.join(', ')}`,
    ).toBe(true);
  }
  expect(body.nextActions, 'nextActions says what to change').toEqual(expect.stringMatching(/\S/));
}

const unique = () => `bad-${randomBytes(5).toString('hex')}`;

/** How many users the admin list shows for `search` (email or name). */
async function usersMatching(search: string): Promise<number> {
  const res = await t.request({
    method: 'GET',
    url: `/api/auth/users?search=${encodeURIComponent(search)}`,
    headers: bearer(t.apiKey),
  });
  expect(res.statusCode).toBe(200);
  return res.json.pagination.total;
}

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
  });

describe('POST /api/auth/users: bad bodies are refused and create nothing', () => {
  // `marker` is put in the email (or name) so the admin list can prove nothing was written.
  const cases: { name: string; body: (marker: string) => unknown; fields: string[] }[] = [
    { name: 'empty object', body: () => ({}), fields: ['email', 'password'] },
    { name: 'missing password', body: (m) => ({ email: `${m}@example.com` }), fields: ['password'] },
    { name: 'missing email', body: (m) => ({ password: 'secret-123', name: m }), fields: ['email'] },
    { name: 'email is a number', body: (m) => ({ email: 12345, password: 'secret-123', name: m }), fields: ['email'] },
    {
      name: 'email is a list',
      body: (m) => ({ email: [`${m}@example.com`], password: 'secret-123' }),
      fields: ['email'],
    },
    {
      name: 'email is an object',
      body: (m) => ({ email: { address: `${m}@example.com` }, password: 'secret-123' }),
      fields: ['email'],
    },
    { name: 'email is null', body: (m) => ({ email: null, password: 'secret-123', name: m }), fields: ['email'] },
    { name: 'email is not an address', body: (m) => ({ email: m, password: 'secret-123' }), fields: ['email'] },
    { name: 'email has no domain', body: (m) => ({ email: `${m}@`, password: 'secret-123' }), fields: ['email'] },
    {
      name: 'email is blank after trimming',
      body: (m) => ({ email: '   ', password: 'secret-123', name: m }),
      fields: ['email'],
    },
    {
      name: 'email of 10,000 characters',
      body: (m) => ({ email: `${m}${'a'.repeat(10_000)}@example.com`, password: 'secret-123' }),
      fields: ['email'],
    },
    {
      name: 'password is a number',
      body: (m) => ({ email: `${m}@example.com`, password: 12345678 }),
      fields: ['password'],
    },
    {
      name: 'password is a boolean',
      body: (m) => ({ email: `${m}@example.com`, password: true }),
      fields: ['password'],
    },
    { name: 'password is empty', body: (m) => ({ email: `${m}@example.com`, password: '' }), fields: ['password'] },
    {
      name: 'password of 100,000 characters',
      body: (m) => ({ email: `${m}@example.com`, password: 'p'.repeat(100_000) }),
      fields: ['password'],
    },
    {
      name: 'name is a number',
      body: (m) => ({ email: `${m}@example.com`, password: 'secret-123', name: 7 }),
      fields: ['name'],
    },
    {
      name: 'name is blank',
      body: (m) => ({ email: `${m}@example.com`, password: 'secret-123', name: '   ' }),
      fields: ['name'],
    },
    {
      name: 'name of 101 characters',
      body: (m) => ({ email: `${m}@example.com`, password: 'secret-123', name: 'n'.repeat(101) }),
      fields: ['name'],
    },
    {
      name: 'redirectTo is not a URL',
      body: (m) => ({ email: `${m}@example.com`, password: 'secret-123', redirectTo: 'not a url' }),
      fields: ['redirectTo'],
    },
    {
      name: 'autoConfirm is a string',
      body: (m) => ({ email: `${m}@example.com`, password: 'secret-123', autoConfirm: 'true' }),
      fields: ['autoConfirm'],
    },
    {
      name: 'every field wrong at once',
      body: () => ({ email: 1, password: 2, name: 3 }),
      fields: ['email', 'password', 'name'],
    },
  ];

  it.each(cases)('$name → 400 naming $fields', async ({ body, fields }) => {
    const marker = unique();
    const res = await post('/api/auth/users?client_type=mobile', body(marker));
    expectValidationError(res, fields);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await usersMatching(marker)).toBe(0);
  });

  it.each([
    ['null', 'null'],
    ['a list', '[{"email":"a@example.com","password":"secret-123"}]'],
    ['a string', '"a@example.com"'],
    ['a number', '42'],
  ])('a JSON body that is %s → 400', async (_label, raw) => {
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/users',
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
    expectErrorShape(res, 400, 'VALIDATION_ERROR');
  });

  it('unknown extra fields are ignored, not stored', async () => {
    const marker = unique();
    const res = await post('/api/auth/users?client_type=mobile', {
      email: `${marker}@example.com`,
      password: 'secret-123',
      role: 'project_admin',
      emailVerified: true,
      metadata: { plan: 'enterprise' },
      profile: { name: 'Injected' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.user).toMatchObject({ emailVerified: false, metadata: {}, profile: {} });
    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(res.json.accessToken),
    });
    expect(me.json.user.role).toBe('authenticated');
  });
});

describe('other public JSON endpoints: wrong types and missing fields', () => {
  const cases: {
    name: string;
    method: 'POST' | 'PATCH';
    url: string;
    body: unknown;
    fields: string[];
    auth?: boolean;
  }[] = [
    { name: 'sign-in, empty body', method: 'POST', url: '/api/auth/sessions', body: {}, fields: ['email', 'password'] },
    {
      name: 'sign-in, password missing',
      method: 'POST',
      url: '/api/auth/sessions',
      body: { email: 'a@example.com' },
      fields: ['password'],
    },
    {
      name: 'sign-in, email is a number',
      method: 'POST',
      url: '/api/auth/sessions',
      body: { email: 1, password: 'x' },
      fields: ['email'],
    },
    {
      name: 'sign-in, password is an object',
      method: 'POST',
      url: '/api/auth/sessions',
      body: { email: 'a@example.com', password: { $ne: '' } },
      fields: ['password'],
    },
    {
      name: 'sign-in, method is a number',
      method: 'POST',
      url: '/api/auth/sessions',
      body: { method: 1, email: 'a@example.com', password: 'x' },
      fields: ['method'],
    },
    {
      name: 'sign-in, 5,000-character email',
      method: 'POST',
      url: '/api/auth/sessions',
      body: { email: `${'a'.repeat(5000)}@example.com`, password: 'x' },
      fields: ['email'],
    },
    {
      name: 'refresh, token is a number',
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      body: { refreshToken: 5 },
      fields: ['refreshToken'],
    },
    {
      name: 'refresh, token is empty',
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      body: { refreshToken: '' },
      fields: ['refreshToken'],
    },
    {
      name: 'refresh, body is a list',
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      body: ['token'],
      fields: [],
    },
    {
      name: 'logout, token is a list',
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      body: { refreshToken: ['a'] },
      fields: ['refreshToken'],
    },
    {
      name: 'admin sign-in, empty body',
      method: 'POST',
      url: '/api/auth/admin/sessions',
      body: {},
      fields: ['password'],
    },
    {
      name: 'admin sign-in, username is an object',
      method: 'POST',
      url: '/api/auth/admin/sessions',
      body: { username: {}, password: 'x' },
      fields: ['username'],
    },
    {
      name: 'profile update, no profile',
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      body: {},
      fields: ['profile'],
      auth: true,
    },
    {
      name: 'profile update, profile is a string',
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      body: { profile: 'Ada' },
      fields: ['profile'],
      auth: true,
    },
    {
      name: 'profile update, profile is a list',
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      body: { profile: ['Ada'] },
      fields: ['profile'],
      auth: true,
    },
    {
      name: 'profile update, profile is null',
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      body: { profile: null },
      fields: ['profile'],
      auth: true,
    },
  ];

  it.each(cases)('$name → 400', async ({ method, url, body, fields, auth }) => {
    const res = await t.request({
      method,
      url,
      headers: { 'content-type': 'application/json', ...(auth ? bearer(userToken) : {}) },
      payload: JSON.stringify(body),
    });
    expectValidationError(res, fields);
  });

  it('refresh: an absurdly long token is simply not a session (401), not a crash', async () => {
    const res = await post('/api/auth/refresh?client_type=mobile', { refreshToken: 'r'.repeat(500_000) });
    expectErrorShape(res, 401, 'UNAUTHORIZED');
  });

  it.each([
    ['/api/auth/profiles/not-a-uuid'],
    ['/api/auth/profiles/00000000-0000-4000-8000-00000000000'],
    ['/api/auth/profiles/%F0%9F%A6%84'],
  ])('GET %s → 400 naming userId', async (url) => {
    const res = await t.request({ method: 'GET', url });
    expectValidationError(res, ['params.userId']);
  });

  // The router refuses these before any route runs; they still get the one error shape.
  it.each([
    ['a 2,000-character user id', `/api/auth/profiles/${'f'.repeat(2000)}`, false],
    ['malformed percent-encoding', '/api/auth/profiles/%E0%A4%A', false],
    ['malformed percent-encoding on an admin route', '/api/auth/users/%E0%A4%A', true],
  ])('GET with %s → 400 VALIDATION_ERROR', async (_label, url, asAdmin) => {
    const res = await t.request({ method: 'GET', url, headers: asAdmin ? bearer(t.apiKey) : {} });
    expectErrorShape(res, 400, 'VALIDATION_ERROR');
  });

  it('a failed profile update changes nothing', async () => {
    const s = await t.signUp();
    await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: bearer(s.accessToken),
      payload: { profile: { name: 'Kept' } },
    });
    const bad = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: { ...bearer(s.accessToken), 'content-type': 'application/json' },
      payload: '{"profile": {"name": "Lost"',
    });
    expectErrorShape(bad, 400, 'VALIDATION_ERROR');
    const pub = await t.request({ method: 'GET', url: `/api/auth/profiles/${s.user.id}` });
    expect(pub.json.profile).toEqual({ name: 'Kept' });
  });
});

describe('nextActions of a refused request say what to change in each field', () => {
  const send = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.request({ method, url, payload, headers: { 'x-api-key': t.apiKey } });

  it('names the allowed values, the missing field, the expected type, the bound and the unknown key', async () => {
    const cases: [Promise<LightMyRequestResponse & { json: any }>, string][] = [
      [
        send('GET', '/api/logs/search?exclude_console=yes'),
        'Set querystring.exclude_console to one of "true", "false".',
      ],
      [send('GET', '/api/logs/search?q='), 'Make querystring.q at least 1 character long.'],
      [send('POST', '/api/auth/users', { password: 'correct-horse-9' }), 'Send email (string).'],
      [send('POST', '/api/auth/users', { email: 5, password: 'correct-horse-9' }), 'Send email as string.'],
      [send('POST', '/api/database/backups/import?colour=red'), 'Remove querystring.colour.'],
    ];
    for (const [answer, fix] of cases) {
      const body = expectErrorShape(await answer, 400, 'VALIDATION_ERROR');
      expect(body.nextActions).toBe(`${fix} The API reference at /api/reference describes each field.`);
    }
  });

  it('lists every refused field once, up to five, then says how many more', async () => {
    const res = await send('POST', '/api/auth/users', { email: 1, password: 2, name: 3, a: 1, b: 2, c: 3 });
    const body = expectErrorShape(res, 400, 'VALIDATION_ERROR');
    const fixes = body.nextActions.split('. The API reference')[0].split('; ');
    expect(fixes.length).toBeLessThanOrEqual(6);
    if (body.details.length > 5) expect(fixes.at(-1)).toMatch(/^and \d+ more$/);
    else expect(fixes).toHaveLength(body.details.length);
  });
});

describe('the body as a whole', () => {
  const tenMegabytes = 10 * 1024 * 1024;

  it('a 10 MB JSON body → 413 PAYLOAD_TOO_LARGE, and nothing is created', async () => {
    const marker = unique();
    const payload = JSON.stringify({
      email: `${marker}@example.com`,
      password: 'secret-123',
      name: 'x'.repeat(tenMegabytes),
    });
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/users',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expectErrorShape(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(await usersMatching(marker)).toBe(0);
  });

  it('a 10 MB body streamed without Content-Length → 413 too', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    async function* body() {
      yield Buffer.from('{"email":"stream@example.com","password":"');
      for (let sent = 0; sent < tenMegabytes; sent += chunk.length) yield chunk;
      yield Buffer.from('"}');
    }
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/sessions',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from(body()),
    });
    expectErrorShape(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it.each([
    ['truncated JSON', '{"email": "a@example.com", "password": '],
    ['a trailing comma', '{"email": "a@example.com", "password": "secret-123",}'],
    ['single quotes', "{'email': 'a@example.com'}"],
    ['bare words', 'email=a@example.com&password=secret'],
    ['an empty body', ''],
    ['only whitespace', '   '],
  ])('malformed JSON (%s) → 400 VALIDATION_ERROR', async (_label, raw) => {
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/sessions',
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
    const body = expectErrorShape(res, 400, 'VALIDATION_ERROR');
    expect(body.message).toMatch(/JSON|empty/i);
  });

  it.each([
    ['__proto__', '{"email":"a@example.com","password":"secret-123","__proto__":{"isAdmin":true}}'],
    [
      'constructor.prototype',
      '{"email":"a@example.com","password":"secret-123","constructor":{"prototype":{"isAdmin":true}}}',
    ],
  ])('a body trying prototype pollution through %s → 400', async (_label, raw) => {
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/users',
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
    expectErrorShape(res, 400, 'VALIDATION_ERROR');
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it.each([
    ['text/plain', '{"email":"a@example.com","password":"secret-123"}'],
    ['text/plain; charset=utf-8', '{"email":"a@example.com","password":"secret-123"}'],
    ['application/x-www-form-urlencoded', 'email=a%40example.com&password=secret-123'],
    ['application/xml', '<user><email>a@example.com</email></user>'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n--x--',
    ],
  ])('a %s body to a JSON route → 415 UNSUPPORTED_MEDIA_TYPE', async (contentType, raw) => {
    for (const url of ['/api/auth/users', '/api/auth/sessions', '/api/auth/refresh?client_type=mobile']) {
      const res = await t.request({ method: 'POST', url, headers: { 'content-type': contentType }, payload: raw });
      expectErrorShape(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('a text/plain registration creates no user', async () => {
    const marker = unique();
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/users?client_type=mobile',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ email: `${marker}@example.com`, password: 'secret-123' }),
    });
    expect(res.statusCode).toBe(415);
    expect(await usersMatching(marker)).toBe(0);
  });

  it('application/json with a charset parameter is JSON', async () => {
    const marker = unique();
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/users?client_type=mobile',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ email: `${marker}@example.com`, password: 'secret-123' }),
    });
    expect(res.statusCode).toBe(200);
    expect(await usersMatching(marker)).toBe(1);
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/api/nothing-here'],
    ['POST', '/api/auth/nothing-here'],
    ['GET', '/api/auth/users/00000000-0000-4000-8000-000000000000/extra'],
    ['DELETE', '/api/auth/sessions'],
    ['PUT', '/api/auth/public-config'],
    ['GET', '/nothing?with=query'],
  ] as const)('%s %s → 404 NOT_FOUND in the error shape', async (method, url) => {
    const res = await t.request({ method, url, headers: bearer(t.apiKey) });
    const body = expectErrorShape(res, 404, 'NOT_FOUND');
    expect(body.message).toContain(url.split('?')[0]);
    expect(body.message).not.toContain('with=query');
    expect(body.nextActions).toEqual(expect.any(String));
  });
});

describe('unicode', () => {
  it('emoji and non-Latin names are stored and returned as sent', async () => {
    const marker = unique();
    const name = '🦄 Zoë 名前 — مرحبا 👩🏽‍💻';
    const res = await post('/api/auth/users?client_type=mobile', {
      email: `${marker}@example.com`,
      password: 'secret-123',
      name,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.user.profile).toEqual({ name });
    const pub = await t.request({ method: 'GET', url: `/api/auth/profiles/${res.json.user.id}` });
    expect(pub.json.profile.name).toBe(name);
    // And the admin can find the user by a non-ASCII part of the name.
    const list = await t.request({
      method: 'GET',
      url: `/api/auth/users?search=${encodeURIComponent('zoë 名前')}`,
      headers: bearer(t.apiKey),
    });
    expect(list.json.data.map((u: any) => u.id)).toContain(res.json.user.id);
  });

  it.each([
    ['accented Latin', 'pässwörd-ñandú'],
    ['CJK', '密码是秘密的东西'],
    ['emoji', '🔑🔐🗝️🔒🔓🚪'],
    ['right-to-left', 'كلمة-السر-هنا'],
    ['mixed with spaces', '  spaces  at both ends  '],
  ])('a %s password registers and signs in; a near miss does not', async (_label, password) => {
    const marker = unique();
    const email = `${marker}@example.com`;
    const reg = await post('/api/auth/users?client_type=mobile', { email, password });
    expect(reg.statusCode).toBe(200);
    const ok = await post('/api/auth/sessions?client_type=mobile', { email, password });
    expect(ok.statusCode).toBe(200);
    expect(ok.json.user.id).toBe(reg.json.user.id);
    // Same text in another Unicode normal form or with trimmed spaces is a different password.
    for (const other of [password.normalize('NFD'), password.trim(), `${password}x`].filter((p) => p !== password)) {
      const miss = await post('/api/auth/sessions?client_type=mobile', { email, password: other });
      expect(miss.statusCode).toBe(401);
    }
  });

  it.each([
    ['a NUL character in the name', { name: 'null\u0000byte' }],
    ['a lone surrogate in the name', { name: 'half \ud83d pair' }],
  ])('%s: a clean 4xx or stored as sent — never a 500, never half-written', async (_label, extra) => {
    const marker = unique();
    const res = await post('/api/auth/users?client_type=mobile', {
      email: `${marker}@example.com`,
      password: 'secret-123',
      ...extra,
    });
    if (res.statusCode === 200) {
      expect(await usersMatching(marker)).toBe(1);
      return;
    }
    expectErrorShape(res, 400, 'VALIDATION_ERROR');
    expect(await usersMatching(marker)).toBe(0);
  });

  it('a NUL character in a profile value or key is refused with 400', async () => {
    const s = await t.signUp();
    for (const profile of [{ bio: 'a\u0000b' }, { 'k\u0000': 'v' }]) {
      const res = await t.request({
        method: 'PATCH',
        url: '/api/auth/profiles/current',
        headers: bearer(s.accessToken),
        payload: { profile },
      });
      expectErrorShape(res, 400, 'VALIDATION_ERROR');
    }
    const pub = await t.request({ method: 'GET', url: `/api/auth/profiles/${s.user.id}` });
    expect(pub.json.profile).toEqual({});
  });

  it('a NUL character in the user search is refused with 400', async () => {
    const res = await t.request({ method: 'GET', url: '/api/auth/users?search=a%00b', headers: bearer(t.apiKey) });
    expectErrorShape(res, 400, 'VALIDATION_ERROR');
  });

  it('a profile nested a few levels deep is fine', async () => {
    const s = await t.signUp();
    let nested: unknown = { leaf: '🍃' };
    for (let i = 0; i < 20; i++) nested = i % 2 === 0 ? { level: i, child: nested } : [i, nested];
    const res = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: bearer(s.accessToken),
      payload: { profile: { nested } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.profile).toEqual({ nested });
  });

  it('a deeply nested profile is refused with 400, not a crash', async () => {
    const s = await t.signUp();
    const depth = 100_000;
    const raw = `{"profile":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const res = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: { ...bearer(s.accessToken), 'content-type': 'application/json' },
      payload: raw,
    });
    expectValidationError(res, ['profile']);
    const pub = await t.request({ method: 'GET', url: `/api/auth/profiles/${s.user.id}` });
    expect(pub.json.profile).toEqual({});
  });

  it('a unicode admin password attempt is just a wrong password', async () => {
    const res = await post('/api/auth/admin/sessions', { email: TEST_ADMIN.email, password: '管理者パスワード🔑' });
    expectErrorShape(res, 401, 'UNAUTHORIZED');
  });
});
