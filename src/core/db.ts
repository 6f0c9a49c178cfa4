// The PostgreSQL pool, transactions, and the per-request scope that row-level security reads.
import { createConnection } from 'node:net';
import postgres from 'postgres';
import { AppError } from './errors.js';
import { connectionFailure, outcomeUnknown } from './pg-errors.js';
import { createPoolGuard, startDeadline, type Deadline, type PoolGuard } from './pool-guard.js';

export type Sql = postgres.Sql;
/** Anything a repository can run SQL on: the pool or an open transaction. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Bound on one scoped envelope (waiting for a connection plus its statements). */
  deadlineMs?: number;
  /** Envelopes that may wait for a connection before new ones are refused with 503. */
  queueMax?: number;
  /** Per database role: how many of its envelopes may use connections at once (pool-guard.ts). */
  shares?: Readonly<Record<string, number>>;
  /**
   * Named prepared statements (default true). False behind a pooler in transaction mode (PgBouncer
   * before 1.21 keeps none across transactions): every query then goes unnamed, parsed each time.
   */
  prepare?: boolean;
}

const DEFAULT_DEADLINE_MS = 30_000;

/**
 * Seconds before a lost connection is tried again: doubling from 50 ms, capped at 1 s. The
 * driver's own back-off counts failures across the whole pool and grows to 20 s (3^n / 100), so
 * after a database restart of a few seconds the pool's connections slept up to 20 s more and
 * requests waiting for them ran into their deadline: recovery took 10-60 s instead of ~1 s.
 */
export const reconnectBackoff = (retries: number): number => Math.min(0.05 * 2 ** retries, 1);
/** Where a pool keeps its guard: on the pool object itself, so nothing lives at module level. */
const GUARD = Symbol.for('plinth.poolGuard');
type Guarded = Sql & { [GUARD]?: PoolGuard };

export function createPool(url: string, options: PoolOptions = {}): Sql {
  const max = options.max ?? 10;
  const sql: Guarded = postgres(url, {
    max,
    prepare: options.prepare ?? true,
    onnotice: () => {},
    backoff: reconnectBackoff,
    connection: { application_name: options.applicationName ?? 'plinth' },
  });
  sql[GUARD] = createPoolGuard({
    max,
    queueMax: options.queueMax ?? 2 * max,
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
    shares: options.shares,
  });
  return sql;
}

/**
 * One connection of its own beside a pool: the same database and settings (back-off included),
 * named `applicationName`, outside the pool and its guard (e.g. the log writer's COPYs, which must
 * never hold one of the requests' connections). End it with `.end()`.
 */
export function createCompanionConnection(pool: Sql, applicationName: string): Sql {
  return postgres({
    ...(pool.options as unknown as postgres.Options<Record<string, never>>),
    max: 1,
    connection: { ...pool.options.connection, application_name: applicationName },
  });
}

/**
 * Sends the pool's LISTENs and logical subscriptions through `direct` (a connection that is a real
 * PostgreSQL session, not a pooler in transaction mode, where a LISTEN would be lost at the end of
 * its transaction). Every module that calls `sql.listen` keeps doing so; ending `direct` ends them.
 */
export function routeSessionWorkTo(pool: Sql, direct: Sql): void {
  if (pool === direct) return;
  pool.listen = direct.listen;
  pool.subscribe = direct.subscribe;
}

/** The pool's admission guard (a pool made elsewhere gets the defaults on first use). */
export function guardOf(sql: Sql): PoolGuard {
  const guarded = sql as Guarded;
  guarded[GUARD] ??= createPoolGuard({
    max: sql.options.max,
    queueMax: 2 * sql.options.max,
    deadlineMs: DEFAULT_DEADLINE_MS,
  });
  return guarded[GUARD];
}

export function withTx<T>(sql: Sql, work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return sql.begin(work) as Promise<T>;
}

/** Who a request runs as inside PostgreSQL. */
export interface RequestScope {
  role: 'anon' | 'authenticated' | 'project_admin';
  claims: Record<string, unknown>;
  /** `Prefer: timezone=…` (already checked against pg_timezone_names): the transaction's TimeZone. */
  timezone?: string;
  /** The statement_timeout of the transaction's statements (by role; 0: none); unset keeps the server's. */
  statementTimeoutMs?: number;
}

/**
 * The scope statement: role, claims, the statement timeout and, only when one is asked for, the
 * TimeZone, all set in one statement local to the transaction. Every value is bound as text, so
 * the driver has nothing to serialise that could throw. The timeout binds the statements after
 * this one (PostgreSQL arms it as each statement starts).
 */
