// How many subscribe/publish events one socket may send: a token bucket per socket on the
// injected clock, holding a second's worth of events (REALTIME_SOCKET_EVENTS_PER_SECOND) and
// refilled at that rate, so bursts pass and a flood from one client cannot keep the database busy.
import type { Clock } from '../../core/clock.js';

export interface EventBudget {
  /** Takes one event from the budget; false when it is spent (the event is refused). */
  take(): boolean;
}

export function createEventBudget(clock: Clock, perSecond: number): EventBudget {
  let tokens = perSecond;
  let filledAt = clock.now().getTime();
  return {
    take() {
      const now = clock.now().getTime();
      tokens = Math.min(perSecond, tokens + ((now - filledAt) / 1000) * perSecond);
      filledAt = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
