// The AI provider key as an admin sees it: seeded once from OPENROUTER_API_KEY, read with its
// mask, replaced with PUT, stored encrypted and reserved; unsupported providers and a missing key
// answer clear 400s.
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { maskKey } from '../../../src/modules/ai/ai-key.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const SEEDED = 'sk-or-v1-seeded-from-the-environment-0123';
const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));
const start = async (env?: Record<string, string>) => {
  const t = await startTestApp({ env });
  apps.push(t);
  return t;
};
const getKey = (t: TestApp, provider = 'openrouter') =>
  t.request({ method: 'GET', url: `/api/ai/${provider}/api-key`, headers: { 'x-api-key': t.apiKey } });
const putKey = (t: TestApp, apiKey: unknown, provider = 'openrouter') =>
  t.request({
    method: 'PUT',
    url: `/api/ai/${provider}/api-key`,
    headers: { 'x-api-key': t.apiKey },
    payload: { apiKey },
  });

describe('masking', () => {
  it('shows the first 8 and last 4 characters, and only the mask for short keys', () => {
    expect(maskKey('sk-or-v1-abcdefghij1234')).toBe('sk-or-v1••••••••1234');
    expect(maskKey('123456789012')).toBe('••••••••');
    expect(maskKey('1234567890123')).toBe('12345678••••••••0123');
  });
});

describe('seeded from OPENROUTER_API_KEY', () => {
  it('answers the key and its mask', async () => {
    const t = await start({ OPENROUTER_API_KEY: SEEDED });
    const res = await getKey(t);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ apiKey: SEEDED, maskedKey: 'sk-or-v1••••••••0123' });
  });

  it('PUT replaces it; a restart with the old environment value does not overwrite it', async () => {
    const t = await start({ OPENROUTER_API_KEY: SEEDED });
    const res = await putKey(t, 'sk-or-v1-set-by-the-admin-9999');
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ success: true, message: expect.any(String), maskedKey: 'sk-or-v1••••••••9999' });
    expect((await getKey(t)).json.apiKey).toBe('sk-or-v1-set-by-the-admin-9999');
    const restarted = await t.startAnotherServer();
    try {
      const again = await restarted.app.inject({
        method: 'GET',
        url: '/api/ai/openrouter/api-key',
        headers: { 'x-api-key': t.apiKey },
      });
      expect(again.json().apiKey).toBe('sk-or-v1-set-by-the-admin-9999');
    } finally {
      await restarted.close();
    }
  });

  it('is stored encrypted as a reserved secret that functions never see and nobody deletes', async () => {
    const t = await start({ OPENROUTER_API_KEY: SEEDED });
    const db = postgres(t.databaseUrl, { max: 1 });
    try {
      const [row] = await db<{ value_ciphertext: string; is_reserved: boolean }[]>`
        select value_ciphertext, is_reserved from system.secrets where key = 'OPENROUTER_API_KEY'`;
      expect(row!.is_reserved).toBe(true);
      expect(row!.value_ciphertext).not.toContain(SEEDED);
    } finally {
      await db.end();
    }
    const del = await t.request({
      method: 'DELETE',
      url: '/api/secrets/OPENROUTER_API_KEY',
      headers: { 'x-api-key': t.apiKey },
    });
    expect(del.statusCode).toBe(403);
  });
});

describe('without a key', () => {
  it('answers 400 AI_INVALID_API_KEY with nextActions, until one is PUT', async () => {
    const t = await start();
    const res = await getKey(t);
    expect(res.statusCode).toBe(400);
    expect(res.json).toEqual({
      error: 'AI_INVALID_API_KEY',
      message: 'OpenRouter API key is not configured.',
      statusCode: 400,
      nextActions: 'Set OPENROUTER_API_KEY or store one with PUT /api/ai/openrouter/api-key.',
    });
    expect((await putKey(t, 'short')).statusCode).toBe(200);
    expect((await getKey(t)).json).toEqual({ apiKey: 'short', maskedKey: '••••••••' });
  });
});

describe('bad input', () => {
  it('an unsupported provider answers 400 naming it, for GET and PUT', async () => {
    const t = await start({ OPENROUTER_API_KEY: SEEDED });
    for (const res of [await getKey(t, 'openai'), await putKey(t, 'k', 'openai')]) {
      expect(res.statusCode).toBe(400);
      expect(res.json).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: 'Unsupported AI provider: openai',
        nextActions: expect.stringContaining('openrouter'),
      });
    }
  });

  it.each([[''], ['   '], [42], [null]])('PUT rejects the key %j with 400', async (apiKey) => {
    const t = apps[0]!;
    const res = await putKey(t, apiKey);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect((await getKey(t)).json.apiKey).toBe(SEEDED);
  });
});

describe('GET/PUT /api/ai/config', () => {
  const config = (t: TestApp, method: 'GET' | 'PUT', payload?: unknown) =>
    t.request({ method, url: '/api/ai/config', headers: { 'x-api-key': t.apiKey }, payload: payload as never });

  it('shows both credentials masked, sets either, and the provider key route sees the change', async () => {
    const t = await start({ OPENROUTER_API_KEY: SEEDED });
    expect((await config(t, 'GET')).json).toEqual({
      apiKey: { configured: true, maskedKey: 'sk-or-v1••••••••0123' },
      managementKey: { configured: false, maskedKey: null },
    });
    const res = await config(t, 'PUT', { managementKey: '  sk-or-v1-management-key-7777  ' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      apiKey: { configured: true, maskedKey: 'sk-or-v1••••••••0123' },
      managementKey: { configured: true, maskedKey: 'sk-or-v1••••••••7777' },
    });
    await config(t, 'PUT', { apiKey: 'sk-or-v1-through-config-4444' });
    expect((await getKey(t)).json.apiKey).toBe('sk-or-v1-through-config-4444');
  });

  it('needs at least one credential; rotation is refused with 400 self-hosted', async () => {
    const t = apps[0]!;
    const empty = await config(t, 'PUT', {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json.message).toContain('At least one credential is required');
    const rotate = await t.request({
      method: 'POST',
      url: '/api/ai/openrouter/api-key/rotate',
      headers: { 'x-api-key': t.apiKey },
    });
    expect(rotate.statusCode).toBe(400);
    expect(rotate.json).toMatchObject({ error: 'VALIDATION_ERROR', nextActions: expect.stringContaining('PUT') });
  });
});
