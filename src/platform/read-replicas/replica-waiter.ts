// Waiting for one replica to replay up to a position: while anyone waits, one poll of
// pg_last_wal_replay_lsn() is in flight at a time, each answer releasing every waiter it covers;
// a waiter not covered within its bound gives up (its read goes to the primary).

export interface ReplicaWaiter {
  /** The replica's replay position once it reaches `lsn`, or undefined after `ms` without. */
  until(lsn: bigint, ms: number): Promise<bigint | undefined>;
  close(): Promise<void>;
}

interface Waiting {
  lsn: bigint;
  settle(replay: bigint | undefined): void;
}

export function createReplicaWaiter(replay: () => Promise<bigint>): ReplicaWaiter {
  const waiting = new Set<Waiting>();
  let polling: Promise<void> | undefined;

  async function poll(): Promise<void> {
    while (waiting.size > 0) {
      let position: bigint;
      try {
        position = await replay();
      } catch {
        for (const w of waiting) w.settle(undefined);
        return;
      }
      for (const w of waiting) if (position >= w.lsn) w.settle(position);
    }
  }

  return {
    until(lsn, ms) {
      return new Promise((resolve) => {
        const entry: Waiting = {
          lsn,
          settle(position) {
            if (!waiting.delete(entry)) return;
            clearTimeout(timer);
            resolve(position);
          },
        };
        const timer = setTimeout(() => entry.settle(undefined), ms);
        waiting.add(entry);
        polling ??= poll().finally(() => {
          polling = undefined;
        });
      });
    },
    async close() {
      for (const w of waiting) w.settle(undefined);
      await polling;
    },
  };
}
