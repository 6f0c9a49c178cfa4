// Master-key rotation as an operator does it: restart with the new PLINTH_ENCRYPTION_KEY and the
// old one in PLINTH_PREVIOUS_ENCRYPTION_KEYS; startup re-seals every value under the new key id,
// after which the old key can be dropped. A server without the key that sealed a value refuses
// to start, naming what to configure.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { createDeps } from '../../../src/deps.js';
import { loadPlatformKeys } from '../../../src/modules/secrets/index.js';
import { envelopeKeyId } from '../../../src/modules/secrets/master-key.js';
import { startTestApp, testConfig, TEST_ENCRYPTION_KEY, type TestApp } from '../../harness/test-app.js';

const NEW_KEY = 'b'.repeat(64);
let t: TestApp;
let db: postgres.Sql;
beforeAll(async () => {
  t = await startTestApp();
  db = postgres(t.databaseUrl, { max: 1 });
});
afterAll(async () => {
  await db.end();
  await t.close();
});

const keyIds = async () => {
  const rows = await db<{ sealed: string }[]>`
    select value_ciphertext as sealed from system.secrets
    union all select client_secret_ciphertext from auth.custom_oauth_configs
    union all select password_ciphertext from email.smtp_config where password_ciphertext is not null`;
  return new Set(rows.map((r) => envelopeKeyId(r.sealed)));
};

/** Starts a server on the test database with the given keys and reads a secret through it. */
async function startWith(env: Record<string, string>) {
  const deps = await createDeps(testConfig(t.databaseUrl, env));
  const keys = await loadPlatformKeys(deps);
  const app = await buildApp(deps, { logger: false, keys });
  return {
    read: async (key: string) =>
      (await app.inject({ method: 'GET', url: `/api/secrets/${key}`, headers: { 'x-api-key': keys.apiKey } })).json(),
    apiKey: keys.apiKey,
    close: async () => {
      await app.close();
      await deps.close();
    },
  };
}

describe('master-key rotation', () => {
  it('re-seals every value under the new key at startup, so the old key can then be dropped', async () => {
    const admin = { 'x-api-key': t.apiKey };
    await t.request({
      method: 'POST',
      url: '/api/secrets',
      headers: admin,
      payload: { key: 'SURVIVOR', value: 'kept-value' },
    });
    const oauth = await t.request({
      method: 'POST',
      url: '/api/auth/oauth/custom/configs',
      headers: admin,
      payload: {
        key: 'rotated',
        name: 'Rotated',
        discoveryEndpoint: 'https://idp.example.com/.well-known/openid-configuration',
        clientId: 'c',
        clientSecret: 's',
      },
    });
    const smtp = await t.request({
      method: 'PUT',
      url: '/api/auth/smtp-config',
      headers: admin,
      payload: {
        enabled: false,
        host: 'smtp.example.com',
        port: 587,
        username: 'u',
        password: 'smtp-password',
        senderEmail: 'a@example.com',
      },
    });
    expect([oauth.statusCode, smtp.statusCode]).toEqual([201, 200]);
    const before = await keyIds();
    expect(before.size).toBe(1);

    const rotated = await startWith({
      PLINTH_ENCRYPTION_KEY: NEW_KEY,
      PLINTH_PREVIOUS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEY,
    });
    try {
      expect(await rotated.read('SURVIVOR')).toEqual({ key: 'SURVIVOR', value: 'kept-value' });
      expect(rotated.apiKey).toBe(t.apiKey);
    } finally {
      await rotated.close();
    }
    const after = await keyIds();
    expect(after.size).toBe(1);
    expect(after).not.toEqual(before);

    const newOnly = await startWith({ PLINTH_ENCRYPTION_KEY: NEW_KEY });
    try {
      expect(await newOnly.read('SURVIVOR')).toEqual({ key: 'SURVIVOR', value: 'kept-value' });
      expect(newOnly.apiKey).toBe(t.apiKey);
    } finally {
      await newOnly.close();
    }
  });

  it('a server without the key that sealed the values refuses to start and says which key is missing', async () => {
    const [row] = await db<{ sealed: string }[]>`select value_ciphertext as sealed from system.secrets limit 1`;
    // The start fails where the platform keys are loaded (main.ts, before the app is built).
    const deps = await createDeps(testConfig(t.databaseUrl, { PLINTH_ENCRYPTION_KEY: 'c'.repeat(64) }));
    try {
      await expect(loadPlatformKeys(deps)).rejects.toThrow(
        `sealed with encryption key id ${envelopeKeyId(row!.sealed)}, which is not configured: put that key in PLINTH_PREVIOUS_ENCRYPTION_KEYS`,
      );
    } finally {
      await deps.close();
    }
  });
});