function scopeStatement(conn: postgres.Sql, scope: RequestScope) {
  const params = [scope.role, JSON.stringify(scope.claims)];
  let text = "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)";
  if (scope.statementTimeoutMs !== undefined) {
    params.push(String(scope.statementTimeoutMs));
    text += `, set_config('statement_timeout', $${params.length}, true)`;
  }
  if (scope.timezone !== undefined) {
    params.push(scope.timezone);
    text += `, set_config('timezone', $${params.length}, true)`;
  }
  return conn.unsafe(text, params, { prepare: true });
}

interface Reservation {
  conn: postgres.ReservedSql;
  /** Releases the connection and the permit; call once the envelope's queries all settled. */
  done(): void;
}

/** A permit, then a connection, both within the deadline; a connection that arrives late goes back at once. */
async function reserveWithin(sql: Sql, guard: PoolGuard, deadline: Deadline, share?: string): Promise<Reservation> {
  const releasePermit = await guard.acquire(deadline, share);
  const reserving = sql.reserve();
  try {
    const conn = await Promise.race([reserving, deadline.expired]);
    return {
      conn,
      done: () => {
        conn.release(); // a connection that closed stays with the pool's closed ones (patched postgres.js)
        releasePermit();
      },
    };
  } catch (err) {
    releasePermit();
    reserving.then(
      (late) => late.release(),
      () => {},
    );
    throw connectionFailure(err) ?? err;
  }
}

interface BackendKey {
  pid: number | null;
  secret: number | null;
}

/** The key of the backend a query was written to, copied now: after a reconnect it is another backend's. */
function backendKeyOf(query: postgres.PendingQuery<postgres.Row[]>): BackendKey | undefined {
  const state = (query as unknown as { state?: BackendKey }).state;
  return state ? { pid: state.pid, secret: state.secret } : undefined;
}

/**
 * Asks PostgreSQL to cancel whatever the backend that ran `query` is running now: a CancelRequest
 * with the backend's key on a connection of its own (postgres.js's query.cancel() drops the
 * promise of its cancel connection, which would end as an unhandled rejection when the server is down).
 */
function cancelBackend(sql: Sql, key: BackendKey | undefined): void {
  const { host, port } = sql.options as unknown as { host: string[]; port: number[] };
  if (!key?.pid || key.secret === null || !host[0]) return;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80877102, 4);
  message.writeUInt32BE(key.pid, 8);
  message.writeUInt32BE(key.secret, 12);
  const socket = host[0].startsWith('/')
    ? createConnection(`${host[0]}/.s.PGSQL.${port[0]}`)
    : createConnection(port[0] ?? 5432, host[0]);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('connect', () => socket.end(message));
}

/**
 * Waits for an envelope's queries within its deadline. Past it the caller gets a 503 at once; the
 * backend's running statement is cancelled and the connection goes back when the pipeline settles.
 */
async function settleWithin<T>(
  sql: Sql,
  guard: PoolGuard,
  deadline: Deadline,
  run: Promise<T>,
  backend: BackendKey | undefined,
): Promise<T> {
  try {
    return await Promise.race([run, deadline.expired]);
  } catch (err) {
    if (deadline.passed) {
      guard.markOverdue(true);
      run.then(
        () => guard.markOverdue(false),
        () => guard.markOverdue(false),
      );
      cancelBackend(sql, backend);
    }
    throw err;
  } finally {
    deadline.clear();
  }
}

/**
 * The envelope both request-scope runners share: a connection reserved within the request's
 * deadline, BEGIN written on it, `pipeline` run, and the outcome awaited no longer than the
 * deadline (past it the statement is cancelled). The connection goes back once `pipeline` settled.
 * `share`: the database role whose share of the pool the envelope counts against.
 */
async function onReservedConnection<T>(
  sql: Sql,
  pipeline: (conn: postgres.ReservedSql, begin: postgres.PendingQuery<postgres.Row[]>) => Promise<T>,
  effect: Effect = 'reads',
  share?: string,
): Promise<T> {
  const guard = guardOf(sql);
  const deadline = startDeadline(guard.options.deadlineMs);
  let reservation: Reservation;
  try {
    reservation = await reserveWithin(sql, guard, deadline, share);
  } catch (err) {
    deadline.clear();
    throw err;
  }
  const { conn, done } = reservation;
  const begin = conn`begin`.execute();
  const backend = backendKeyOf(begin);
  const run = pipeline(conn, begin);
  run.then(done, done);
  const settled = settleWithin(sql, guard, deadline, run, backend);
  return effect === 'reads' ? settled : settled.catch((err) => Promise.reject(unconfirmedWrite(err, deadline)));
}

