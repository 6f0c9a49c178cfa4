// After an overload whose answers took far longer than before, the door's limit may shrink below
// the pool (down to ADMISSION_MIN_CONCURRENCY): a request is then refused while that many
// connections are held, although others are free, so the ones already admitted are not slowed by
// more work than the database serves near its unloaded latency. Once answers are quick again the
// whole pool is in use again. The app's manual clock times the answers.
import { describe, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { MIN_SAMPLES } from '../../../src/http/concurrency-limit.js';
import { useGatedRpc } from './gated-rpc.js';
import { expectRefusal } from './refusal.js';
import { WHOLE_POOL_FOR_ANON } from './refusal.js';

const POOL = 6;
const QUEUE_MAX = 6;
const FLOOR = 2;
const WINDOW_MS = 100;
const rpc = useGatedRpc(
  {
    DB_POOL_SIZE: String(POOL),
    ...WHOLE_POOL_FOR_ANON,
    DB_POOL_QUEUE_MAX: String(QUEUE_MAX),
    ADMISSION_MIN_CONCURRENCY: String(FLOOR),
    ADMISSION_WINDOW_MS: String(WINDOW_MS),
    REQUEST_TIMEOUT_MS: '3000',
  },
  4246,
  'below-pool-admin',
);
const { call, quickWindow, holding } = rpc;

const served = (n: number) => Array(n).fill(200);

describe('the door below the pool', () => {
  it('refuses while the shrunk limit of connections is held, with others free, and uses the whole pool once answers are quick', async () => {
    const guard = guardOf(rpc.app.deps.sql);
    for (let i = 0; i < 4; i++) expect(await quickWindow()).toEqual(served(MIN_SAMPLES));
    // Two overloads whose answers take a second, each refusing one request and shrinking the
    // limit by half: pool + queue = 12 → 6 (the queue is full) → 3 (six held: the limit).
    for (const held of [POOL + QUEUE_MAX, POOL]) {
      expect(
        await holding(held, async () => {
          await expectRefusal(await call('quick'));
          rpc.app.clock.advance(1_000);
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
