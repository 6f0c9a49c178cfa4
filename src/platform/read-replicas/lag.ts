// A replica's lag in milliseconds, from the primary's WAL position sampled at each check: the
// replica is as far behind as the oldest sample it has not replayed yet is old. An idle primary
// whose position does not move leaves a caught-up replica at 0, however long since the last write.
import { maxLsn } from './lsn.js';

interface Sample {
  lsn: bigint;
  at: number;
}

export interface LagClock {
  /** The primary's position observed at `at` (ms). */
  notePrimary(lsn: bigint, at: number): void;
  /** How far behind a replica that replayed up to `replay` is at `now` (ms; 0 when caught up). */
  lagOf(replay: bigint, now: number): number;
  /** The newest primary position observed (0 before the first). */
  readonly primary: bigint;
}

/** `keepMs`: how long samples are kept; a replica behind all of them is reported as that far behind. */
export function createLagClock(keepMs: number): LagClock {
  const samples: Sample[] = [];
  let primary = 0n;
  return {
    get primary() {
      return primary;
    },
    notePrimary(lsn, at) {
      primary = maxLsn(primary, lsn);
      const last = samples[samples.length - 1];
      // Only moves are kept: a replica at the newest position is caught up, whenever it got there.
      if (!last || lsn > last.lsn) samples.push({ lsn, at });
      while (samples.length > 1 && (samples[0]?.at ?? at) < at - keepMs) samples.shift();
    },
    lagOf(replay, now) {
      const behind = samples.find((s) => s.lsn > replay);
      return behind ? Math.max(0, now - behind.at) : 0;
    },
  };
}
