// After an overload whose answers took far longer than before, the door's limit may shrink below
// the pool (down to ADMISSION_MIN_CONCURRENCY): a request is then refused while that many
// connections are held, although others are free, so the ones already admitted are not slowed by
// more work than the database serves near its unloaded latency. Once answers are quick again the
// whole pool is in use again. The app's manual clock times the answers.
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { MIN_SAMPLES } from '../../../src/http/concurrency-limit.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';
import { expectRefusal } from './refusal.js';

const POOL = 6;
const QUEUE_MAX = 6;
const FLOOR = 2;
const WINDOW_MS = 100;
const GATE = 4246;
let t: TestApp;
let admin: postgres.Sql;
let baseUrl: string;

const call = (fn: 'quick' | 'wait_for_gate') =>
  fetch(`${baseUrl}/api/database/rpc/${fn}`, {
    method: 'POST',
    body: '{}',
    headers: { authorization: `Bearer ${t.anonKey}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(15_000),
  });

beforeAll(async () => {
  t = await startTestApp({
    env: {
      DB_POOL_SIZE: String(POOL),
      DB_POOL_QUEUE_MAX: String(QUEUE_MAX),
      ADMISSION_MIN_CONCURRENCY: String(FLOOR),
      ADMISSION_WINDOW_MS: String(WINDOW_MS),
      REQUEST_TIMEOUT_MS: '3000',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = postgres(t.databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: 'below-pool-admin' } });
  await admin.unsafe(`
    create function public.wait_for_gate() returns int language sql volatile as $$ select pg_advisory_xact_lock(${GATE}); select 1 $$;
    create function public.quick() returns int language sql volatile as $$ select 1 $$;
    grant execute on function public.wait_for_gate() to anon;
    grant execute on function public.quick() to anon;
  `);
});

afterAll(async () => {
  await admin?.end();
  await t?.close();
});

async function quickWindow(): Promise<number[]> {
  t.clock.advance(WINDOW_MS);
  const statuses: number[] = [];
  for (let i = 0; i < MIN_SAMPLES; i++) statuses.push((await call('quick')).status);
  return statuses;
}

/** Holds `n` gated calls (each holding a connection or waiting for one) during `body`; their statuses. */
async function holding(n: number, body: () => Promise<void> = async () => {}): Promise<number[]> {
  const guard = guardOf(t.deps.sql);
  const gate = await admin.reserve();
  await gate`select pg_advisory_lock(${GATE})`;
  try {
    const calls = Array.from({ length: n }, () => call('wait_for_gate'));
    await waitFor(() => guard.stats().active + guard.stats().waiting === n, 10_000, `${n} calls to hold or wait`);
    await body();
    await gate`select pg_advisory_unlock(${GATE})`;
    return (await Promise.all(calls)).map((r) => r.status);
  } finally {
    gate.release();
  }
}

const served = (n: number) => Array(n).fill(200);

describe('the door below the pool', () => {
  it('refuses while the shrunk limit of connections is held, with others free, and uses the whole pool once answers are quick', async () => {
    const guard = guardOf(t.deps.sql);
    for (let i = 0; i < 4; i++) expect(await quickWindow()).toEqual(served(MIN_SAMPLES));
    // Two overloads whose answers take a second, each refusing one request and shrinking the
    // limit by half: pool + queue = 12 → 6 (the queue is full) → 3 (six held: the limit).
    for (const held of [POOL + QUEUE_MAX, POOL]) {
      expect(
        await holding(held, async () => {
          await expectRefusal(await call('quick'));
          t.clock.advance(1_000);
        }),
      ).toEqual(served(held));
    }
    // Three connections held of six: the next request is refused although three are free.
    await holding(3, async () => {
      expect(guard.stats().active).toBe(3);
      await expectRefusal(await call('quick'));
    });
    // Quick answers again: the limit grows back, and the whole pool and its queue may be in flight.
    for (let i = 0; i < 6; i++) expect(await quickWindow()).toEqual(served(MIN_SAMPLES));
    expect(await holding(POOL + QUEUE_MAX)).toEqual(served(POOL + QUEUE_MAX));
  });
});
