// Request counters in PostgreSQL (fixed windows), so every server enforces the same limits.
// A limit is a number of hits per window for one key, e.g. 5 sends per 15 minutes per IP.
import type { Clock } from './clock.js';
import type { Queryable } from './db.js';
import { AppError } from './errors.js';

export interface Limit {
  /** What is limited, e.g. 'send:ip'; the key is `${name}:${subject}`. */
  name: string;
  max: number;
  windowSeconds: number;
  message: string;
}

interface WindowRow {
  hits: number;
  windowStartedAt: Date;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

export function createRateLimiter(db: Queryable, clock: Clock) {
  const keyOf = (limit: Limit, subject: string) => `${limit.name}:${subject}`;

  function tooMany(limit: Limit, row: WindowRow, now: Date): AppError {
    const retryAfter = Math.max(
      1,
      Math.ceil((row.windowStartedAt.getTime() + limit.windowSeconds * 1000 - now.getTime()) / 1000),
    );
    return new AppError('TOO_MANY_REQUESTS', limit.message.replace('{seconds}', String(retryAfter)), {
      headers: { 'retry-after': String(retryAfter) },
      nextActions: `Retry after ${retryAfter} seconds.`,
    });
  }

  async function count(limit: Limit, subject: string, now: Date): Promise<WindowRow> {
    const [row] = await db<WindowRow[]>`
      insert into system.rate_limits as r (key, window_started_at, hits)
      values (${keyOf(limit, subject)}, ${now}, 1)
      on conflict (key) do update set
        hits = case when r.window_started_at <= ${now}::timestamptz - make_interval(secs => ${limit.windowSeconds})
                    then 1 else r.hits + 1 end,
        window_started_at = case when r.window_started_at <= ${now}::timestamptz - make_interval(secs => ${limit.windowSeconds})
                    then ${now} else r.window_started_at end
      returning hits, window_started_at as "windowStartedAt"`;
    return row!;
  }

  return {
    /** Counts a hit; throws 429 (with Retry-After) once the window holds more than `max`. */
    async hit(limit: Limit, subject: string): Promise<void> {
      const now = clock.now();
      const row = await count(limit, subject, now);
      if (row.hits > limit.max) throw tooMany(limit, row, now);
    },

    /** Throws 429 if the window is already full, without counting (for counting failures only). */
    async check(limit: Limit, subject: string): Promise<void> {
      const now = clock.now();
      const [row] = await db<WindowRow[]>`
        select hits, window_started_at as "windowStartedAt" from system.rate_limits
        where key = ${keyOf(limit, subject)}
          and window_started_at > ${now}::timestamptz - make_interval(secs => ${limit.windowSeconds})`;
      if (row && row.hits >= limit.max) throw tooMany(limit, row, now);
    },

    /** Forgets a subject's window, e.g. a cooldown whose email could not be sent after all. */
    async release(limit: Limit, subject: string): Promise<void> {
      await db`delete from system.rate_limits where key = ${keyOf(limit, subject)}`;
    },

    /** Counts a hit without failing: a failure to remember for later checks. */
    async record(limit: Limit, subject: string): Promise<void> {
      await count(limit, subject, clock.now());
    },
  };
}
