// Decides whether this process is wedged, cheaply enough for every liveness probe: the event loop
// lags far behind, or database work is stuck (an envelope past its deadline and none settled since).
import type { PoolGuard } from '../../core/pool-guard.js';

/** An event loop this late is not serving anyone (normal lag is a few milliseconds). */
export const WEDGED_EVENT_LOOP_LAG_MS = 5_000;
const SAMPLE_EVERY_MS = 500;

export interface LivenessMonitor {
  /** Why the process is wedged, or undefined when it is not. */
  wedged(): string | undefined;
  stop(): void;
}

export function startLivenessMonitor(guard: PoolGuard): LivenessMonitor {
  let expected = performance.now() + SAMPLE_EVERY_MS;
  let lag = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    lag = Math.max(0, now - expected);
    expected = now + SAMPLE_EVERY_MS;
  }, SAMPLE_EVERY_MS).unref();

  return {
    wedged() {
      // The probe itself may run right after a long block, before the sampler saw it.
      const currentLag = Math.max(lag, performance.now() - expected);
      if (currentLag > WEDGED_EVENT_LOOP_LAG_MS) return `event loop delayed by ${Math.round(currentLag)} ms`;
      const pool = guard.stats();
      const idleFor = performance.now() - pool.lastSettledAt;
      if (pool.overdue > 0 && idleFor > guard.options.deadlineMs) {
        return `database work stuck: ${pool.overdue} request(s) past their deadline and none settled for ${Math.round(idleFor)} ms`;
      }
      return undefined;
    },
    stop: () => clearInterval(sampler),
  };
}
