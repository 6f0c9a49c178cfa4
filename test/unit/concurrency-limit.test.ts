// The door's adaptive concurrency limit on a clock the test moves: it shrinks only while requests
// are refused and latency is past the tolerance, never below its floor; it grows back while
// latency is near the baseline; and sustained overload does not raise the baseline.
import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit, MIN_SAMPLES } from '../../src/http/concurrency-limit.js';

function setup(over: { min?: number; max?: number } = {}) {
  let now = 0;
  const limit = createConcurrencyLimit({
    min: over.min ?? 20,
    max: over.max ?? 60,
    tolerance: 2,
    windowMs: 100,
    baselineMs: 10_000,
    now: () => now,
  });
  /** One window: `refusals` refused, MIN_SAMPLES answers that took `latencyMs`, closed at its end. */
  const windowOf = (latencyMs: number, refusals = 0) => {
    for (let i = 0; i < refusals; i++) limit.refused();
    now += 100;
    for (let i = 0; i < MIN_SAMPLES; i++) limit.completed(now - latencyMs);
  };
  return { limit, windowOf, advance: (ms: number) => (now += ms) };
}

describe('the adaptive concurrency limit', () => {
  it('starts at its ceiling and stays there under a saturating load that nothing is refused in', () => {
    const { limit, windowOf } = setup();
    windowOf(2);
    for (let i = 0; i < 50; i++) windowOf(40); // 20× the baseline, but every client waits its turn
    expect(limit.limit).toBe(60);
    expect(limit.baseline).toBe(2);
  });

  it('shrinks while refusing with latency past the tolerance, in proportion, at most by half a window, down to its floor', () => {
    const { limit, windowOf } = setup();
    windowOf(2);
    windowOf(5, 10); // 5 ms > 2 × 2 ms: 60 × 4/5
    expect(limit.limit).toBe(48);
    windowOf(100, 10); // far past: at most halved
    expect(limit.limit).toBe(24);
    windowOf(100, 10);
    expect(limit.limit).toBe(20);
    windowOf(100, 10);
    expect(limit.limit).toBe(20);
  });

  it('grows back towards its ceiling while latency is within the tolerance, refusing or not', () => {
    const { limit, windowOf } = setup();
    windowOf(2);
    windowOf(100, 10);
    expect(limit.limit).toBe(30);
    windowOf(4, 10); // at the tolerance: + √30
    expect(limit.limit).toBe(35);
    for (let i = 0; i < 10; i++) windowOf(3);
    expect(limit.limit).toBe(60);
  });

  it('does not move before there is a baseline, nor before a window has enough answers', () => {
    const { limit, windowOf, advance } = setup();
    windowOf(100, 10); // refusing from the start: no clean window, no baseline
    expect(limit.baseline).toBe(Number.POSITIVE_INFINITY);
    expect(limit.limit).toBe(60);
    windowOf(2);
    windowOf(100, 10);
    expect(limit.limit).toBe(30);
    limit.refused();
    advance(1_000);
    for (let i = 0; i < MIN_SAMPLES - 1; i++) limit.completed(0); // a second each, too few to judge
    expect(limit.limit).toBe(30);
  });

  it('keeps its baseline through sustained overload, and forgets it after two quiet periods', () => {
    const { limit, windowOf } = setup();
    windowOf(2);
    for (let i = 0; i < 300; i++) windowOf(30, 10); // 30 s of overload, three baseline periods
    expect(limit.baseline).toBe(2);
    expect(limit.limit).toBe(20);
    for (let i = 0; i < 201; i++) windowOf(6); // 20 s without refusals at 6 ms
    expect(limit.baseline).toBe(6);
  });

  it('never has a floor above its ceiling, and takes the baseline as at least 1 ms', () => {
    const { limit, windowOf } = setup({ min: 100, max: 6 });
    windowOf(0);
    expect(limit.baseline).toBe(1);
    windowOf(1_000, 1);
    expect(limit.limit).toBe(6);
  });
});
