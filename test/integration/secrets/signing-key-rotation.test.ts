// Access-token signing-key rotation: the new key signs at once; the old one stays in the JWKS and
// verifies until its grace period ends on the injected clock (then 401, and gone from the JWKS),
// on this server, on a server already running (told through plinth_secrets) and on one started later.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, type Server, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let running: Server;
beforeAll(async () => {
  // Tokens live 3 h here, so a 1 h grace period ends before the tokens do.
  t = await startTestApp({ env: { ACCESS_TOKEN_TTL_SECONDS: String(3 * 3600) } });
  running = await t.startAnotherServer();
});
afterAll(async () => {
  await running.close();
  await t.close();
});

const HOUR = 3_600_000;
const rotate = (payload?: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: '/api/secrets/signing-key/rotate',
    headers: { 'x-api-key': t.apiKey },
    ...(payload ? { payload } : {}),
  });
const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;
const jwksKids = async (server = t.app, path = '/.well-known/jwks.json') =>
  ((await server.inject({ method: 'GET', url: path })).json().keys as { kid: string }[]).map((k) => k.kid);
/** What a user's access token opens (200) or not (401), on a server. */
const asUser = async (token: string, server = t.app) =>
  (await server.inject({ method: 'GET', url: '/api/auth/sessions/current', headers: bearer(token) })).statusCode;
const asAdmin = async (token: string, server = t.app) =>
  (await server.inject({ method: 'GET', url: '/api/secrets', headers: bearer(token) })).statusCode;

describe('signing-key rotation', () => {
  it('signs with the new key at once; the old one verifies and stays in the JWKS for the grace period', async () => {
    const user = await t.signUp();
    const admin = await t.adminToken();
    const oldKid = kidOf(user.accessToken);
    expect(await jwksKids()).toEqual([oldKid]);

    const res = await rotate({ gracePeriodHours: 1 });
    expect(res.statusCode).toBe(200);
    const expiresAt = new Date(t.clock.now().getTime() + HOUR).toISOString();
    expect(res.json).toEqual({
      success: true,
      message: expect.stringContaining(expiresAt),
      keyId: expect.stringMatching(/^kid_[0-9a-f]{32}$/),
      oldKeyExpiresAt: expiresAt,
    });
    const newKid = res.json.keyId;
    expect(newKid).not.toBe(oldKid);
    const fresh = await t.signUp();
    expect(kidOf(fresh.accessToken)).toBe(newKid);

    const later = await t.startAnotherServer();
    try {
      for (const server of [t.app, running.app, later.app]) {
        await vi.waitFor(async () => expect(await jwksKids(server)).toEqual([newKid, oldKid]));
        expect(await jwksKids(server, '/api/.well-known/jwks.json')).toEqual([newKid, oldKid]);
        expect(await asUser(user.accessToken, server)).toBe(200);
        expect(await asUser(fresh.accessToken, server)).toBe(200);
        expect(await asAdmin(admin, server)).toBe(200);
      }
      // The retired key is listed (public half only), with its expiry; the private key stays hidden.
      const listed = (await t.request({ method: 'GET', url: '/api/secrets', headers: { 'x-api-key': t.apiKey } })).json
        .secrets as { key: string; expiresAt: string | null }[];
      expect(listed.find((s) => s.key.startsWith('JWT_PUBLIC_KEY_OLD_'))).toMatchObject({ expiresAt });

      t.clock.advance(HOUR - 1000);
      expect(await asUser(user.accessToken)).toBe(200);
      t.clock.advance(1000);
      for (const server of [t.app, running.app, later.app]) {
        const refused = await server.inject({
          method: 'GET',
          url: '/api/auth/sessions/current',
          headers: bearer(user.accessToken),
        });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toMatchObject({ error: 'AUTH_UNAUTHORIZED', message: 'Invalid access token.' });
        expect(await asAdmin(admin, server)).toBe(401);
        expect(await jwksKids(server)).toEqual([newKid]);
        expect(await asUser(fresh.accessToken, server)).toBe(200);
      }
    } finally {
      await later.close();
    }
  });

  it('a grace period of 0 refuses the old key at once, on every server', async () => {
    const user = await t.signUp();
    const res = await rotate({ gracePeriodHours: 0 });
    expect(res.json.oldKeyExpiresAt).toBe(t.clock.now().toISOString());
    expect(await asUser(user.accessToken)).toBe(401);
    expect(await jwksKids()).toEqual([res.json.keyId]);
    await vi.waitFor(async () => expect(await jwksKids(running.app)).toEqual([res.json.keyId]));
    expect(await asUser(user.accessToken, running.app)).toBe(401);
    // The refresh token still works: the client gets a token signed by the new key.
    const refreshed = await t.request({
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      payload: { refreshToken: user.refreshToken },
    });
    expect(refreshed.statusCode).toBe(200);
    expect(kidOf(refreshed.json.accessToken)).toBe(res.json.keyId);
    expect(await asUser(refreshed.json.accessToken, running.app)).toBe(200);
  });

  it('defaults to 24 h; rejects a bad grace period with 400 and keeps the key', async () => {
    const before = await jwksKids();
    for (const payload of [{ gracePeriodHours: 169 }, { gracePeriodHours: -1 }, { gracePeriodHours: '2' }]) {
      const res = await rotate(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    }
    expect(await jwksKids()).toEqual(before);
    const res = await rotate();
    expect(res.json.oldKeyExpiresAt).toBe(new Date(t.clock.now().getTime() + 24 * HOUR).toISOString());
  });

  it('needs an admin: a user token gets 403, no credential 401', async () => {
    const user = await t.signUp();
    const asUserRes = await t.request({
      method: 'POST',
      url: '/api/secrets/signing-key/rotate',
      headers: bearer(user.accessToken),
    });
    expect(asUserRes.statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: '/api/secrets/signing-key/rotate' })).statusCode).toBe(401);
  });
});
