// Plinth behind PgBouncer in transaction mode (DATABASE_POOLER=transaction), with LISTEN, session
// locks, admin SQL and migrations on DATABASE_DIRECT_URL: two servers listening on loopback, their
// pools through Debian's pgbouncer (a server pool smaller than theirs, so every transaction may land
// on another server connection). Records under RLS with many requests at once, sign-in, refresh and
// a revocation heard on the other server, and a table change reaching a socket.io client of the
// other server, all through the official client or HTTP.
import { randomUUID } from 'node:crypto';
import { createClient, type InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { freePort } from '../../harness/free-port.js';
import { startPgBouncer, type PgBouncer } from '../../harness/pgbouncer.js';
import { passwordSignIn, refreshMobile } from '../../harness/sessions.js';
import { bearer, type Server, startTestApp, type TestApp } from '../../harness/test-app.js';

let bouncer: PgBouncer;
let t: TestApp;
let other: Server;
let otherUrl: string;
let baseUrl: string;
let databaseName: string;
const clients: InsForgeClient[] = [];

beforeAll(async () => {
  bouncer = await startPgBouncer(inject('serverUrl'), { serverPoolSize: 2 });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: (databaseUrl) => ({
      API_BASE_URL: baseUrl,
      DATABASE_URL: bouncer.urlFor(databaseUrl),
      DATABASE_DIRECT_URL: databaseUrl,
      DATABASE_POOLER: 'transaction',
      DB_POOL_SIZE: '6',
    }),
  });
  databaseName = new URL(t.databaseUrl).pathname.slice(1);
  await t.app.listen({ port, host: '127.0.0.1' });
  // The table is made through the admin SQL route (the direct connection), before the second
  // server starts, so both schema caches have it.
  const ddl = await t.request({
    method: 'POST',
    url: '/api/database/advance/rawsql',
    headers: { 'x-api-key': t.apiKey },
    payload: {
      query: `create table public.notes (id uuid primary key default gen_random_uuid(),
          owner uuid not null default auth.uid(), body text not null);
        alter table public.notes enable row level security;
        create policy notes_own on public.notes for all to authenticated
          using (owner = auth.uid()) with check (owner = auth.uid());
        grant select, insert on public.notes to authenticated;
        select realtime.watch_table('public.notes');`,
    },
  });
  expect(ddl.statusCode, ddl.body).toBe(200);
  other = await t.startAnotherServer();
  const otherPort = await freePort();
  otherUrl = `http://127.0.0.1:${otherPort}`;
  await other.app.listen({ port: otherPort, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await other?.close();
  await t?.close();
  await bouncer?.close();
});

const clientOf = (url: string, accessToken?: string) => {
  const client = createClient({ baseUrl: url, anonKey: t.anonKey, retryCount: 0, ...(accessToken && { accessToken }) });
  clients.push(client);
  return client;
};

describe('behind PgBouncer in transaction mode', () => {
  it('refuses DATABASE_POOLER=transaction without a direct connection', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:6432/db', DATABASE_POOLER: 'transaction' }),
    ).toThrow(/DATABASE_DIRECT_URL: is required with DATABASE_POOLER=transaction/);
  });

  it('records under RLS: many writes and reads at once, each user seeing only its own rows', async () => {
    const before = await bouncer.transactions(databaseName);
    const alice = clientOf(baseUrl, (await t.signUp()).accessToken);
    const bob = clientOf(otherUrl, (await t.signUp()).accessToken);
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? bob : alice).database.from('notes').insert({ body: `${i % 2 ? 'bob' : 'alice'} ${i}` }),
      ),
    );
    for (const w of writes) expect(w.error).toBeNull();
    const reads = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? bob : alice).database.from('notes').select('body')),
    );
    reads.forEach((read, i) => {
      expect(read.error).toBeNull();
      const who = i % 2 ? 'bob' : 'alice';
      expect(read.data).toHaveLength(10);
      for (const row of read.data as { body: string }[]) expect(row.body.startsWith(who)).toBe(true);
    });
    // They went through the pooler: at least one transaction per request.
    expect((await bouncer.transactions(databaseName)) - before).toBeGreaterThanOrEqual(50);
  });

  it('sign-in, refresh, and a logout on one server refusing the token on the other (LISTEN on the direct connection)', async () => {
    const user = await t.signUp();
    const signedIn = await passwordSignIn(t, user, 'mobile');
    expect(signedIn.statusCode).toBe(200);
    const refreshed = await refreshMobile(t, signedIn.json.refreshToken);
    expect(refreshed.statusCode).toBe(200);
    const token = refreshed.json.accessToken as string;
    const current = () =>
      other.app.inject({ method: 'GET', url: '/api/auth/sessions/current', headers: bearer(token) });
    expect((await current()).statusCode).toBe(200);
    const out = await t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      headers: bearer(token),
      payload: { refreshToken: refreshed.json.refreshToken },
    });
    expect(out.statusCode).toBe(200);
    await vi.waitFor(async () => expect((await current()).statusCode).toBe(401), { timeout: 20_000, interval: 20 });
  });

  it('a row written through one server reaches a socket.io subscriber of the other', async () => {
    const user = await t.signUp();
    const subscriber = clientOf(otherUrl, user.accessToken);
    await subscriber.realtime.connect();
    const body = `hello ${randomUUID()}`;
    const received = new Promise<any>((resolve) => {
      subscriber.realtime.on('INSERT', (event: any) => {
        if (event?.new?.body === body) resolve(event);
      });
    });
    expect((await subscriber.realtime.subscribe('table:public.notes')).ok).toBe(true);
    const writer = clientOf(baseUrl, user.accessToken);
    expect((await writer.database.from('notes').insert({ body })).error).toBeNull();
    expect((await received).new).toMatchObject({ body, owner: user.user.id });
  });
});
