// The socket audience of delivered messages, added to their rows off the delivery path: counts
// gather while one update is running and go out together in the next, so a delivery never waits
// for the counter and a burst of messages costs a few updates, not one each.
import type { Sql } from '../../core/db.js';
import { addAudience } from './delivery.repo.js';

export function createAudienceCounter(sql: Sql, onError: (err: unknown) => void) {
  let gathered = new Map<string, number>();
  let writing = false;

  const write = async () => {
    writing = true;
    try {
      while (gathered.size > 0) {
        const counts = [...gathered].map(([id, sockets]) => ({ id, sockets }));
        gathered = new Map();
        await addAudience(sql, counts).catch(onError);
      }
    } finally {
      writing = false;
    }
  };

  return {
    /** Adds the sockets each message reached; written now, or after the update under way. */
    add(counts: { id: string; sockets: number }[]): void {
      for (const { id, sockets } of counts) gathered.set(id, (gathered.get(id) ?? 0) + sockets);
      if (!writing && gathered.size > 0) void write();
    },
  };
}
