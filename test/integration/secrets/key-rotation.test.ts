// API-key and anon-key rotation: the new key works at once, the old one until its grace period
// ends on the injected clock (then 401), on this server, on a server started later and on a
// server that was already running (told through plinth_secrets).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
/** The API key that is current; each rotation test moves it forward. */
let apiKey: string;
let anonKey: string;
beforeAll(async () => {
  t = await startTestApp();
  apiKey = t.apiKey;
  anonKey = t.anonKey;
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const rotate = (path: 'api-key' | 'anon-key', payload?: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: `/api/secrets/${path}/rotate`,
    headers: { 'x-api-key': apiKey },
    ...(payload ? { payload } : {}),
  });
/** The status an admin route answers to an API key. */
const asApiKey = async (key: string, server = t.app) =>
  (await server.inject({ method: 'GET', url: '/api/metadata/api-key', headers: bearer(key) })).statusCode;
/** The status a client route answers to an anon key (404: accepted, the table does not exist). */
const asAnonKey = async (key: string) =>
  (await t.request({ method: 'GET', url: '/api/database/records/no_such_table', headers: bearer(key) })).statusCode;

describe('API key rotation', () => {
  it('answers the new key and when the old one expires (24 h by default)', async () => {
    const res = await rotate('api-key');
    expect(res.statusCode).toBe(200);
    const expiresAt = new Date(t.clock.now().getTime() + 24 * HOUR).toISOString();
    expect(res.json).toEqual({
      success: true,
      message: expect.stringContaining(expiresAt),
      apiKey: expect.stringMatching(/^ik_[0-9a-f]{64}$/),
      oldKeyExpiresAt: expiresAt,
    });
    expect(res.json.apiKey).not.toBe(apiKey);
    const old = apiKey;
    apiKey = res.json.apiKey;

    expect(await asApiKey(apiKey)).toBe(200);
    expect(await asApiKey(old)).toBe(200);
    const shown = await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: bearer(apiKey) });
    expect(shown.json.apiKey).toBe(apiKey);

    const secrets = (await t.request({ method: 'GET', url: '/api/secrets', headers: bearer(apiKey) })).json
      .secrets as any[];
    const retired = secrets.find((s) => s.key.startsWith('API_KEY_OLD_'));
    expect(retired).toMatchObject({
      key: `API_KEY_OLD_${t.clock.now().getTime()}`,
      isReserved: true,
      isActive: true,
      expiresAt,
    });

    t.clock.advance(24 * HOUR - 1000);
    expect(await asApiKey(old)).toBe(200);
    t.clock.advance(1000);
    const refused = await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: { 'x-api-key': old } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json).toMatchObject({ error: 'UNAUTHORIZED', message: 'Invalid API key.' });
    expect(await asApiKey(apiKey)).toBe(200);
  });

  it('a grace period of 0 retires the old key at once', async () => {
    const res = await rotate('api-key', { gracePeriodHours: 0 });
    expect(res.json.oldKeyExpiresAt).toBe(t.clock.now().toISOString());
    expect(await asApiKey(apiKey)).toBe(401);
    apiKey = res.json.apiKey;
    expect(await asApiKey(apiKey)).toBe(200);
  });

  it('two rotations within one millisecond keep both retired keys', async () => {
    const first = apiKey;
    const second = (await rotate('api-key', { gracePeriodHours: 1 })).json.apiKey;
    apiKey = second;
    apiKey = (await rotate('api-key', { gracePeriodHours: 1 })).json.apiKey;
    expect([await asApiKey(first), await asApiKey(second), await asApiKey(apiKey)]).toEqual([200, 200, 200]);
    t.clock.advance(HOUR);
  });

  it.each([
    [{ gracePeriodHours: 169 }],
    [{ gracePeriodHours: -1 }],
    [{ gracePeriodHours: 1.5 }],
    [{ gracePeriodHours: '2' }],
  ])('rejects %j with 400 and keeps the key', async (payload) => {
    const res = await rotate('api-key', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(await asApiKey(apiKey)).toBe(200);
  });

  it('a server started later accepts the new key and the old one until its expiry', async () => {
    const old = apiKey;
    apiKey = (await rotate('api-key', { gracePeriodHours: 2 })).json.apiKey;
    const later = await t.startAnotherServer();
    try {
      expect(await asApiKey(apiKey, later.app)).toBe(200);
      expect(await asApiKey(old, later.app)).toBe(200);
      t.clock.advance(2 * HOUR);
      expect(await asApiKey(old, later.app)).toBe(401);
    } finally {
      await later.close();
    }
  });

  it('a server already running learns of the rotation through plinth_secrets', async () => {
    const running = await t.startAnotherServer();
    try {
      const old = apiKey;
      apiKey = (await rotate('api-key', { gracePeriodHours: 0 })).json.apiKey;
      await vi.waitFor(async () => expect(await asApiKey(apiKey, running.app)).toBe(200));
      expect(await asApiKey(old, running.app)).toBe(401);
    } finally {
      await running.close();
    }
  });
});

describe('anon key rotation', () => {
  it('keeps the old anon key for 168 h by default, then answers 401', async () => {
    const res = await rotate('anon-key');
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({
      success: true,
      anonKey: expect.stringMatching(/^anon_[0-9a-f]{64}$/),
      oldKeyExpiresAt: new Date(t.clock.now().getTime() + 168 * HOUR).toISOString(),
    });
    const old = anonKey;
    anonKey = res.json.anonKey;
    expect(await asAnonKey(anonKey)).toBe(404);
    expect(await asAnonKey(old)).toBe(404);
    const shown = await t.request({ method: 'GET', url: '/api/metadata/anon-key', headers: bearer(apiKey) });
    expect(shown.json.anonKey).toBe(anonKey);
    t.clock.advance(168 * HOUR);
    expect(await asAnonKey(old)).toBe(401);
    expect(await asAnonKey(anonKey)).toBe(404);
  });

  it('accepts up to 720 h and no more', async () => {
    expect((await rotate('anon-key', { gracePeriodHours: 721 })).statusCode).toBe(400);
    const res = await rotate('anon-key', { gracePeriodHours: 720 });
    expect(res.json.oldKeyExpiresAt).toBe(new Date(t.clock.now().getTime() + 720 * HOUR).toISOString());
    anonKey = res.json.anonKey;
  });

  it('the API key is not an anon key, nor the other way round', async () => {
    expect(await asApiKey(anonKey)).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: { 'x-api-key': anonKey } })).statusCode,
    ).toBe(401);
  });
});
