// Admission and deadlines for the pool's scoped envelopes: at most `max` hold a connection, at
// most `queueMax` wait for one (the next is refused with 503 at once), and none waits or runs
// past its deadline. Also what health checks read: is the pool serving, is DB work stuck.
import { unavailable } from './pg-errors.js';

/** The message of every refusal for capacity, at the door (http/admission.ts) or here. */
export const AT_CAPACITY = 'The server is at capacity: too many requests are waiting for a database connection.';

export interface PoolGuardOptions {
  /** Envelopes holding a connection at once (the pool's size). */
  max: number;
  /** Envelopes that may wait for a connection; past it new ones get 503 at once. */
  queueMax: number;
  /** Bound on one envelope: waiting for a connection plus running its statements. */
  deadlineMs: number;
}

export interface PoolStats {
  active: number;
  waiting: number;
  /** Envelopes past their deadline that have not settled yet (their connection is held). */
  overdue: number;
  /** performance.now() of the last envelope that settled (committed or failed), or of creation. */
  lastSettledAt: number;
  /** Requests refused (503) at capacity since start: here, and at the door (countRefusal). */
  refused: number;
}

export interface PoolGuard {
  readonly options: PoolGuardOptions;
  /** Waits for a permit (bounded by `deadline`); throws 503 when the queue is full or time runs out. */
  acquire(deadline: Deadline): Promise<() => void>;
  stats(): PoolStats;
  /** Every connection is held and the wait queue is at its bound: the next envelope is refused. */
  full(): boolean;
  /** Counts a request refused before it reached the pool (admission at the door). */
  countRefusal(): void;
  /** Called when an envelope passed its deadline (true) and when such an envelope settles (false). */
  markOverdue(overdue: boolean): void;
}

/** One envelope's time bound: a promise that rejects when it passes. */
export interface Deadline {
  readonly expired: Promise<never>;
  /** True once the bound passed. */
  readonly passed: boolean;
  clear(): void;
}

/**
 * A class, not an object literal with a `passed` getter: V8 builds such a literal through its
 * runtime (~1.5 µs), and every records call starts one.
 */
class TimedDeadline implements Deadline {
  readonly expired: Promise<never>;
  #passed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.expired = new Promise<never>((_, reject) => {
      this.#timer = setTimeout(() => {
        this.#passed = true;
        reject(unavailable(`The database did not answer within ${ms} ms.`));
      }, ms);
    });
    this.expired.catch(() => {}); // observed by whoever races it; never an unhandled rejection
  }

  get passed(): boolean {
    return this.#passed;
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

export const startDeadline = (ms: number): Deadline => new TimedDeadline(ms);

export function createPoolGuard(options: PoolGuardOptions): PoolGuard {
  let active = 0;
  let overdue = 0;
  let refused = 0;
  let lastSettledAt = performance.now();
  const waiters: Array<() => void> = [];

  const release = () => {
    lastSettledAt = performance.now();
    const next = waiters.shift();
    if (next) next();
    else active--;
  };

  return {
    options,
    async acquire(deadline) {
      if (active < options.max) {
        active++;
        return once(release);
      }
      if (waiters.length >= options.queueMax) {
        refused++;
        throw unavailable(AT_CAPACITY);
      }
      let granted!: () => void;
      const turn = new Promise<void>((resolve) => {
        granted = resolve;
        waiters.push(resolve);
      });
      try {
        await Promise.race([turn, deadline.expired]);
      } catch (err) {
        const at = waiters.indexOf(granted);
        if (at >= 0) waiters.splice(at, 1);
        else release(); // granted in the same tick the deadline passed: hand the permit on
        throw err;
      }
      return once(release);
    },
    countRefusal: () => {
      refused++;
    },
    stats: () => ({ active, waiting: waiters.length, overdue, lastSettledAt, refused }),
    full: () => active >= options.max && waiters.length >= options.queueMax,
    markOverdue(isOverdue) {
      overdue += isOverdue ? 1 : -1;
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}
