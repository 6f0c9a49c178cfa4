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
  /**
   * Per share (a database role): at most this many of its envelopes hold or wait for a connection,
   * and up to `queueMax` more wait for one of those places (each within its deadline); past that it
   * is refused with 503 at once. Slow anonymous queries then cannot take the whole pool from
   * signed-in users, while a busy share still queues as the pool does. Unlisted: no bound.
   */
  shares?: Readonly<Record<string, number>>;
}

/** The message of a refusal for a role's share of the pool. */
export const SHARE_FULL = 'The server is at capacity for requests of this kind: too many are using the database now.';

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
  /**
   * Waits for a permit (bounded by `deadline`), within `share`'s bound when given; throws 503 when
   * the queue or the share is full or time runs out.
   */
  acquire(deadline: Deadline, share?: string): Promise<() => void>;
  stats(): PoolStats;
  /** A share's envelopes with a place (holding or waiting for a connection) and waiting for one. */
  shareStats(share: string): { placed: number; waiting: number };
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

  const shares = createShares(options.shares ?? {}, options.queueMax);
  const acquirePermit = async (deadline: Deadline): Promise<() => void> => {
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
  };

  return {
    options,
    async acquire(deadline, share) {
      const place = share === undefined ? undefined : await shares.enter(share, deadline);
      if (place === null) {
        refused++;
        throw unavailable(SHARE_FULL);
      }
      if (!place) return acquirePermit(deadline);
      try {
        const releasePermit = await acquirePermit(deadline);
        return once(() => {
          releasePermit();
          place();
        });
      } catch (err) {
        place();
        throw err;
      }
    },
    countRefusal: () => {
      refused++;
    },
    stats: () => ({ active, waiting: waiters.length, overdue, lastSettledAt, refused }),
    shareStats: (share) => shares.stats(share),
    full: () => active >= options.max && waiters.length >= options.queueMax,
    markOverdue(isOverdue) {
      overdue += isOverdue ? 1 : -1;
    },
  };
}

/**
 * The places of each share: `enter` resolves with the function that gives the place back, null
 * when the share's places and its wait line (at most `lineMax`) are both full, undefined for a
 * share without a bound.
 */
function createShares(bounds: Readonly<Record<string, number>>, lineMax: number) {
  const taken = new Map<string, number>();
  const lines = new Map<string, Array<() => void>>();
  const leave = (share: string) => {
    const next = lines.get(share)?.shift();
    if (next)
      next(); // the place goes to the next in line
    else taken.set(share, (taken.get(share) ?? 1) - 1);
  };
  return {
    async enter(share: string, deadline: Deadline): Promise<(() => void) | null | undefined> {
      const bound = bounds[share];
      if (bound === undefined) return undefined;
      const inUse = taken.get(share) ?? 0;
      if (inUse < bound) {
        taken.set(share, inUse + 1);
        return once(() => leave(share));
      }
      const line = lines.get(share) ?? [];
      lines.set(share, line);
      if (line.length >= lineMax) return null;
      let granted!: () => void;
      const turn = new Promise<void>((resolve) => {
        granted = resolve;
        line.push(resolve);
      });
      try {
        await Promise.race([turn, deadline.expired]);
      } catch (err) {
        const at = line.indexOf(granted);
        if (at >= 0) line.splice(at, 1);
        else leave(share); // granted in the same tick the deadline passed: hand the place on
        throw err;
      }
      return once(() => leave(share));
    },
    stats: (share: string) => ({ placed: taken.get(share) ?? 0, waiting: lines.get(share)?.length ?? 0 }),
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
