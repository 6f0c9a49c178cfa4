// A leaked API key is not a permanent admin: it reads no platform credential (signing key, admin
// password); a token minted with a leaked signing key opens nothing as admin (no live admin
// session, or too long a lifetime); and once the admin rotates the API key and the signing key
// (grace 0) and signs out, the leaked material opens nothing: admin routes, records, realtime.
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { signingKeyFromPem, signJwt, type SigningKey } from '../../../src/core/jwt.js';
import { bearer, type Server, startTestApp, TEST_ADMIN, type TestApp } from '../../harness/test-app.js';
import { createLedger } from '../../harness/ledger.js';

let t: TestApp;
let other: Server;
let url: string;
const sockets: Socket[] = [];
beforeAll(async () => {
  t = await startTestApp();
  other = await t.startAnotherServer();
  await createLedger(t.deps.sql);
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await other.close();
  await t.close();
});

const YEAR = 365 * 24 * 3600;
const leakedApiKey = () => t.apiKey;

/** What the attacker can lift from the database (routes no longer answer it): the signing key. */
async function stolenSigningKey(): Promise<SigningKey> {
  const rows = await t.deps.sql<{ key: string; sealed: string }[]>`
    select key, value_ciphertext as sealed from system.secrets where key in ('JWT_KEY_ID', 'JWT_PRIVATE_KEY')`;
  const open = (key: string) => t.deps.keyring.open(rows.find((r) => r.key === key)!.sealed);
  return signingKeyFromPem(open('JWT_KEY_ID'), open('JWT_PRIVATE_KEY'));
}

const now = () => epochSeconds(t.clock.now());
const forgeAdmin = (key: SigningKey, claims: Record<string, unknown> = {}) =>
  signJwt(key, { sub: `local:${TEST_ADMIN.email}`, role: 'project_admin', sid: randomUUID(), ...claims });

const adminRoute = (headers: Record<string, string>, server = t.app) =>
  server.inject({ method: 'GET', url: '/api/secrets', headers });
const records = (token: string, server = t.app) =>
  server.inject({ method: 'GET', url: '/api/database/records/ledger', headers: bearer(token) });

/** The socket handshake's outcome: 'connected' or the refusal's message. */
function handshake(auth: Record<string, string>): Promise<string> {
  const socket = io(url, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
  sockets.push(socket);
  return new Promise((resolve) => {
    socket.on('connect', () => resolve('connected'));
    socket.on('connect_error', (err) => resolve(err.message));
  });
}

describe('a leaked API key', () => {
  it.each(['JWT_PRIVATE_KEY', 'ADMIN_PASSWORD'])('cannot read %s: 403 in the error shape, no value', async (key) => {
    const res = await t.request({
      method: 'GET',
      url: `/api/secrets/${key}`,
      headers: { 'x-api-key': leakedApiKey() },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json).toEqual({
      error: 'FORBIDDEN',
      message: `The value of platform secret ${key} is never shown.`,
      statusCode: 403,
      nextActions: expect.stringContaining('/api/secrets/signing-key/rotate'),
    });
    expect(res.body).not.toMatch(/BEGIN|"value"/);
  });

  it.each(['JWT_PRIVATE_KEY', 'ADMIN_PASSWORD'])(
    'cannot send %s out in a schedule header: 404 SECRET_NOT_FOUND',
    async (key) => {
      const res = await t.request({
        method: 'POST',
        url: '/api/schedules',
        headers: { 'x-api-key': leakedApiKey() },
        payload: {
          name: 'exfiltrate',
          cronSchedule: '* * * * *',
          functionSlug: 'collector',
          httpMethod: 'POST',
          headers: { 'X-Loot': `\${{secrets.${key}}}` },
        },
      });
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json).toMatchObject({ error: 'SECRET_NOT_FOUND', statusCode: 404 });
    },
  );

  it('cannot plant a verification key of its own as a retired signing key', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/secrets',
      headers: { 'x-api-key': leakedApiKey() },
      payload: { key: 'JWT_PUBLIC_KEY_OLD_1', value: '{"kid":"kid_mine","publicPem":"…"}', isReserved: true },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', nextActions: expect.any(String) });
    const [row] = await t.deps.sql`select 1 from system.secrets where key = 'JWT_PUBLIC_KEY_OLD_1'`;
    expect(row).toBeUndefined();
  });

  it('sees in the list that the platform secrets exist, never their values', async () => {
    const res = await t.request({ method: 'GET', url: '/api/secrets', headers: { 'x-api-key': leakedApiKey() } });
    const keys = (res.json.secrets as { key: string }[]).map((s) => s.key);
    expect(keys).toEqual(expect.arrayContaining(['JWT_PRIVATE_KEY', 'ADMIN_PASSWORD']));
    expect(res.body).not.toMatch(/BEGIN|PRIVATE KEY|"value"/);
  });
});

