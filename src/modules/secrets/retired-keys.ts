// Retired API/anon keys (`API_KEY_OLD_<ms>`, `ANON_KEY_OLD_<ms>`) whose grace period has ended
// are deleted for good at the next rotation or server start: they no longer open anything.
import type { Queryable } from '../../core/db.js';

/** Deletes the expired retired keys; run under the platform-keys lock. Returns their names. */
export async function purgeExpiredRetiredKeys(db: Queryable, now: Date): Promise<string[]> {
  const rows = await db<{ key: string }[]>`
    delete from system.secrets
    where is_reserved and expires_at is not null and expires_at <= ${now}
      and (starts_with(key, 'API_KEY_OLD_') or starts_with(key, 'ANON_KEY_OLD_'))
    returning key`;
  return rows.map((r) => r.key);
}
