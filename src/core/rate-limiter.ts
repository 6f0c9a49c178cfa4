// Request counters in PostgreSQL (fixed windows), so every server enforces the same limits.
// A limit is a number of hits per window for one key, e.g. 100 failed sign-ins per hour per
// account; the admin's override in system.rate_limit_settings (if any) is read by the same
// statement that counts, so a changed limit applies at once on every server.
import type { Clock } from './clock.js';
import type { Queryable } from './db.js';
import { AppError } from './errors.js';

export interface Limit {
  /** What is limited, e.g. 'failed-sign-in:account'; the key is `${name}:${subject}`. */
  name: string;
  /** Defaults, used while the admin has not set the limit. */
  max: number;
  windowSeconds: number;
  message: string;
  /**
   * A lockout: the hit that fills the window restarts it, so the subject stays refused for a
   * whole window from that moment (no burst of a second full window right at the boundary).
   */
  lockout?: boolean;
}

interface WindowRow {
  hits: number;
  windowStartedAt: Date;
  max: number;
  windowSeconds: number;
}

export function createRateLimiter(db: Queryable, clock: Clock) {
  const keyOf = (limit: Limit, subject: string) => `${limit.name}:${subject}`;

  function tooMany(limit: Limit, row: WindowRow, now: Date): AppError {
    const retryAfter = Math.max(
      1,
      Math.ceil((row.windowStartedAt.getTime() + row.windowSeconds * 1000 - now.getTime()) / 1000),
    );
    return new AppError('TOO_MANY_REQUESTS', limit.message.replace('{seconds}', String(retryAfter)), {
      headers: { 'retry-after': String(retryAfter) },
      nextActions: `Retry after ${retryAfter} seconds.`,
    });
  }

  /** The effective limit: the admin's row, else the default (one row either way). */
  const settings = (limit: Limit) => db`
    select coalesce(max(o.max_hits), ${limit.max}::int) as max_hits,
           coalesce(max(o.window_seconds), ${limit.windowSeconds}::int) as window_seconds
    from system.rate_limit_settings o where o.name = ${limit.name}`;

  async function count(limit: Limit, subject: string, now: Date): Promise<WindowRow> {
    const [row] = await db<WindowRow[]>`
      with s as (${settings(limit)})
      insert into system.rate_limits as r (key, window_started_at, hits)
      values (${keyOf(limit, subject)}, ${now}, 1)
      on conflict (key) do update set
        hits = case when r.window_started_at <= ${now}::timestamptz - make_interval(secs => (select window_seconds from s))
                    then 1 else r.hits + 1 end,
        window_started_at = case
          when r.window_started_at <= ${now}::timestamptz - make_interval(secs => (select window_seconds from s)) then ${now}
          when ${limit.lockout === true} and r.hits + 1 = (select max_hits from s) then ${now}
          else r.window_started_at end
      returning hits, window_started_at as "windowStartedAt",
        (select max_hits from s) as max, (select window_seconds from s) as "windowSeconds"`;
    return row!;
  }

  return {
    /** Counts a hit; throws 429 (with Retry-After) once the window holds more than `max`. */
    async hit(limit: Limit, subject: string): Promise<void> {
      const now = clock.now();
      const row = await count(limit, subject, now);
      if (row.hits > row.max) throw tooMany(limit, row, now);
    },

    /** Throws 429 if the window is already full, without counting (for counting failures only). */
    async check(limit: Limit, subject: string): Promise<void> {
      const now = clock.now();
      const [row] = await db<WindowRow[]>`
        with s as (${settings(limit)})
        select hits, window_started_at as "windowStartedAt", s.max_hits as max, s.window_seconds as "windowSeconds"
        from system.rate_limits, s
        where key = ${keyOf(limit, subject)}
          and window_started_at > ${now}::timestamptz - make_interval(secs => s.window_seconds)`;
      if (row && row.hits >= row.max) throw tooMany(limit, row, now);
    },

    /** Forgets a subject's window, e.g. a cooldown whose email could not be sent after all. */
    async release(limit: Limit, subject: string): Promise<void> {
      await db`delete from system.rate_limits where key = ${keyOf(limit, subject)}`;
    },

    /** Takes back one hit (a success that `hit` counted where only failures should count). */
    async refund(limit: Limit, subject: string): Promise<void> {
      await db`update system.rate_limits set hits = hits - 1 where key = ${keyOf(limit, subject)} and hits > 0`;
    },

    /** Counts a hit without failing: a failure to remember for later checks. */
    async record(limit: Limit, subject: string): Promise<void> {
      await count(limit, subject, clock.now());
    },
  };
}