describe('tokens minted with a leaked signing key', () => {
  it('a 10-year admin token is refused (lifetime over the maximum), on every server and the socket', async () => {
    const key = await stolenSigningKey();
    const token = await forgeAdmin(key, { iat: now(), exp: now() + 10 * YEAR });
    for (const server of [t.app, other.app]) {
      const res = await adminRoute(bearer(token), server);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        error: 'AUTH_UNAUTHORIZED',
        message: 'The access token lives longer than this server allows.',
      });
    }
    expect(await handshake({ token })).toBe('Invalid token');
  });

  it('tokens without exp or iat, or with iat in the future, are refused', async () => {
    const key = await stolenSigningKey();
    const tokens = [
      await signJwt(key, { sub: `local:${TEST_ADMIN.email}`, role: 'project_admin', sid: randomUUID(), iat: now() }),
      await forgeAdmin(key, { exp: now() + 60 }),
      await forgeAdmin(key, { iat: now() + 10 * YEAR, exp: now() + 10 * YEAR + 60 }),
    ];
    for (const token of tokens) expect((await adminRoute(bearer(token))).statusCode).toBe(401);
  });

  it('a short-lived admin token is refused: its session is no live admin session (not even a user session)', async () => {
    const key = await stolenSigningKey();
    const user = await t.signUp();
    const userSid = JSON.parse(Buffer.from(user.accessToken.split('.')[1]!, 'base64url').toString()).sid;
    for (const sid of [randomUUID(), userSid, 'not-a-uuid']) {
      const token = await forgeAdmin(key, { sid, iat: now(), exp: now() + 600 });
      for (const server of [t.app, other.app]) {
        const res = await adminRoute(bearer(token), server);
        expect(res.statusCode, sid).toBe(401);
        expect(res.json()).toMatchObject({
          error: 'AUTH_UNAUTHORIZED',
          message: 'The session of this access token has ended.',
        });
      }
      expect(await handshake({ token })).toBe('Invalid token');
    }
  });
});

describe('the admin rotates everything', () => {
  it('after API key and signing key rotation (grace 0) and sign-out, the leaked material opens nothing', async () => {
    const key = await stolenSigningKey();
    const oldApiKey = leakedApiKey();
    // What the attacker holds before the rotation: a user token it minted, which works.
    const forgedUser = await signJwt(key, {
      sub: randomUUID(),
      email: 'victim@example.com',
      role: 'authenticated',
      sid: randomUUID(),
      iat: now(),
      exp: now() + 600,
    });
    expect((await records(forgedUser)).statusCode).toBe(200);
    expect(await handshake({ apiKey: oldApiKey })).toBe('connected');

    // The admin signs in (the session is live: its token works on both servers), then rotates.
    const signIn = await t.request({
      method: 'POST',
      url: '/api/auth/admin/sessions?client_type=server',
      payload: TEST_ADMIN,
    });
    const adminToken = signIn.json.accessToken as string;
    expect((await adminRoute(bearer(adminToken))).statusCode).toBe(200);
    expect((await adminRoute(bearer(adminToken), other.app)).statusCode).toBe(200);
    const admin = bearer(adminToken);
    const apiRotation = await t.request({
      method: 'POST',
      url: '/api/secrets/api-key/rotate',
      headers: admin,
      payload: { gracePeriodHours: 0 },
    });
    expect(apiRotation.statusCode).toBe(200);
    const signingRotation = await t.request({
      method: 'POST',
      url: '/api/secrets/signing-key/rotate',
      headers: admin,
      payload: { gracePeriodHours: 0 },
    });
    expect(signingRotation.statusCode).toBe(200);
    expect(signingRotation.json.keyId).not.toBe(key.kid);
    // The admin's own token was signed by the old key too: a new sign-in, then the old session ends.
    const again = await t.request({
      method: 'POST',
      url: '/api/auth/admin/sessions?client_type=server',
      payload: TEST_ADMIN,
    });
    const newAdmin = bearer(again.json.accessToken);
    expect((await adminRoute(newAdmin)).statusCode).toBe(200);
    const logout = await t.request({
      method: 'POST',
      url: '/api/auth/admin/logout',
      payload: { refreshToken: signIn.json.refreshToken },
    });
    expect(logout.statusCode).toBe(200);

    const forgedAdmin = await forgeAdmin(key, { iat: now(), exp: now() + 600 });
    const forgedAfter = await forgeAdmin(key, { iat: now(), exp: now() + 600 });
    for (const server of [t.app, other.app]) {
      await vi.waitFor(async () => expect((await records(forgedUser, server)).statusCode).toBe(401));
      expect((await adminRoute({ 'x-api-key': oldApiKey }, server)).statusCode).toBe(401);
      expect((await adminRoute(bearer(oldApiKey), server)).statusCode).toBe(401);
      for (const token of [forgedAdmin, forgedAfter, adminToken]) {
        expect((await adminRoute(bearer(token), server)).statusCode).toBe(401);
      }
      expect((await records(forgedUser, server)).json()).toMatchObject({ error: 'AUTH_UNAUTHORIZED' });
    }
    expect(await handshake({ apiKey: oldApiKey })).toBe('Invalid API key');
    expect(await handshake({ token: forgedUser })).toBe('Invalid token');
    expect(await handshake({ token: forgedAdmin })).toBe('Invalid token');
    // The database now holds no private key the attacker saw.
    expect((await stolenSigningKey()).kid).toBe(signingRotation.json.keyId);
    const leftovers = await t.deps.sql`select key from system.secrets where starts_with(key, 'JWT_PUBLIC_KEY_OLD_')`;
    expect(leftovers).toHaveLength(0);
    // And the admin carries on, on both servers.
    await vi.waitFor(async () => expect((await adminRoute(newAdmin, other.app)).statusCode).toBe(200));
    expect((await adminRoute({ 'x-api-key': apiRotation.json.apiKey })).statusCode).toBe(200);
    expect(await handshake({ token: again.json.accessToken })).toBe('connected');
  });
});
