// The door's limit adapts (http/concurrency-limit.ts), on the app's manual clock: requests that
// wait their turn are never refused, however many the pool and its queue can hold; once requests
// were refused while the answers took far longer than before, fewer are let in (the next one is
// refused although the wait queue has room); and once answers are quick again the limit is back
// at the pool plus its queue.
import { describe, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { MIN_SAMPLES } from '../../../src/http/concurrency-limit.js';
import { useGatedRpc } from './gated-rpc.js';
import { expectRefusal } from './refusal.js';
import { WHOLE_POOL_FOR_ANON } from './refusal.js';

const POOL = 2;
const QUEUE_MAX = 4;
const WINDOW_MS = 100;
const rpc = useGatedRpc(
  {
    DB_POOL_SIZE: String(POOL),
    ...WHOLE_POOL_FOR_ANON,
    DB_POOL_QUEUE_MAX: String(QUEUE_MAX),
    ADMISSION_WINDOW_MS: String(WINDOW_MS),
    // A request admitted by mistake fails fast (503 past its deadline, not "at capacity").
    REQUEST_TIMEOUT_MS: '3000',
  },
  4245,
  'adaptive-admin',
);
const { call, quickWindow, holding } = rpc;

const FULL = POOL + QUEUE_MAX;
const served = (n: number) => Array(n).fill(200);

describe('the adaptive limit at the door', () => {
  it('refuses none of an ordinary load, lets fewer in after refusals with slow answers, and all again once answers are quick', async () => {
    const guard = guardOf(rpc.app.deps.sql);
    // Ordinary load: nothing refused, and the pool plus its queue may be in flight.
    for (let i = 0; i < 4; i++) expect(await quickWindow()).toEqual(served(MIN_SAMPLES));
    expect(
      await holding(FULL, async () => {
        // Overload: the queue is full, so the next is refused; the held ones take a second.
        await expectRefusal(await call('quick'));
        rpc.app.clock.advance(1_000);
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
