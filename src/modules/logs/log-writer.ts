// The log writer: add() only pushes onto a bounded in-memory buffer, so logging never waits on
// the database. Batches leave the buffer off the request path, on a timer or as soon as a batch
// is full; when the buffer is full, new entries are dropped and counted instead.
import type { LogEntry } from './log-entry.js';

export interface LogWriterOptions {
  /** Stores one batch (one statement); a failure drops the batch and counts it. */
  store(entries: LogEntry[]): Promise<void>;
  maxBuffered: number;
  batchSize: number;
  flushIntervalMs: number;
  onError(err: unknown): void;
}

export interface LogWriter {
  add(entry: LogEntry): void;
  /** Stores everything buffered now (resolves when it is stored or dropped). */
  flush(): Promise<void>;
  /** Entries dropped since start: buffer full, or their batch failed to store. */
  dropped(): number;
  /** Every entry accepted from now on, as it is accepted (the live tail); returns the unsubscribe. */
  subscribe(listener: (entry: LogEntry) => void): () => void;
  close(): Promise<void>;
}

export function createLogWriter(options: LogWriterOptions): LogWriter {
  const { store, maxBuffered, batchSize, onError } = options;
  let buffer: LogEntry[] = [];
  let droppedCount = 0;
  let flushQueued = false;
  let chain: Promise<void> = Promise.resolve();
  const listeners = new Set<(entry: LogEntry) => void>();

  async function drain(): Promise<void> {
    while (buffer.length > 0) {
      const batch = buffer.length <= batchSize ? buffer : buffer.slice(0, batchSize);
      buffer = batch === buffer ? [] : buffer.slice(batchSize);
      try {
        await store(batch);
      } catch (err) {
        droppedCount += batch.length;
        onError(err);
      }
    }
  }

  const flush = (): Promise<void> => {
    chain = chain.then(drain);
    return chain;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  timer.unref();

  return {
    add(entry) {
      if (buffer.length >= maxBuffered) {
        droppedCount++;
        return;
      }
      buffer.push(entry);
      for (const listener of listeners) listener(entry);
      if (buffer.length >= batchSize && !flushQueued) {
        flushQueued = true;
        setImmediate(() => {
          flushQueued = false;
          void flush();
        });
      }
    },
    flush,
    dropped: () => droppedCount,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
