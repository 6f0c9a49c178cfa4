// Overload is refused, not queued: once the pool's wait queue is full the next request gets 503
// with Retry-After at once. A request stuck on the database ends at its deadline with 503. And
// readiness fails (503) while the database is unreachable, then passes again.
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { startDatabaseRelay } from '../../harness/tcp-relay.js';
import { startTestApp, testConfig, type TestApp } from '../../harness/test-app.js';
import { createDeps } from '../../../src/deps.js';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/core/clock.js';
import { waitFor } from './fault-driver.js';
import { WHOLE_POOL_FOR_ANON } from './refusal.js';

const REQUEST_TIMEOUT_MS = 3_000;
let t: TestApp;
let admin: postgres.Sql;
let baseUrl: string;

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${t.anonKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 5_000),
  });

beforeAll(async () => {
  t = await startTestApp({
    env: {
      DB_POOL_SIZE: '2',
      DB_POOL_QUEUE_MAX: '1',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      ...WHOLE_POOL_FOR_ANON,
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = postgres(t.databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: 'resilience-admin' } });
  // A call that holds its connection until the test releases an advisory lock.
  await admin.unsafe(`
    create function public.wait_for_gate() returns int language sql volatile as $$ select pg_advisory_xact_lock(4242); select 1 $$;
    grant execute on function public.wait_for_gate() to anon;
  `);
});

afterAll(async () => {
  await admin?.end();
  await t?.close();
});

const blockedOnGate = async () =>
  Number(
    (
      await admin`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 4242 and not granted`
    )[0]!.n,
  );

describe('overload', () => {
  it('answers 503 with Retry-After at once when the wait queue is full, and serves the queued ones after', async () => {
    const gate = await admin.reserve();
    await gate`select pg_advisory_lock(4242)`;
    try {
      const holders = [
        call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' }),
        call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' }),
      ];
      await waitFor(async () => (await blockedOnGate()) === 2, 10_000, 'both connections to wait on the gate');
      const queued = call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' });
      await waitFor(() => guardOf(t.deps.sql).stats().waiting === 1, 10_000, 'a request to wait for a connection');

      const refused = await call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const body = await refused.json();
      expect(body).toMatchObject({ error: 'SERVICE_UNAVAILABLE', statusCode: 503 });
      expect(body.nextActions).toMatch(/Retry-After/);

      await gate`select pg_advisory_unlock(4242)`;
      const answers = await Promise.all([...holders, queued]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      gate.release();
    }
  });

  it('ends a request stuck on the database at its deadline with 503, and frees its connection', async () => {
    const gate = await admin.reserve();
    await gate`select pg_advisory_lock(4242)`;
    try {
      const stuck = await call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' });
      expect(stuck.status).toBe(503);
      expect(stuck.headers.get('retry-after')).toBe('1');
      // A volatile function called with POST may have written: its outcome is unknown, not "not completed".
      expect((await stuck.json()).error).toBe('OUTCOME_UNKNOWN');
    } finally {
      await gate`select pg_advisory_unlock(4242)`;
      gate.release();
    }
    // The cancelled statement gave its connection back: both can serve again.
    await waitFor(() => guardOf(t.deps.sql).stats().active === 0, 10_000, 'the connection to be released');
    const again = await Promise.all(
      [1, 2].map(() => call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' })),
    );
    expect(again.map((a) => a.status)).toEqual([200, 200]);
  });
});

describe('readiness', () => {
  it('is 503 while the database is unreachable and 200 once it is back', async () => {
    // A TCP relay in front of the real database that the test can cut and restore.
    const relay = await startDatabaseRelay(t.databaseUrl);
    const deps = await createDeps(testConfig(relay.databaseUrl, { DB_POOL_SIZE: '2' }), { clock: new ManualClock() });
    const app = await buildApp(deps, { logger: false });
    try {
      expect((await app.inject({ method: 'GET', url: '/api/health/ready' })).statusCode).toBe(200);
      await relay.refuse();
      const down = await app.inject({ method: 'GET', url: '/api/health/ready' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
      expect(down.headers['retry-after']).toBe('1');
      // A database route answers 503 too, not 500.
      const rpc = await app.inject({
        method: 'POST',
        url: '/api/database/rpc/wait_for_gate',
        payload: {},
        headers: { authorization: `Bearer ${t.anonKey}` },
      });
      expect(rpc.statusCode).toBe(503);
      expect(rpc.headers['retry-after']).toBe('1');
      expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
      await relay.accept();
      await waitFor(
        async () => (await app.inject({ method: 'GET', url: '/api/health/ready' })).statusCode === 200,
        30_000,
        'readiness to pass again',
      );
    } finally {
      await app.close();
      await deps.close();
      await relay.close();
    }
    // Longer than the 30 s recovery bound above, so a slow recovery fails with what it waited for.
  }, 60_000);
});
