// The log writer: add() encodes the entry as one binary COPY tuple straight into the current
// batch's byte buffer (no object outlives the request), so logging never waits on the database.
// Full batches leave off the request path, on a timer or as soon as one is full; when the buffer
// holds its maximum, new entries are dropped and counted instead.
import type { LogEntry } from './log-entry.js';

/** Entries ready to store: one whole COPY stream and the time span it covers (for partitions). */
export interface LogBatch {
  bytes: Buffer;
  count: number;
  oldestMs: number;
  newestMs: number;
}

/** How entries become bytes: a stream opens with `header`, holds one tuple per entry, ends with `trailer`. */
export interface BatchEncoding<Prepared> {
  header: Buffer;
  trailer: Buffer;
  /** Whatever the entry's size and bytes both need, computed once. */
  prepare(entry: LogEntry): Prepared;
  maxBytes(prepared: Prepared): number;
  /** Writes the tuple at `at` and returns where it ends; `arrival` numbers the entries of one millisecond (0–999). */
  write(buf: Buffer, at: number, prepared: Prepared, arrival: number): number;
}

export interface LogWriterOptions<Prepared> {
  encoding: BatchEncoding<Prepared>;
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

/** Bytes a batch starts with per entry; it grows when its tuples need more. A stored batch's bytes
 * are reused by the next batch (the driver copies them as it sends), so a steady load allocates none. */
const BYTES_PER_ENTRY = 200;

/** A batch being filled: the bytes written so far. */
class OpenBatch<Prepared> {
  bytes: Buffer;
  length: number;
  count = 0;
  oldestMs = Number.POSITIVE_INFINITY;
  newestMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly encoding: BatchEncoding<Prepared>,
    entries: number,
    reuse: Buffer | undefined,
  ) {
    const size = entries * BYTES_PER_ENTRY;
    this.bytes = reuse && reuse.length >= size ? reuse : Buffer.allocUnsafe(size);
    this.length = encoding.header.copy(this.bytes, 0);
  }

  append(entry: LogEntry, arrival: number, atMs: number): void {
    const prepared = this.encoding.prepare(entry);
    // Room for the tuple and the trailer.
    const needed = this.length + this.encoding.maxBytes(prepared) + this.encoding.trailer.length;
    if (this.bytes.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, needed));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.length = this.encoding.write(this.bytes, this.length, prepared, arrival);
    this.count++;
    if (atMs < this.oldestMs) this.oldestMs = atMs;
    if (atMs > this.newestMs) this.newestMs = atMs;
  }

  close(): LogBatch {
    const end = this.length + this.encoding.trailer.copy(this.bytes, this.length);
    return {
      bytes: this.bytes.subarray(0, end),
      count: this.count,
      oldestMs: this.oldestMs,
      newestMs: this.newestMs,
    };
  }
}

export function createLogWriter<Prepared>(options: LogWriterOptions<Prepared>): LogWriter {
  const { encoding, store, maxBuffered, batchSize, onError } = options;
  const full: OpenBatch<Prepared>[] = [];
  let open = new OpenBatch(encoding, batchSize, undefined);
  let spare: Buffer | undefined;
  let buffered = 0;
  let droppedCount = 0;
  let flushQueued = false;
  let lastMs = 0;
  let arrival = 0;
  let chain: Promise<void> = Promise.resolve();
  const listeners = new Set<(entry: LogEntry) => void>();

  const closeOpenBatch = () => {
    full.push(open);
    open = new OpenBatch(encoding, batchSize, spare);
    spare = undefined;
  };

  async function drain(): Promise<void> {
    // Until nothing is left: entries added while a batch is being stored go too.
    for (;;) {
      if (full.length === 0 && open.count > 0) closeOpenBatch();
      const closed = full.shift();
      if (!closed) return;
      try {
        await store(closed.close());
      } catch (err) {
        droppedCount += closed.count;
        onError(err);
      } finally {
        buffered -= closed.count;
        spare = closed.bytes;
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
      open.append(entry, arrival, atMs);
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
