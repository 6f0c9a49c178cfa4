// Publishes decoded transactions through realtime.publish_captured_changes, in order: everything
// queued (whole transactions, up to BATCH_CHANGES changes or BATCH_BYTES of values) in one
// statement, so one round trip and one database transaction on the leader's own connection; then
// it says which commit is published so its position can be confirmed (never before the batch is
// stored). A single transaction past those bounds goes as several statements pipelined in one
// database transaction. A batch that fails for another reason than a lost connection is retried
// one transaction, then one change, at a time: a change that cannot be published alone (its table
// altered since, say) is reported and skipped rather than holding up every later one.
import type { Sql } from '../../../core/db.js';
import { connectionFailure } from '../../../core/pg-errors.js';
import { type CapturedChange, publishChanges } from './change-capture.repo.js';
import type { CommittedTransaction } from './slot-reader.js';

/** Changes published in one statement at most (and in one database transaction, unless one transaction holds more). */
const BATCH_CHANGES = 1_000;
/** About this many bytes of row values in one statement at most (its JSON parameter). */
const BATCH_BYTES = 8 * 1024 * 1024;

/** Roughly what a change's row images weigh in the statement's JSON parameter. */
function changeBytes(change: CapturedChange): number {
  let bytes = 64;
  for (const row of [change.newRow, change.oldRow]) {
    if (!row) continue;
    for (const [column, value] of Object.entries(row)) bytes += column.length + (value?.length ?? 4) + 6;
  }
  return bytes;
}

/** Splits changes, in order, into statements within BATCH_CHANGES and BATCH_BYTES (each at least one change). */
function statementsOf(changes: CapturedChange[]): CapturedChange[][] {
  const statements: CapturedChange[][] = [];
  let current: CapturedChange[] = [];
  let bytes = 0;
  for (const change of changes) {
    const weight = changeBytes(change);
    if (current.length > 0 && (current.length >= BATCH_CHANGES || bytes + weight > BATCH_BYTES)) {
      statements.push(current);
      current = [];
      bytes = 0;
    }
    current.push(change);
    bytes += weight;
  }
  if (current.length > 0) statements.push(current);
  return statements;
}
/** Changes held unpublished before the stream is paused (it resumes from the slot once drained). */
export const MAX_PENDING_CHANGES = 50_000;

export interface PublisherEvents {
  /** Every transaction up to this commit end is published. */
  published(endLsn: bigint, changes: number): void;
  /** A change that could not be published was skipped. */
  skipped(change: CapturedChange, err: unknown): void;
  /** The connection is lost: the leader's term is over. */
  lost(err: unknown): void;
}

export function createChangePublisher(sql: Sql, events: PublisherEvents) {
  let queue: CommittedTransaction[] = [];
  let pendingChanges = 0;
  let running: Promise<void> | null = null;
  let halted = false;

  /** All of the changes stored, or none: one statement when they fit in one, else several in one transaction. */
  async function inOneTransaction(changes: CapturedChange[]): Promise<void> {
    const statements = statementsOf(changes);
    if (statements.length <= 1) {
      await publishChanges(sql, changes);
      return;
    }
    await sql.begin(async (tx) => {
      await Promise.all(statements.map((part) => publishChanges(tx, part)));
    });
  }

  /** Publishes a batch; a failure other than a lost connection is narrowed down to its change. */
  async function publishBatch(batch: CommittedTransaction[]): Promise<void> {
    try {
      await inOneTransaction(batch.flatMap((tx) => tx.changes));
      return;
    } catch (err) {
      if (connectionFailure(err) || batch.every((tx) => tx.changes.length === 0)) throw err;
    }
    for (const tx of batch) {
      try {
        await inOneTransaction(tx.changes);
        continue;
      } catch (err) {
        if (connectionFailure(err)) throw err;
      }
      for (const change of tx.changes) {
        await inOneTransaction([change]).catch((err: unknown) => {
          if (connectionFailure(err)) throw err;
          events.skipped(change, err);
        });
      }
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !halted) {
      const batch: CommittedTransaction[] = [];
      let size = 0;
      while (queue.length > 0 && (batch.length === 0 || size + queue[0]!.changes.length <= BATCH_CHANGES)) {
        const tx = queue.shift()!;
        batch.push(tx);
        size += tx.changes.length;
      }
      try {
        if (size > 0) await publishBatch(batch);
      } catch (err) {
        halted = true;
        events.lost(err);
        return;
      }
      pendingChanges -= size;
      events.published(batch.at(-1)!.endLsn, size);
    }
  }

  const kick = () => {
    if (running || halted || queue.length === 0) return;
    running = drain().finally(() => {
      running = null;
      kick();
    });
  };

  return {
    add(tx: CommittedTransaction): void {
      if (halted) return;
      queue.push(tx);
      pendingChanges += tx.changes.length;
      kick();
    },
    drained: () => queue.length === 0 && running === null,
    pendingChanges: () => pendingChanges,
    /** Resolves once what was handed over is published (or the publisher halted). */
    idle: async (): Promise<void> => {
      while (running) await running;
    },
    /** Stops publishing (what is queued is dropped: it was not confirmed, so the slot replays it). */
    halt(): void {
      halted = true;
      queue = [];
    },
  };
}

export type ChangePublisher = ReturnType<typeof createChangePublisher>;
