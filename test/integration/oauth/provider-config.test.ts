// Admin settings of OAuth providers (built-in and custom): create, list, get, update, delete;
// duplicates, unknown providers and bad input; client secrets never leave the server; and the
// public configuration listing what is configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const GOOGLE_SECRET = 'google-secret-SHOULD-NEVER-LEAK-1';
const GOOGLE_SECRET_2 = 'google-secret-SHOULD-NEVER-LEAK-2';
const GITHUB_SECRET = 'github-secret-SHOULD-NEVER-LEAK-3';
const CUSTOM_SECRET = 'custom-secret-SHOULD-NEVER-LEAK-4';
const CUSTOM_SECRET_2 = 'custom-secret-SHOULD-NEVER-LEAK-5';
const SECRETS = [GOOGLE_SECRET, GOOGLE_SECRET_2, GITHUB_SECRET, CUSTOM_SECRET, CUSTOM_SECRET_2];

/** Every response body this file sees, to prove no secret is ever in one. */
const bodies: string[] = [];
const admin = { 'x-api-key': '' };

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = admin,
) {
  const res = await t.request({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  bodies.push(res.body);
  return res;
}

beforeAll(() => {
  admin['x-api-key'] = t.apiKey;
});

describe('built-in provider settings', () => {
  it('create → get → list → update → delete, with the secret write-only', async () => {
    const created = await call('POST', '/api/auth/oauth/configs', {
      provider: 'google',
      clientId: 'google-client',
      clientSecret: GOOGLE_SECRET,
      scopes: ['openid', 'email'],
      nativeClientIds: ['ios-client', 'android-client'],
      authorizationUrl: 'http://127.0.0.1:9/authorize',
      tokenUrl: 'http://127.0.0.1:9/token',
      userinfoUrl: 'http://127.0.0.1:9/userinfo',
      jwksUrl: 'http://127.0.0.1:9/jwks',
      issuer: 'https://accounts.google.com',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json).toMatchObject({
      provider: 'google',
      clientId: 'google-client',
      hasClientSecret: true,
      scopes: ['openid', 'email'],
      redirectUri: null,
      nativeClientIds: ['ios-client', 'android-client'],
      authorizationUrl: 'http://127.0.0.1:9/authorize',
      tokenUrl: 'http://127.0.0.1:9/token',
      userinfoUrl: 'http://127.0.0.1:9/userinfo',
      jwksUrl: 'http://127.0.0.1:9/jwks',
      issuer: 'https://accounts.google.com',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(created.json).not.toHaveProperty('clientSecret');
    expect(created.json).not.toHaveProperty('clientSecretCiphertext');

    const got = await call('GET', '/api/auth/oauth/google/config');
    expect(got.statusCode).toBe(200);
    expect(got.json).toEqual(created.json);

    const list = await call('GET', '/api/auth/oauth/configs');
    expect(list.statusCode).toBe(200);
    expect(list.json.count).toBe(list.json.data.length);
    expect(list.json.data.map((c: { provider: string }) => c.provider)).toContain('google');

    t.clock.advance(1000);
    const updated = await call('PUT', '/api/auth/oauth/google/config', {
      clientId: 'google-client-2',
      clientSecret: GOOGLE_SECRET_2,
    });
    expect(updated.statusCode, updated.body).toBe(200);
    // Omitted fields are kept.
    expect(updated.json).toMatchObject({
      clientId: 'google-client-2',
      hasClientSecret: true,
      nativeClientIds: ['ios-client', 'android-client'],
      tokenUrl: 'http://127.0.0.1:9/token',
      createdAt: created.json.createdAt,
    });
    expect(updated.json.updatedAt).not.toBe(created.json.updatedAt);

    // null removes the secret.
    const noSecret = await call('PUT', '/api/auth/oauth/google/config', { clientSecret: null, tokenUrl: null });
    expect(noSecret.statusCode).toBe(200);
    expect(noSecret.json).toMatchObject({ hasClientSecret: false, tokenUrl: null, clientId: 'google-client-2' });

    const removed = await call('DELETE', '/api/auth/oauth/google/config');
    expect(removed.statusCode).toBe(200);
    expect(removed.json).toMatchObject({ success: true, message: expect.any(String) });
    expect((await call('GET', '/api/auth/oauth/google/config')).statusCode).toBe(404);
    const after = await call('GET', '/api/auth/oauth/configs');
    expect(after.json.data.map((c: { provider: string }) => c.provider)).not.toContain('google');
  });

  it('a second configuration of the same provider is a 409', async () => {
    const first = await call('POST', '/api/auth/oauth/configs', {
      provider: 'github',
      clientId: 'gh',
      clientSecret: GITHUB_SECRET,
    });
    expect(first.statusCode).toBe(201);
    expect(first.json.nativeClientIds).toEqual([]);
    const again = await call('POST', '/api/auth/oauth/configs', {
      provider: 'github',
      clientId: 'gh-2',
      clientSecret: GITHUB_SECRET,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({
      error: 'AUTH_OAUTH_CONFIG_EXISTS',
      statusCode: 409,
      nextActions: expect.any(String),
    });
    // The first one is untouched.
    expect((await call('GET', '/api/auth/oauth/github/config')).json.clientId).toBe('gh');
  });

  it('get, update and delete of a provider that is not configured are 404', async () => {
    for (const [method, payload] of [['GET'], ['PUT', { clientId: 'x' }], ['DELETE']] as const) {
      const res = await call(method, '/api/auth/oauth/discord/config', payload);
      expect(res.statusCode, `${method}`).toBe(404);
      expect(res.json).toMatchObject({ error: 'AUTH_OAUTH_CONFIG_NOT_FOUND', statusCode: 404 });
    }
  });

  it.each([
    ['an unknown provider', { provider: 'myspace', clientId: 'c' }],
    ['a missing clientId', { provider: 'discord' }],
    ['a blank clientId', { provider: 'discord', clientId: '   ' }],
    ['an unknown field', { provider: 'discord', clientId: 'c', useSharedKey: true }],
    ['a token URL that is not a URL', { provider: 'discord', clientId: 'c', tokenUrl: 'not a url' }],
    [
      'an authorization URL with a script scheme',
      { provider: 'discord', clientId: 'c', authorizationUrl: 'javascript:alert(1)' },
    ],
    ['a JWKS URL that is not http(s)', { provider: 'discord', clientId: 'c', jwksUrl: 'ftp://keys.example.com/jwks' }],
    [
      'too many nativeClientIds',
      { provider: 'discord', clientId: 'c', nativeClientIds: Array.from({ length: 21 }, (_, i) => `n${i}`) },
    ],
  ])('creating with %s is a 400', async (_name, payload) => {
    const res = await call('POST', '/api/auth/oauth/configs', payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    expect((await call('GET', '/api/auth/oauth/discord/config')).statusCode).toBe(404);
  });

  it('an unknown provider in the path is a 400, an update with a bad URL too', async () => {
    expect((await call('GET', '/api/auth/oauth/myspace/config')).statusCode).toBe(400);
    const bad = await call('PUT', '/api/auth/oauth/github/config', { userinfoUrl: 'javascript:alert(1)' });
    expect(bad.statusCode).toBe(400);
    expect((await call('GET', '/api/auth/oauth/github/config')).json.userinfoUrl).toBeNull();
  });
});

describe('custom provider settings', () => {
  const custom = {
    key: 'corp-sso',
    name: 'Corp SSO',
    discoveryEndpoint: 'https://sso.corp.example/.well-known/openid-configuration',
    clientId: 'corp-client',
    clientSecret: CUSTOM_SECRET,
  };

  it('create → get → list → update → delete, with the secret write-only', async () => {
    const created = await call('POST', '/api/auth/oauth/custom/configs', custom);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json).toEqual({
      key: 'corp-sso',
      name: 'Corp SSO',
      discoveryEndpoint: custom.discoveryEndpoint,
      clientId: 'corp-client',
      hasClientSecret: true,
      scopes: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    expect((await call('GET', '/api/auth/oauth/custom/corp-sso/config')).json).toEqual(created.json);
    const list = await call('GET', '/api/auth/oauth/custom/configs');
    expect(list.statusCode).toBe(200);
    expect(list.json).toEqual({ data: [created.json], count: 1 });

    const updated = await call('PUT', '/api/auth/oauth/custom/corp-sso/config', {
      name: 'Corp',
      clientSecret: CUSTOM_SECRET_2,
      scopes: ['openid'],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json).toMatchObject({
      key: 'corp-sso',
      name: 'Corp',
      clientId: 'corp-client',
      scopes: ['openid'],
      hasClientSecret: true,
    });

    const dup = await call('POST', '/api/auth/oauth/custom/configs', { ...custom, name: 'Another' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json).toMatchObject({ error: 'AUTH_OAUTH_CONFIG_EXISTS' });

    expect((await call('DELETE', '/api/auth/oauth/custom/corp-sso/config')).statusCode).toBe(200);
    for (const [method, payload] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
      const res = await call(method, '/api/auth/oauth/custom/corp-sso/config', payload);
      expect(res.statusCode, method).toBe(404);
      expect(res.json.error).toBe('AUTH_OAUTH_CONFIG_NOT_FOUND');
    }
  });

  it.each([
    ['a key that is a built-in provider name', { ...custom, key: 'google' }],
    ['a key with capitals', { ...custom, key: 'Corp' }],
    ['a key with a slash', { ...custom, key: 'a/b' }],
    ['a 65-character key', { ...custom, key: 'k'.repeat(65) }],
    ['a discovery endpoint that is not a URL', { ...custom, key: 'bad-url', discoveryEndpoint: 'sso.corp.example' }],
    [
      'a discovery endpoint with a script scheme',
      { ...custom, key: 'bad-scheme', discoveryEndpoint: 'javascript:alert(1)' },
    ],
    ['no client secret', { key: 'no-secret', name: 'x', discoveryEndpoint: custom.discoveryEndpoint, clientId: 'c' }],
  ])('creating with %s is a 400', async (_name, payload) => {
    const res = await call('POST', '/api/auth/oauth/custom/configs', payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    const list = await call('GET', '/api/auth/oauth/custom/configs');
    expect(list.json.data.map((c: { key: string }) => c.key)).not.toContain((payload as { key: string }).key);
  });

  it('a built-in name in the custom path is a 400', async () => {
    expect((await call('GET', '/api/auth/oauth/custom/github/config')).statusCode).toBe(400);
  });
});

describe('who may manage provider settings', () => {
  it('nobody but the admin: no credential is 401, a user token 403, the anon key 401 or 403', async () => {
    const user = await t.signUp();
    const cases: [string, Record<string, string>, number[]][] = [
      ['no credential', {}, [401]],
      ['a user', bearer(user.accessToken), [403]],
      ['the anon key', bearer(t.anonKey), [401, 403]],
    ];
    for (const [who, headers, statuses] of cases) {
      for (const [method, url, payload] of [
        ['GET', '/api/auth/oauth/configs'],
        ['POST', '/api/auth/oauth/configs', { provider: 'spotify', clientId: 'c' }],
        ['GET', '/api/auth/oauth/github/config'],
        ['PUT', '/api/auth/oauth/github/config', { clientId: 'hijacked' }],
        ['DELETE', '/api/auth/oauth/github/config'],
        ['GET', '/api/auth/oauth/custom/configs'],
        [
          'POST',
          '/api/auth/oauth/custom/configs',
          { key: 'evil', name: 'e', discoveryEndpoint: 'https://e.example/x', clientId: 'c', clientSecret: 's' },
        ],
      ] as const) {
        const res = await call(method, url, payload, headers);
        expect(statuses, `${who}: ${method} ${url} → ${res.statusCode}`).toContain(res.statusCode);
      }
    }
    expect((await call('GET', '/api/auth/oauth/github/config')).json.clientId).toBe('gh');
    expect((await call('GET', '/api/auth/oauth/spotify/config')).statusCode).toBe(404);
  });
});

describe('public configuration', () => {
  it('lists the configured built-in providers and custom keys, and no secret', async () => {
    expect(
      (
        await call('POST', '/api/auth/oauth/configs', {
          provider: 'linkedin',
          clientId: 'li',
          clientSecret: GOOGLE_SECRET,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await call('POST', '/api/auth/oauth/custom/configs', { ...customConfig('okta'), clientSecret: CUSTOM_SECRET }))
        .statusCode,
    ).toBe(201);
    expect(
      (
        await call('POST', '/api/auth/oauth/custom/configs', {
          ...customConfig('auth0'),
          clientSecret: CUSTOM_SECRET_2,
        })
      ).statusCode,
    ).toBe(201);

    const res = await call('GET', '/api/auth/public-config', undefined, {});
    expect(res.statusCode).toBe(200);
    expect([...res.json.oAuthProviders].sort()).toEqual(['github', 'linkedin']);
    expect([...res.json.customOAuthProviders].sort()).toEqual(['auth0', 'okta']);
    expect(res.json).not.toHaveProperty('allowedRedirectUrls');

    // Removing a provider removes it from the public list.
    expect((await call('DELETE', '/api/auth/oauth/linkedin/config')).statusCode).toBe(200);
    expect((await call('DELETE', '/api/auth/oauth/custom/okta/config')).statusCode).toBe(200);
    const after = await call('GET', '/api/auth/public-config', undefined, {});
    expect(after.json.oAuthProviders).toEqual(['github']);
    expect(after.json.customOAuthProviders).toEqual(['auth0']);
  });

  it('initiation with a configured provider does not reveal the secret either', async () => {
    // Initiation of a built-in needs no network: the authorization URL is built locally.
    expect((await call('PUT', '/api/auth/oauth/github/config', { clientSecret: GITHUB_SECRET })).statusCode).toBe(200);
    const res = await call(
      'GET',
      `/api/auth/oauth/github?redirect_uri=${encodeURIComponent('https://app.example/cb')}&code_challenge=${'c'.repeat(43)}`,
      undefined,
      {},
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(new URL(res.json.authUrl).searchParams.get('client_id')).toBe('gh');
  });

  it('no response of this file contained a client secret', () => {
    expect(bodies.length).toBeGreaterThan(30);
    for (const body of bodies) {
      for (const secret of SECRETS) expect(body).not.toContain(secret);
    }
  });
});

function customConfig(key: string) {
  return {
    key,
    name: key,
    discoveryEndpoint: `https://${key}.example/.well-known/openid-configuration`,
    clientId: `${key}-client`,
  };
}
