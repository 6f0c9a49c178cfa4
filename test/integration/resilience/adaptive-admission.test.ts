// The door's limit adapts (http/concurrency-limit.ts), on the app's manual clock: requests that
// wait their turn are never refused, however many the pool and its queue can hold; once requests
// were refused while the answers took far longer than before, fewer are let in (the next one is
// refused although the wait queue has room); and once answers are quick again the limit is back
// at the pool plus its queue.
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { MIN_SAMPLES } from '../../../src/http/concurrency-limit.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';
import { expectRefusal } from './refusal.js';

const POOL = 2;
const QUEUE_MAX = 4;
const WINDOW_MS = 100;
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
      ADMISSION_WINDOW_MS: String(WINDOW_MS),
      // A request admitted by mistake fails fast (503 past its deadline, not "at capacity").
      REQUEST_TIMEOUT_MS: '3000',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = postgres(t.databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: 'adaptive-admin' } });
  await admin.unsafe(`
    create function public.wait_for_gate() returns int language sql volatile as $$ select pg_advisory_xact_lock(4245); select 1 $$;
    create function public.quick() returns int language sql volatile as $$ select 1 $$;
    grant execute on function public.wait_for_gate() to anon;
    grant execute on function public.quick() to anon;
  `);
});

afterAll(async () => {
  await admin?.end();
  await t?.close();
});

/** Every wait_for_gate call waits on the gate until `body` is done. */
async function withGateClosed<T>(body: () => Promise<T>): Promise<T> {
  const gate = await admin.reserve();
  await gate`select pg_advisory_lock(4245)`;
  try {
    return await body();
  } finally {
    await gate`select pg_advisory_unlock(4245)`;
    gate.release();
  }
}

/** One window of ordinary load: a window's worth of quick calls one after another, the clock moved past it. */
async function quickWindow(): Promise<number[]> {
  t.clock.advance(WINDOW_MS);
  const statuses: number[] = [];
  for (let i = 0; i < MIN_SAMPLES; i++) statuses.push((await call('quick')).status);
  return statuses;
}

/** Holds `n` gated calls in flight (the pool's connections held, the rest waiting) during `body`. */
async function holding(n: number, body: () => Promise<void> = async () => {}): Promise<number[]> {
  const guard = guardOf(t.deps.sql);
  const held = await withGateClosed(async () => {
    const calls = Array.from({ length: n }, () => call('wait_for_gate'));
    await waitFor(() => guard.stats().active + guard.stats().waiting === n, 10_000, `${n} calls to hold or wait`);
    await body();
    return calls;
  });
  return (await Promise.all(held)).map((r) => r.status);
}

const FULL = POOL + QUEUE_MAX;
const served = (n: number) => Array(n).fill(200);

describe('the adaptive limit at the door', () => {
  it('refuses none of an ordinary load, lets fewer in after refusals with slow answers, and all again once answers are quick', async () => {
    const guard = guardOf(t.deps.sql);
    // Ordinary load: nothing refused, and the pool plus its queue may be in flight.
    for (let i = 0; i < 4; i++) expect(await quickWindow()).toEqual(served(MIN_SAMPLES));
    expect(
      await holding(FULL, async () => {
        // Overload: the queue is full, so the next is refused; the held ones take a second.
        await expectRefusal(await call('quick'));
        t.clock.advance(1_000);
      }),
    ).toEqual(served(FULL));

    // Refused while answers took 500× the baseline: the limit is halved, to 3 in flight, so with
    // the pool held and one call waiting (the queue has room for three more) the next is refused.
    expect(
      await holding(POOL + 1, async () => {
        expect(guard.full()).toBe(false);
        await expectRefusal(await call('quick'));
      }),
    ).toEqual(served(POOL + 1));

    // Answers are quick again: the limit grows back to the pool plus its queue.
    for (let i = 0; i < 3; i++) expect(await quickWindow()).toEqual(served(MIN_SAMPLES));
    expect(await holding(FULL)).toEqual(served(FULL));
  });
});
