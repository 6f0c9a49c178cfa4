// A restore brings the project's data back, never its old platform keys or admin sessions: after
// the admin rotates everything (grace 0) and signs out, restoring an older backup — or a forced
// unsigned archive whose secrets rows carry an attacker's API key — revives no leaked key, on the
// running servers and on one started afterwards; no session ended since (admin or user) comes
// back; the current keys keep working; user secrets come back from the archive.
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { signingKeyFromPem, signJwt, type SigningKey } from '../../../src/core/jwt.js';
import { bearer, type Server, startTestApp, TEST_ADMIN, type TestApp } from '../../harness/test-app.js';
import { createLedger } from '../../harness/ledger.js';

let t: TestApp;
let other: Server;
let backupId: string;
let archive: Buffer;
/** The keys that work once the admin rotated everything. */
let current: { apiKey: string; adminToken: string };

const call = (method: string, url: string, headers: Record<string, string>, payload?: object) =>
  t.request({ method: method as 'POST', url, headers, payload });

/** What an attacker could lift from the database before the rotation: the signing key. */
async function storedSigningKey(): Promise<SigningKey> {
  const rows = await t.deps.sql<{ key: string; sealed: string }[]>`
    select key, value_ciphertext as sealed from system.secrets where key in ('JWT_KEY_ID', 'JWT_PRIVATE_KEY')`;
  const open = (key: string) => t.deps.keyring.open(rows.find((r) => r.key === key)!.sealed);
  return signingKeyFromPem(open('JWT_KEY_ID'), open('JWT_PRIVATE_KEY'));
}

const now = () => epochSeconds(t.clock.now());
const forgedUser = (key: SigningKey) =>
  signJwt(key, {
    sub: randomUUID(),
    email: 'victim@example.com',
    role: 'authenticated',
    sid: randomUUID(),
    iat: now(),
    exp: now() + 600,
  });
const adminRoute = (server: Server['app'], headers: Record<string, string>) =>
  server.inject({ method: 'GET', url: '/api/secrets', headers });
const records = (server: Server['app'], token: string) =>
  server.inject({ method: 'GET', url: '/api/database/records/ledger', headers: bearer(token) });

async function backUp(apiKey: string): Promise<string> {
  const created = await call('POST', '/api/database/backups', { 'x-api-key': apiKey });
  expect(created.statusCode, created.body).toBe(201);
  await vi.waitFor(
    async () => {
      const { json } = await call('GET', '/api/database/backups', { 'x-api-key': apiKey });
      expect(json.backups.find((b: { id: string }) => b.id === created.json.id).status).toBe('completed');
    },
    { timeout: 20_000, interval: 50 },
  );
  return created.json.id;
}

async function restore(id: string): Promise<void> {
  const res = await call('POST', `/api/database/backups/${id}/restore`, { 'x-api-key': current.apiKey });
  expect(res.statusCode, res.body).toBe(200);
}

const signIn = async () => {
  const res = await call('POST', '/api/auth/admin/sessions?client_type=server', {}, TEST_ADMIN);
  expect(res.statusCode, res.body).toBe(200);
  return res.json as { accessToken: string; refreshToken: string };
};

let leaked: {
  apiKey: string;
  signingKey: SigningKey;
  refreshToken: string;
  userToken: string;
  userRefreshToken: string;
};

beforeAll(async () => {
  t = await startTestApp();
  other = await t.startAnotherServer();
  await createLedger(t.deps.sql);
  const admin = { 'x-api-key': t.apiKey };
  expect(
    (await call('POST', '/api/secrets', admin, { key: 'SHIPPING_TOKEN', value: 'from-the-backup' })).statusCode,
  ).toBe(201);
  // What leaked, and a live admin session the admin will end after the backup.
  const session = await signIn();
  const signingKey = await storedSigningKey();
  const user = await t.signUp();
  leaked = {
    apiKey: t.apiKey,
    signingKey,
    refreshToken: session.refreshToken,
    userToken: await forgedUser(signingKey),
    userRefreshToken: user.refreshToken,
  };
  const before = await records(t.app, leaked.userToken);
  expect(before.statusCode, before.body).toBe(200);
  backupId = await backUp(t.apiKey);
  archive = (await call('GET', `/api/database/backups/${backupId}/download`, admin)).rawPayload;

  // The admin rotates everything (grace 0), signs in again and ends the leaked session.
  const apiKey = (await call('POST', '/api/secrets/api-key/rotate', admin, { gracePeriodHours: 0 })).json.apiKey;
  const rotated = await call(
    'POST',
    '/api/secrets/signing-key/rotate',
    { 'x-api-key': apiKey },
    { gracePeriodHours: 0 },
  );
  expect(rotated.statusCode).toBe(200);
  const fresh = await signIn();
  const logout = await call('POST', '/api/auth/admin/logout', {}, { refreshToken: session.refreshToken });
  expect(logout.statusCode).toBe(200);
  const userLogout = await call('POST', '/api/auth/logout', {}, { refreshToken: user.refreshToken });
  expect(userLogout.statusCode, userLogout.body).toBe(200);
  current = { apiKey, adminToken: fresh.accessToken };
  await call('DELETE', '/api/secrets/SHIPPING_TOKEN', { 'x-api-key': apiKey });
});
afterAll(async () => {
  await other.close();
  await t.close();
});

