// The socket audience of delivered messages, added to their rows off the delivery path and in
// batches: counts gather for a tenth of a second (and while an update runs) and go out in one
// update, so a delivery never waits for the counter and a stream of messages costs a server ten
// updates a second, not one per message. A stop writes what has gathered.
import type { Sql } from '../../core/db.js';
import { addAudience } from './delivery.repo.js';

/** How long counts gather before they are written. */
const GATHER_MS = 100;

export function createAudienceCounter(sql: Sql, onError: (err: unknown) => void) {
  let gathered = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;

  const write = async (): Promise<void> => {
    timer = undefined;
    const counts = [...gathered].map(([id, sockets]) => ({ id, sockets }));
    gathered = new Map();
    await addAudience(sql, counts).catch(onError);
  };

  const schedule = () => {
    if (timer || writing || gathered.size === 0) return;
    timer = setTimeout(() => {
      writing = write().finally(() => {
        writing = undefined;
        schedule();
      });
    }, GATHER_MS);
    timer.unref();
  };

  return {
    /** Adds the sockets each message reached; written within about GATHER_MS. */
    add(counts: { id: string; sockets: number }[]): void {
      for (const { id, sockets } of counts) gathered.set(id, (gathered.get(id) ?? 0) + sockets);
      schedule();
    },
    /** Writes what has gathered now (a stop, before the pool closes). */
    async flush(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await writing;
      clearTimeout(timer); // the finished update may have scheduled the next
      if (gathered.size > 0) await write();
    },
  };
}
