// Message retention: messages older than `realtime.config.retention_days` (where it is NULL,
// REALTIME_MESSAGE_RETENTION_DAYS, 30 by default; 0 keeps them) are deleted in batches, when the
// server starts and then every hour (any server may do it; they delete the same rows).
import type { Deps } from '../../deps.js';
import { purgeExpiredMessages } from './realtime.repo.js';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const PURGE_BATCH = 1000;

/** The retention while an admin has set none (REALTIME_MESSAGE_RETENTION_DAYS; 0 → null: forever). */
export const defaultRetentionDays = (config: Deps['config']): number | null =>
  config.realtimeMessageRetentionDays > 0 ? config.realtimeMessageRetentionDays : null;

export function startRetention(deps: Pick<Deps, 'sql' | 'clock' | 'config'>, onError: (err: unknown) => void) {
  let stopped = false;
  const defaultDays = defaultRetentionDays(deps.config);
  const purge = async () => {
    let deleted = PURGE_BATCH;
    while (!stopped && deleted === PURGE_BATCH) {
      deleted = await purgeExpiredMessages(deps.sql, deps.clock.now(), PURGE_BATCH, defaultDays);
    }
  };
  const running = { current: purge().catch(onError) };
  const timer = setInterval(() => {
    running.current = purge().catch(onError);
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return {
    async close(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await running.current;
    },
  };
}
