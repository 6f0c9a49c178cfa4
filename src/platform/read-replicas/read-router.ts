// Where a read runs: on a streaming replica that is answering, not too far behind, and has
// replayed what the reader must see (its session's writes), else on the primary. A read that a
// replica fails for the replica's own reasons runs again on the primary, so no request fails
// because a replica stopped or fell behind. Lag and health are read every check interval; a
// replica out of the rotation comes back once it answers and catches up.
import { createPool, type Sql } from '../../core/db.js';
import { createLagClock } from './lag.js';
import { maxLsn, minLsn } from './lsn.js';
import { primaryPosition as readPrimaryPosition, replayPosition } from './replication.repo.js';
import { replicaFault } from './replica-faults.js';
import { createReplicaWaiter, type ReplicaWaiter } from './replica-waiter.js';

export interface ReplicaSettings {
  urls: string[];
  maxLagMs: number;
  consistency: 'wait' | 'pin';
  waitMs: number;
  checkIntervalMs: number;
}

export interface ReadRouterOptions extends ReplicaSettings {
  /** Each replica pool's size, queue and deadline (the primary's settings). */
  pool: { max: number; queueMax: number; deadlineMs: number; shares?: Readonly<Record<string, number>> };
  now?: () => number;
  /** A replica leaving or rejoining the rotation (for the log). */
  onChange?: (replica: string, inRotation: boolean, why: string) => void;
}

/**
 * What a read must see: `session` — that session's writes noted on this server (records, RPC);
 * `server` — every write noted on this server (metadata and types reads, which have no session);
 * `primary` — everything committed on the primary by now (a realtime change being delivered).
 */
export type Freshness = { session: string } | 'server' | 'primary';

export interface ReplicaState {
  name: string;
  up: boolean;
  inRotation: boolean;
  lagMs: number;
  replay: bigint;
  reads: number;
}

/** Counters since start, by why a read did not run on a replica or ran again. */
export interface RouterStats {
  replicas: ReplicaState[];
  /** Reads that ran on the primary although replicas are configured, by reason. */
  primaryReads: { noReplica: number; readYourWrites: number };
  /** Reads that waited for a replica to replay a write: caught up within the bound, or not. */
  waits: { caughtUp: number; timedOut: number };
  /** Reads a replica failed that ran again on the primary, by fault. */
  fallbacks: { unavailable: number; behind: number };
}

export interface ReadRouter {
  readonly enabled: boolean;
  /** Runs `work` on a replica fresh enough for `need`, else (or when the replica fails it) on the primary. */
  read<T>(need: Freshness, work: (sql: Sql) => Promise<T>): Promise<T>;
  /** After `session`'s write committed on the primary: its next reads see it. Never throws. */
  noteWrite(session: string): Promise<void>;
  /** A position another server handed the client (a header): the session's reads see it too. */
  requireFor(session: string, lsn: bigint): Promise<void>;
  /** The position `session` must read at (0 when none); sent back to clients after writes. */
  positionOf(session: string): bigint;
  stats(): RouterStats;
  /** Reads lag and health now (tests; the timer does it every interval). */
  check(): Promise<void>;
  close(): Promise<void>;
}

interface Replica extends ReplicaState {
  sql: Sql;
  waiter: ReplicaWaiter;
}

/** A replica's name in metrics and logs: host, port and database, never credentials. */
export function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/** A position no replica reaches: the session's reads go to the primary until its entry ages out. */
const UNKNOWN = 2n ** 64n - 1n;

/** Rejects when `work` takes longer than `ms` (a replica that stops answering without closing). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Without replicas: every read on the primary, nothing to note. */
export function primaryOnly(primary: Sql): ReadRouter {
  const none: RouterStats = {
    replicas: [],
    primaryReads: { noReplica: 0, readYourWrites: 0 },
    waits: { caughtUp: 0, timedOut: 0 },
    fallbacks: { unavailable: 0, behind: 0 },
  };
  return {
    enabled: false,
    read: (_need, work) => work(primary),
    noteWrite: async () => {},
    requireFor: async () => {},
    positionOf: () => 0n,
    stats: () => none,
    check: async () => {},
    close: async () => {},
  };
}

