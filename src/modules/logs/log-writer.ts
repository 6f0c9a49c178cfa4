// The log writer: add() encodes the entry as one COPY line straight into the current batch's
// byte buffer (no object outlives the request), so logging never waits on the database. Full
// batches leave off the request path, on a timer or as soon as one is full; when the buffer holds
// its maximum, new entries are dropped and counted instead.
import type { LogEntry } from './log-entry.js';

/** Entries ready to store: their COPY lines and the time span they cover (for partitions). */
export interface LogBatch {
  bytes: Buffer;
  count: number;
  oldestMs: number;
  newestMs: number;
}

export interface LogWriterOptions {
  /** The entry as one line of the batch; `arrival` numbers the entries of one millisecond (0–999). */
  encode(entry: LogEntry, arrival: number): string;
  /** Stores one batch (one statement); a failure drops the batch and counts it. */
  store(batch: LogBatch): Promise<void>;
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

/** Bytes a batch starts with; it grows when its lines need more. */
const BYTES_PER_ENTRY = 256;

/** A batch being filled: the bytes written so far. */
class OpenBatch {
  bytes: Buffer;
  length = 0;
  count = 0;
  oldestMs = Number.POSITIVE_INFINITY;
  newestMs = Number.NEGATIVE_INFINITY;

  constructor(entries: number) {
    this.bytes = Buffer.allocUnsafe(entries * BYTES_PER_ENTRY);
  }

  append(line: string, atMs: number): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.bytes.length - this.length < line.length * 3) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + line.length * 3));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.length += this.bytes.write(line, this.length);
    this.count++;
    if (atMs < this.oldestMs) this.oldestMs = atMs;
    if (atMs > this.newestMs) this.newestMs = atMs;
  }

  close(): LogBatch {
    return {
      bytes: this.bytes.subarray(0, this.length),
      count: this.count,
      oldestMs: this.oldestMs,
      newestMs: this.newestMs,
    };
  }
}

export function createLogWriter(options: LogWriterOptions): LogWriter {
  const { encode, store, maxBuffered, batchSize, onError } = options;
  const full: LogBatch[] = [];
  let open = new OpenBatch(batchSize);
  let buffered = 0;
  let droppedCount = 0;
  let flushQueued = false;
  let lastMs = 0;
  let arrival = 0;
  let chain: Promise<void> = Promise.resolve();
  const listeners = new Set<(entry: LogEntry) => void>();

  const closeOpenBatch = () => {
    full.push(open.close());
    open = new OpenBatch(batchSize);
  };

  async function drain(): Promise<void> {
    // Until nothing is left: entries added while a batch is being stored go too.
    for (;;) {
      if (full.length === 0 && open.count > 0) closeOpenBatch();
      const batch = full.shift();
      if (!batch) return;
      try {
        await store(batch);
      } catch (err) {
        droppedCount += batch.count;
        onError(err);
      } finally {
        buffered -= batch.count;
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
      if (buffered >= maxBuffered) {
        droppedCount++;
        return;
      }
      buffered++;
      const atMs = entry.ts.getTime();
      arrival = atMs === lastMs ? Math.min(arrival + 1, 999) : 0;
      lastMs = atMs;
      open.append(encode(entry, arrival), atMs);
      for (const listener of listeners) listener(entry);
      if (open.count >= batchSize) {
        closeOpenBatch();
        if (!flushQueued) {
          flushQueued = true;
          setImmediate(() => {
            flushQueued = false;
            void flush();
          });
        }
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
