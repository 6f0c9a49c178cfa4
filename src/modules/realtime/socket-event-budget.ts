// Token buckets on the injected clock: how many subscribe/publish events (or payload bytes) a
// socket, a client IP or the whole server may send. Each holds a second's worth and refills at
// that rate, so bursts pass and a flood cannot keep the database busy.
import type { Clock } from '../../core/clock.js';

export interface EventBudget {
  /** Takes `cost` (default one event) from the budget; false when it is spent (the event is refused). */
  take(cost?: number): boolean;
}

export function createEventBudget(clock: Clock, perSecond: number): EventBudget {
  let tokens = perSecond;
  let filledAt = clock.now().getTime();
  return {
    take(cost = 1) {
      const now = clock.now().getTime();
      tokens = Math.min(perSecond, tokens + ((now - filledAt) / 1000) * perSecond);
      filledAt = now;
      if (tokens < cost) return false;
      tokens -= cost;
      return true;
    },
  };
}