export function createReadRouter(primary: Sql, options: ReadRouterOptions): ReadRouter {
  if (options.urls.length === 0) return primaryOnly(primary);
  const now = options.now ?? Date.now;
  const probeMs = Math.max(options.checkIntervalMs * 5, 1_000);
  const lag = createLagClock(options.maxLagMs + probeMs + 10 * options.checkIntervalMs);
  // A write noted at `at` is replayed by every replica in the rotation once it is this old (a
  // replica in rotation has replayed every primary sample older than maxLag, and samples are at
  // most one interval apart and one interval old): then its entry can go.
  const coveredAfterMs = options.maxLagMs + 3 * options.checkIntervalMs;
  const replicas: Replica[] = options.urls.map((url) => {
    const sql = createPool(url, { ...options.pool, applicationName: 'plinth-replica' });
    return {
      name: replicaName(url),
      sql,
      up: false,
      inRotation: false,
      lagMs: 0,
      replay: 0n,
      reads: 0,
      waiter: createReplicaWaiter(() => replayOf(sql)),
    };
  });
  const sessions = new Map<string, { lsn: bigint; at: number }>();
  let serverWrites = 0n;
  const counts = {
    primaryReads: { noReplica: 0, readYourWrites: 0 },
    waits: { caughtUp: 0, timedOut: 0 },
    fallbacks: { unavailable: 0, behind: 0 },
  };
  let next = 0;

  const replayOf = (sql: Sql) => within(replayPosition(sql), probeMs);

  // The primary's position now. Callers whose write committed before the query was sent share
  // one answer: one query in flight, the callers that arrive meanwhile wait for the next one.
  let inFlight: Promise<bigint> | undefined;
  let queued: Promise<bigint> | undefined;
  function primaryNow(): Promise<bigint> {
    if (!inFlight) {
      inFlight = within(readPrimaryPosition(primary), probeMs).finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    }
    queued ??= inFlight
      .catch(() => 0n)
      .then(() => {
        queued = undefined;
        return primaryNow();
      });
    return queued;
  }

  function setRotation(replica: Replica, up: boolean, why: string) {
    const inRotation = up && replica.lagMs <= options.maxLagMs;
    replica.up = up;
    if (inRotation !== replica.inRotation) options.onChange?.(replica.name, inRotation, why);
    replica.inRotation = inRotation;
  }

  async function check(): Promise<void> {
    const at = now();
    try {
      lag.notePrimary(await primaryNow(), at);
    } catch {
      // The primary not answering leaves the lag as last measured.
    }
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          replica.replay = maxLsn(replica.replay, await replayOf(replica.sql));
          replica.lagMs = lag.lagOf(replica.replay, now());
          setRotation(replica, true, `lag ${replica.lagMs} ms (limit ${options.maxLagMs} ms)`);
        } catch (err) {
          setRotation(replica, false, `not answering: ${(err as Error).message}`);
        }
      }),
    );
    const oldest = now() - coveredAfterMs;
    const everywhere = replicas.reduce((min, r) => minLsn(min, r.replay), replicas[0]?.replay ?? 0n);
    for (const [session, entry] of sessions) if (entry.at < oldest || entry.lsn <= everywhere) sessions.delete(session);
  }

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(() => {
      checking = check().finally(() => {
        if (!stopped) schedule();
      });
    }, options.checkIntervalMs);
    timer.unref();
  };
  checking = check().finally(schedule);

  async function required(need: Freshness): Promise<bigint> {
    if (need === 'primary') return primaryNow();
    if (need === 'server') return serverWrites;
    return sessions.get(need.session)?.lsn ?? 0n;
  }

  /** A replica to read on, or undefined for the primary. */
  async function choose(need: Freshness): Promise<Replica | undefined> {
    const rotation = replicas.filter((r) => r.inRotation);
    if (rotation.length === 0) {
      counts.primaryReads.noReplica++;
      return undefined;
    }
    let position: bigint;
    try {
      position = await required(need);
    } catch {
      counts.primaryReads.readYourWrites++;
      return undefined;
    }
    const fresh = rotation.filter((r) => r.replay >= position);
    if (fresh.length > 0) return fresh[next++ % fresh.length];
    if (options.consistency === 'pin' || options.waitMs === 0) {
      counts.primaryReads.readYourWrites++;
      return undefined;
    }
    const ahead = rotation.reduce((a, b) => (b.replay > a.replay ? b : a));
    const replay = await ahead.waiter.until(position, options.waitMs);
    if (replay !== undefined) {
      ahead.replay = maxLsn(ahead.replay, replay);
      counts.waits.caughtUp++;
      return ahead;
    }
    counts.waits.timedOut++;
    counts.primaryReads.readYourWrites++;
    return undefined;
  }

  function note(session: string, lsn: bigint, known = true) {
    const entry = sessions.get(session);
    sessions.set(session, { lsn: maxLsn(entry?.lsn ?? 0n, lsn), at: now() });
    if (known) serverWrites = maxLsn(serverWrites, lsn);
  }

  return {
    enabled: true,
    async read(need, work) {
      const replica = await choose(need);
      if (!replica) return work(primary);
      try {
        const result = await work(replica.sql);
        replica.reads++;
        return result;
      } catch (err) {
        const fault = replicaFault(err);
        if (!fault) throw err;
        counts.fallbacks[fault]++;
        if (fault === 'unavailable') setRotation(replica, false, `a read failed: ${(err as Error).message}`);
        return work(primary);
      }
    },
    async noteWrite(session) {
      try {
        note(session, await primaryNow());
      } catch {
        // The primary's position is unknown: the session reads there until its entry is covered.
        note(session, UNKNOWN, false);
      }
    },
    async requireFor(session, lsn) {
      // Never past the primary's position: a made-up position would keep a session off replicas.
      const known = lag.primary;
      const bound = lsn <= known ? known : await primaryNow().catch(() => known);
      note(session, minLsn(lsn, bound));
    },
    positionOf(session) {
      const lsn = sessions.get(session)?.lsn ?? 0n;
      return lsn === UNKNOWN ? 0n : lsn;
    },
    stats: () => ({
      replicas: replicas.map(({ name, up, inRotation, lagMs, replay, reads }) => ({
        name,
        up,
        inRotation,
        lagMs,
        replay,
        reads,
      })),
      primaryReads: { ...counts.primaryReads },
      waits: { ...counts.waits },
      fallbacks: { ...counts.fallbacks },
    }),
    check: () => check(),
    async close() {
      stopped = true;
      clearTimeout(timer);
      await checking.catch(() => {});
      await Promise.all(replicas.map((r) => r.waiter.close()));
      await Promise.all(replicas.map((r) => r.sql.end({ timeout: 1 })));
    },
  };
}