/** The leaked keys open nothing on `server`; the current ones work. */
async function expectOnlyCurrentKeys(server: Server['app'], attackerApiKey = leaked.apiKey) {
  await vi.waitFor(async () => expect((await records(server, leaked.userToken)).statusCode).toBe(401));
  expect((await adminRoute(server, { 'x-api-key': attackerApiKey })).statusCode).toBe(401);
  expect((await adminRoute(server, bearer(attackerApiKey))).statusCode).toBe(401);
  expect((await adminRoute(server, { 'x-api-key': current.apiKey })).statusCode).toBe(200);
  expect((await adminRoute(server, bearer(current.adminToken))).statusCode).toBe(200);
}

describe('a restore after the admin rotated everything', () => {
  it('revives no rotated key or ended session, on every server; user secrets come back', async () => {
    await restore(backupId);
    const later = await t.startAnotherServer();
    try {
      for (const server of [t.app, other.app, later.app]) await expectOnlyCurrentKeys(server);
    } finally {
      await later.close();
    }
    const refresh = await call(
      'POST',
      '/api/auth/admin/refresh?client_type=server',
      {},
      {
        refreshToken: leaked.refreshToken,
      },
    );
    expect(refresh.statusCode, refresh.body).toBe(401);
    // A user's session ended since the backup stays ended too.
    const userRefresh = await call(
      'POST',
      '/api/auth/refresh?client_type=server',
      {},
      {
        refreshToken: leaked.userRefreshToken,
      },
    );
    expect(userRefresh.statusCode, userRefresh.body).toBe(401);
    const secret = await call('GET', '/api/secrets/SHIPPING_TOKEN', { 'x-api-key': current.apiKey });
    expect(secret.statusCode).toBe(200);
    expect(secret.json.value).toBe('from-the-backup');
  });
});

describe('a forced unsigned archive', () => {
  it("whose secrets rows carry an attacker's API key is restored without that key working", async () => {
    const attackerKey = `ik_${randomUUID().replaceAll('-', '')}`;
    const text = gunzipSync(archive).toString('latin1').split('\n');
    const copyAt = text.findIndex((line) => line.startsWith('{"copy":"system.secrets"'));
    const columns = JSON.parse(text[copyAt]!).columns as string[];
    const keyAt = columns.indexOf('key');
    const valueAt = columns.indexOf('value_ciphertext');
    let planted = 0;
    for (let i = copyAt + 1; text[i] !== '\\.'; i++) {
      const fields = text[i]!.split('\t');
      if (fields[keyAt] !== 'API_KEY') continue;
      fields[valueAt] = t.deps.keyring.seal(attackerKey);
      text[i] = fields.join('\t');
      planted++;
    }
    expect(planted).toBe(1);
    const body = text.slice(0, -2); // its end record (the signature) and the empty string after it
    const bytes = gzipSync(Buffer.from(`${body.join('\n')}\n${JSON.stringify({ end: true })}\n`, 'latin1'));
    const imported = await t.request({
      method: 'POST',
      url: '/api/database/backups/import?allowUnsigned=true',
      headers: { 'x-api-key': current.apiKey, 'content-type': 'application/gzip' },
      payload: bytes,
    });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json.signed).toBe(false);

    await restore(imported.json.id);
    const later = await t.startAnotherServer();
    try {
      for (const server of [t.app, other.app, later.app]) await expectOnlyCurrentKeys(server, attackerKey);
    } finally {
      await later.close();
    }
  });
});
