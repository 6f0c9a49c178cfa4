// The verified-token cache as a client sees it, on two servers of one database: a token each server
// has cached stops working the moment its session ends (at once where it ended, as soon as the
// revocation arrives on the other), expiry follows the injected clock, an edited copy of a cached
// token is refused, and a server that caches nothing (ACCESS_TOKEN_CACHE_SIZE=0) answers the same.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { bearer, startTestApp, type Server, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let other: Server;
beforeAll(async () => {
  t = await startTestApp();
  other = await t.startAnotherServer();
});
afterAll(async () => {
  await other?.close();
  await t?.close();
});

const current = (server: Server, token: string) =>
  server.app.inject({ method: 'GET', url: '/api/auth/sessions/current', headers: bearer(token) });

describe('verified-token cache', () => {
  it('a cached token is refused the moment its session ends, on both servers', async () => {
    const session = await t.signUp();
    // Twice on each server: the second call is answered from the cache.
    for (const server of [t, other, t, other])
      expect((await current(server, session.accessToken)).statusCode).toBe(200);

    const out = await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      headers: bearer(session.accessToken),
      payload: { refreshToken: session.refreshToken },
    });
    expect(out.statusCode).toBe(200);
    const here = await current(t, session.accessToken);
    expect(here.statusCode).toBe(401);
    expect(here.json()).toMatchObject({
      error: 'AUTH_UNAUTHORIZED',
      message: 'The session of this access token has ended.',
      nextActions: expect.any(String),
    });
    await vi.waitFor(async () => expect((await current(other, session.accessToken)).statusCode).toBe(401), {
      timeout: 20_000,
      interval: 20,
    });
  });

  it('a cached token stops at its exp on the injected clock', async () => {
    const session = await t.signUp();
    expect((await current(t, session.accessToken)).statusCode).toBe(200);
    t.clock.advance((t.config.accessTokenTtlSeconds - 5) * 1000);
    expect((await current(t, session.accessToken)).statusCode).toBe(200);
    t.clock.advance(5_000);
    const expired = await current(t, session.accessToken);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ error: 'AUTH_UNAUTHORIZED', message: 'The access token has expired.' });
  });

  it('an edited copy of a cached token is refused, and the original still works', async () => {
    const session = await t.signUp();
    const admin = { role: 'project_admin' };
    expect((await current(t, session.accessToken)).statusCode).toBe(200);
    const [header, payload, signature] = session.accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, ...admin })).toString('base64url')}.${signature}`;
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/secrets', headers: bearer(forged) });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'AUTH_UNAUTHORIZED', message: 'Invalid access token.' });
    }
    expect((await current(t, session.accessToken)).statusCode).toBe(200);
  });
});

describe('without a cache', () => {
  let uncached: TestApp;
  beforeAll(async () => {
    uncached = await startTestApp({ env: { ACCESS_TOKEN_CACHE_SIZE: '0' } });
  });
  afterAll(async () => uncached?.close());

  it('verifies every call and refuses a revoked token the same way', async () => {
    const session = await uncached.signUp();
    for (let i = 0; i < 2; i++) expect((await current(uncached, session.accessToken)).statusCode).toBe(200);
    await uncached.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      payload: { refreshToken: session.refreshToken },
    });
    expect((await current(uncached, session.accessToken)).statusCode).toBe(401);
  });

  it('refuses a size that is not a whole number', async () => {
    expect(() => loadConfig({ ACCESS_TOKEN_CACHE_SIZE: '-1' })).toThrow(/ACCESS_TOKEN_CACHE_SIZE/);
  });
});
