// SQL for the admin's rate-limit overrides (system.rate_limit_settings) and the effective list.
import type { Queryable } from '../../core/db.js';
import { authLimits } from './rate-limits.js';
import type { RateLimits, RateLimitsUpdate } from './rate-limits.schemas.js';

interface SettingRow {
  name: string;
  max: number;
  windowSeconds: number;
  updatedAt: Date;
}

/** Every public limit with its effective values (the override, else the default). */
export async function listRateLimits(db: Queryable): Promise<RateLimits> {
  const rows = await db<SettingRow[]>`
    select name, max_hits as max, window_seconds as "windowSeconds", updated_at as "updatedAt"
    from system.rate_limit_settings`;
  const byName = new Map(rows.map((r) => [r.name, r]));
  return {
    limits: Object.values(authLimits).map((l) => {
      const row = byName.get(l.name);
      return {
        name: l.name,
        description: l.description,
        max: row?.max ?? l.max,
        windowSeconds: row?.windowSeconds ?? l.windowSeconds,
        custom: row !== undefined,
        default: { max: l.max, windowSeconds: l.windowSeconds },
        updatedAt: row?.updatedAt.toISOString() ?? null,
      };
    }),
  };
}

/** Sets or resets the named limits in one transaction. */
export async function updateRateLimits(db: Queryable, update: RateLimitsUpdate, now: Date): Promise<void> {
  const resets = update.limits.filter((l) => 'reset' in l).map((l) => l.name);
  const sets = update.limits.flatMap((l) => ('max' in l ? [l] : []));
  if (resets.length > 0) await db`delete from system.rate_limit_settings where name = any(${resets})`;
  for (const l of sets) {
    await db`
      insert into system.rate_limit_settings (name, max_hits, window_seconds, updated_at)
      values (${l.name}, ${l.max}, ${l.windowSeconds}, ${now})
      on conflict (name) do update set max_hits = excluded.max_hits, window_seconds = excluded.window_seconds,
        updated_at = excluded.updated_at`;
  }
}
