// Each database role's share of the pool: slow anonymous queries hold at most their share of the
// connections (DB_POOL_ANON_SHARE, default half the pool), up to the queue bound more wait, and the excess is
// refused at once with 503 + Retry-After, while a signed-in user's read still gets a connection.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { SHARE_FULL } from '../../../src/core/pool-guard.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';

const GATE = 77_002;
let t: TestApp;
let admin: postgres.Sql;

beforeAll(async () => {
  // A pool of 4: anonymous requests may use 2 connections at once, and 2 more (the pool's queue
  // bound) may wait for one of those.
  t = await startTestApp({ env: { DB_POOL_SIZE: '4', DB_POOL_QUEUE_MAX: '2', REQUEST_TIMEOUT_MS: '5000' } });
  admin = postgres(t.databaseUrl, { max: 2, onnotice: () => {} });
  await admin.unsafe(`
    create function public.wait_for_gate() returns int language sql volatile as $$ select pg_advisory_xact_lock(${GATE}); select 1 $$;
    grant execute on function public.wait_for_gate() to anon;
    create table public.notes (id int primary key);
    create policy readers on public.notes for select to authenticated using (true);
    grant select on public.notes to authenticated;
  `);
});

afterAll(async () => {
  await admin?.end();
  await t?.close();
});

const slowAnon = () =>
  t.request({ method: 'POST', url: '/api/database/rpc/wait_for_gate', payload: {}, headers: bearer(t.anonKey) });

it("refuses anonymous requests past their share with 503 while a signed-in user's read is served", async () => {
  const user = await t.signUp();
  const guard = guardOf(t.deps.sql);
  const gate = await admin.reserve();
  await gate`select pg_advisory_lock(${GATE})`;
  let held: ReturnType<typeof slowAnon>[] = [];
  try {
    let answered = 0;
    held = [slowAnon(), slowAnon(), slowAnon(), slowAnon()].map((call) => call.finally(() => answered++));
    await waitFor(
      () => guard.shareStats('anon').placed === 2 && guard.shareStats('anon').waiting === 2,
      10_000,
      'two anonymous calls holding connections and two waiting',
    );
    const [excess, read] = await Promise.all([
      slowAnon(),
      t.request({ method: 'GET', url: '/api/database/records/notes', headers: bearer(user.accessToken) }),
    ]);
    expect(read.statusCode, read.body).toBe(200);
    // Served while every anonymous call still holds its place, not once their deadline freed them.
    expect(answered).toBe(0);
    expect(excess.statusCode, excess.body).toBe(503);
    expect(excess.headers['retry-after']).toMatch(/^\d+$/);
    expect(excess.json).toMatchObject({ error: 'SERVICE_UNAVAILABLE', message: SHARE_FULL, statusCode: 503 });
  } finally {
    await gate`select pg_advisory_unlock(${GATE})`;
    gate.release();
  }
  // The anonymous calls that had a place all answer once the gate opens.
  expect((await Promise.all(held)).map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
  expect(guard.shareStats('anon')).toEqual({ placed: 0, waiting: 0 });
});