/**
 * What an envelope's work does: `writes` turns a deadline or lost connection after BEGIN went out
 * into OUTCOME_UNKNOWN (its COMMIT may have landed), where a read just answers 503 "retry".
 */
export type Effect = 'reads' | 'writes';

function unconfirmedWrite(err: unknown, deadline: Deadline): unknown {
  if (!(err instanceof AppError) || err.code !== 'SERVICE_UNAVAILABLE') return err;
  return outcomeUnknown(
    deadline.passed ? err.message : 'The database connection was lost before the write was confirmed.',
    err,
  );
}

/**
 * Runs `work` in one transaction whose first statement switches to the request's role and
 * publishes its claims (read by auth.uid() and friends), both local to the transaction.
 *
 * BEGIN, the scope statement and the work's first query go out together on one reserved
 * connection (one round trip), then COMMIT: two round trips where `sql.begin` takes three.
 * Bounded by the pool's deadline; a lost connection answers 503 and is never written to again.
 */
export function withRequestScope<T>(
  sql: Sql,
  scope: RequestScope,
  work: (tx: postgres.Sql) => Promise<T>,
  effect: Effect = 'reads',
): Promise<T> {
  return onReservedConnection(
    sql,
    async (conn, begin) => {
      const opened = Promise.all([begin, scopeStatement(conn, scope).execute()]);
      // Awaited below, handled now: a connection lost while `work` is still busy elsewhere fails
      // this request (503), never the process (an unhandled rejection ends Node).
      opened.catch(() => {});
      let result: T;
      try {
        result = await work(conn);
        await opened;
      } catch (err) {
        await opened.catch(() => {});
        await conn`rollback`.catch(() => {});
        throw connectionFailure(err) ?? err;
      }
      try {
        await conn`commit`;
      } catch (err) {
        throw connectionFailure(err) ?? err;
      }
      return result;
    },
    effect,
    scope.role,
  );
}

/**
 * Read-only checks pipelined in one transaction that is rolled back: BEGIN, `steps` and ROLLBACK
 * written together on a reserved connection (one round trip), within the pool's deadline. Each
 * step's outcome is returned; a failed BEGIN or ROLLBACK (a lost connection) throws.
 */
export function runRolledBack<R extends postgres.Row[]>(
  sql: Sql,
  steps: (conn: postgres.Sql) => postgres.PendingQuery<R>[],
): Promise<PromiseSettledResult<R>[]> {
  return onReservedConnection(sql, async (conn, begin) => {
    const settled = await Promise.allSettled([
      begin,
      ...steps(conn).map((step) => step.execute()),
      conn`rollback`.execute(),
    ]);
    for (const envelope of [settled[0], settled[settled.length - 1]])
      if (envelope?.status === 'rejected') throw connectionFailure(envelope.reason) ?? envelope.reason;
    return settled.slice(1, -1) as PromiseSettledResult<R>[];
  });
}

/**
 * One statement in a request's scope, in one round trip: BEGIN, the scope statement, the
 * (prepared) statement and COMMIT are written together on a reserved connection. A failed
 * statement aborts the transaction, so the pipelined COMMIT rolls it back.
 */
export async function runScoped(
  sql: Sql,
  scope: RequestScope,
  text: string,
  params: unknown[],
  effect: Effect = 'reads',
): Promise<postgres.RowList<postgres.Row[]>> {
  return (await runScopedThen(sql, scope, text, params, null, effect))[0];
}

/**
 * runScoped with a second statement (no parameters) after the first, in the same transaction and
 * round trip, e.g. to read what the first left in a transaction-local setting. Both results.
 */
export function runScopedThen(
  sql: Sql,
  scope: RequestScope,
  text: string,
  params: unknown[],
  then: string | null,
  effect: Effect = 'reads',
): Promise<[postgres.RowList<postgres.Row[]>, postgres.RowList<postgres.Row[]> | null]> {
  return onReservedConnection(
    sql,
    async (conn, begin) => {
      const settled = await Promise.allSettled([
        begin,
        scopeStatement(conn, scope).execute(),
        conn.unsafe(text, params as never[], { prepare: true }).execute(),
        ...(then === null ? [] : [conn.unsafe(then, [], { prepare: true }).execute()]),
        conn`commit`.execute(),
      ]);
      for (const step of settled) if (step.status === 'rejected') throw connectionFailure(step.reason) ?? step.reason;
      const value = (i: number) => (settled[i] as PromiseFulfilledResult<postgres.RowList<postgres.Row[]>>).value;
      return [value(2), then === null ? null : value(3)];
    },
    effect,
    scope.role,
  );
}
