// A session that ends (logout, admin logout, user deleted) stops its access tokens on every
// route of every server within moments: two servers on one database, the second hears the
// revocation through NOTIFY; a server started later reads it back from the database.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { passwordSignIn } from '../../harness/sessions.js';
import { bearer, startTestApp, type Server, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let other: Server;
beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.revocation_notes (id int primary key);
    insert into public.revocation_notes values (1);
    grant select on public.revocation_notes to authenticated, project_admin;`);
  // Started after the table exists, so its schema cache has it without waiting for a NOTIFY.
  other = await t.startAnotherServer();
});
afterAll(async () => {
  await other?.close();
  await t?.close();
});

const onServer = (server: Server, url: string, token: string) =>
  server.app.inject({ method: 'GET', url, headers: bearer(token) });
const records = (server: Server, token: string) => onServer(server, '/api/database/records/revocation_notes', token);
const storage = (server: Server, token: string) => onServer(server, '/api/storage/buckets/none/objects', token);

/** Waits (bounded) until the other server has heard the revocation: its answer becomes 401. */
async function refusedOn(server: Server, token: string) {
  await vi.waitFor(
    async () => {
      expect((await records(server, token)).statusCode).toBe(401);
    },
    { timeout: 20_000, interval: 20 },
  );
}

describe('revoked sessions', () => {
  it('logout on one server: the access token is refused on records and storage of both servers', async () => {
    const session = await t.signUp();
    expect((await records(other, session.accessToken)).statusCode).toBe(200);
    expect((await storage(other, session.accessToken)).statusCode).not.toBe(401);

    const out = await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      headers: bearer(session.accessToken),
      payload: { refreshToken: session.refreshToken },
    });
    expect(out.statusCode).toBe(200);

    // The server that revoked refuses at once.
    const here = await records(t, session.accessToken);
    expect(here.statusCode).toBe(401);
    expect(here.json()).toMatchObject({ error: 'AUTH_UNAUTHORIZED', statusCode: 401 });

    await refusedOn(other, session.accessToken);
    const there = await storage(other, session.accessToken);
    expect(there.statusCode).toBe(401);
    expect(there.json()).toMatchObject({ error: 'AUTH_UNAUTHORIZED', statusCode: 401 });
  });

  it('other sessions of the same user keep working', async () => {
    const first = await t.signUp();
    const second = await passwordSignIn(t, first, 'mobile');
    expect(second.statusCode).toBe(200);
    await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      payload: { refreshToken: first.refreshToken },
    });
    await refusedOn(other, first.accessToken);
    expect((await records(other, second.json.accessToken)).statusCode).toBe(200);
  });

  it('a deleted user: its access tokens are refused everywhere', async () => {
    const session = await t.signUp();
    expect((await records(other, session.accessToken)).statusCode).toBe(200);
    const deleted = await t.request({
      method: 'DELETE',
      url: '/api/auth/users',
      headers: { 'x-api-key': t.apiKey },
      payload: { userIds: [session.user.id] },
    });
    expect(deleted.statusCode).toBe(200);
    await refusedOn(other, session.accessToken);
  });

  it('admin logout: the admin access token stops working on admin routes', async () => {
    const adminToken = await t.adminToken();
    expect((await onServer(other, '/api/auth/users', adminToken)).statusCode).toBe(200);
    const out = await t.request({
      method: 'POST',
      url: '/api/auth/admin/logout?client_type=server',
      headers: bearer(adminToken),
      payload: {},
    });
    expect(out.statusCode).toBe(200);
    await vi.waitFor(async () => expect((await onServer(other, '/api/auth/users', adminToken)).statusCode).toBe(401), {
      timeout: 20_000,
      interval: 20,
    });
  });

  it('a server started after the logout still refuses the token (read back from the database)', async () => {
    const session = await t.signUp();
    await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      payload: { refreshToken: session.refreshToken },
    });
    const late = await t.startAnotherServer();
    try {
      expect((await records(late, session.accessToken)).statusCode).toBe(401);
    } finally {
      await late.close();
    }
  });
});
