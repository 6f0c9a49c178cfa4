// The scheduled removal of inactive anonymous users: when the server starts and then every hour.
// Any number of servers may run it at once: each batch claims its rows with FOR UPDATE SKIP
// LOCKED in PostgreSQL (anonymous.repo.ts), so no user is deleted twice and no sweep waits.
import type { AnonymousService } from './anonymous.service.js';

const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

export function startAnonymousCleanup(
  anonymous: Pick<AnonymousService, 'removeInactive'>,
  onError: (err: unknown) => void,
) {
  let running: Promise<unknown> = anonymous.removeInactive().catch(onError);
  const timer = setInterval(() => {
    running = anonymous.removeInactive().catch(onError);
  }, CLEANUP_INTERVAL_MS);
  timer.unref();
  return {
    async close(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
