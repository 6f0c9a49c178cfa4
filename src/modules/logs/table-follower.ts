// The live tail across servers: while a tail is open here, the entries other servers stored are
// read back from logs.entries every second and handed on, except those this server recorded
// itself (already tailed as they happened). The window reaches back past the writers' flush delay.
import type { Clock } from '../../core/clock.js';
import type { Queryable } from '../../core/db.js';
import { LOG_SOURCES } from './log-entry.js';
import { searchEntries, type StoredEntry } from './logs.repo.js';

const POLL_MS = 1_000;
/** Rows read per poll at most: a tail shows the newest, it is not an export. */
const POLL_ROWS = 1_000;

export interface TableFollower {
  /** An entry this server recorded: never handed on again when read back. */
  recordedHere(id: string): void;
  /** Hears entries other servers stored from now on; returns the unsubscribe. */
  follow(listener: (entry: StoredEntry) => void): () => void;
  close(): void;
}

/** `windowMs`: how far before the newest entry seen each poll looks (the writers' flush delay). */
export function createTableFollower(sql: Queryable, clock: Clock, windowMs: number): TableFollower {
  const listeners = new Set<(entry: StoredEntry) => void>();
  /** Ids handed on or recorded here, with their time, forgotten once out of the window. */
  const seen = new Map<string, number>();
  let newestMs = 0;
  let timer: NodeJS.Timeout | null = null;
  let polling = false;

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      const from = new Date(newestMs - windowMs);
      const rows = await searchEntries(sql, { sources: [...LOG_SOURCES], from }, POLL_ROWS, 0);
      for (const entry of rows.reverse()) {
        const at = entry.ts.getTime();
        if (at > newestMs) newestMs = at;
        if (seen.has(entry.id)) continue;
        seen.set(entry.id, at);
        for (const listener of listeners) listener(entry);
      }
      for (const [id, at] of seen) if (at < newestMs - 2 * windowMs) seen.delete(id);
    } catch {
      // The next poll tries again; a tail is best effort.
    } finally {
      polling = false;
    }
  }

  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  return {
    recordedHere(id) {
      if (timer) seen.set(id, clock.now().getTime());
    },
    follow(listener) {
      listeners.add(listener);
      if (!timer) {
        newestMs = clock.now().getTime();
        timer = setInterval(() => void poll(), POLL_MS);
        timer.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    close: stop,
  };
}
